//! What the model is told (issue 14, items 1 to 3): facts compared before
//! every request, one user-role message per section in Crucible's order and
//! headings, the turn and mid-turn rules, bounds and budgets, and resuming
//! from a session log, cut at every byte.

use crate::common;
use crate::common::runtime::at;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Write;
use std::rc::Rc;

use contrib::bundle::Bundle;
use contrib::runtime::{
    Agent, CliGate, Composer, Environment, FactsAt, Model, Note, NoteKind, Options, Permissions,
    Position, Profile, Request, RequestInput, Role, Session, Told, TurnInput,
};

/// A session with no person, as Crucible has: the workspace, the machine,
/// a model, two tools, the default mode.
fn session() -> Session {
    Session {
        tools: vec!["read_object".into(), "search_code".into()],
        agent: Agent {
            name: "Coder".into(),
        },
        environment: Environment {
            os: Some("linux".into()),
            arch: Some("x86_64".into()),
            workspace_root: Some("/home/sam/acme".into()),
        },
        permissions: Permissions {
            mode: Some("default".into()),
            allowed: Vec::new(),
        },
        ..common::runtime::session(None)
    }
}

/// The six sections of `examples/session-facts.contrib`.
fn crucible() -> Bundle {
    common::example_bundle("examples/session-facts.contrib")
}

fn texts(request: &Request) -> Vec<&str> {
    request
        .messages
        .iter()
        .map(|note| note.text.as_str())
        .collect()
}

fn headings(request: &Request) -> Vec<&str> {
    request
        .messages
        .iter()
        .map(|note| note.section.as_deref().unwrap_or_default())
        .collect()
}

const WHERE: &str = "## Where you are working\n/home/sam/acme";
const SKILLS: &str = "## Skills you can open\nNone were discovered.";
const ENVIRONMENT: &str =
    "## Environment\nDate: 2026-03-02 (Monday, UTC)\nOS: linux\nArchitecture: x86_64";
const ANSWERING: &str = "## What is answering\nModel: claude-sonnet-4-5\nEffort: medium";
const TOOLS: &str = "## What you have\n- read_object\n- search_code";
const CLOSING: &str = "This section reports what is allowed; it does not authorize anything. Every call is still checked as if it were not here.";

fn permissions(allowed: &str) -> String {
    format!(
        "## Permissions\nMode: default\nAllowed for the rest of this session: {allowed}\n{CLOSING}"
    )
}

// Facts per request

#[test]
fn the_first_request_reads_the_question_then_the_six_sections_in_crucibles_order() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let mut conversation = Composer::start(&bundles, session(), CliGate, &profile);
    let turn = conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    assert!(
        turn.notes.is_empty(),
        "facts follow the prompt, not precede it"
    );
    let first = conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    let nothing_allowed = permissions("nothing beyond what the mode allows");
    assert_eq!(
        texts(&first),
        [
            WHERE,
            SKILLS,
            ENVIRONMENT,
            ANSWERING,
            TOOLS,
            nothing_allowed.as_str()
        ]
    );
    assert_eq!(
        headings(&first),
        [
            "Where you are working",
            "Skills you can open",
            "Environment",
            "What is answering",
            "What you have",
            "Permissions"
        ]
    );
    for note in &first.messages {
        assert_eq!(
            (note.role, note.position, note.persisted, note.kind),
            (
                Role::User,
                Position::End,
                true,
                NoteKind::Contributor(contrib::ir::Kind::Fact)
            )
        );
    }
    assert!(first
        .record
        .sections
        .iter()
        .all(|section| section.told == Some(Told::Full) && section.tokens > 0));
}

#[test]
fn a_turn_sends_the_sections_once_however_many_tool_rounds_and_a_quiet_turn_sends_none() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let mut conversation = Composer::start(&bundles, session(), CliGate, &profile);
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    assert_eq!(
        conversation
            .request(RequestInput::at(at("2026-03-02T09:01:00Z")))
            .messages
            .len(),
        6
    );
    for second in 10..15 {
        let round =
            conversation.request(RequestInput::at(at(&format!("2026-03-02T09:01:{second}Z"))));
        assert!(round.messages.is_empty());
        assert!(round
            .record
            .sections
            .iter()
            .all(|section| section.why == "unchanged since the model was last told it"));
    }
    conversation.turn(TurnInput::reply_at(at("2026-03-02T15:00:00Z")));
    let quiet = conversation.request(RequestInput::at(at("2026-03-02T15:00:00Z")));
    assert!(quiet.messages.is_empty());
    assert_eq!((quiet.turn, quiet.number), (2, 1));
}

#[test]
fn an_allow_partway_through_a_turn_sends_one_short_note_before_the_next_request_only() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let mut conversation = Composer::start(&bundles, session(), CliGate, &profile);
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    let mut allowed = RequestInput::at(at("2026-03-02T09:01:30Z"));
    allowed.allowed = Some(vec!["Bash(npm test)".into()]);
    let told = conversation.request(allowed);
    assert_eq!(
        texts(&told),
        [format!(
            "## Permissions changed\nAllowed for the rest of this session, added: Bash(npm test)\n{CLOSING}"
        )]
    );
    assert!(conversation
        .request(RequestInput::at(at("2026-03-02T09:02:00Z")))
        .messages
        .is_empty());
}

#[test]
fn a_mode_change_while_a_turn_runs_is_held_and_told_when_the_next_turn_starts() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let mut conversation = Composer::start(&bundles, session(), CliGate, &profile);
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    let mut plan = RequestInput::at(at("2026-03-02T09:01:30Z"));
    plan.mode = Some("plan".into());
    let held = conversation.request(plan);
    assert!(held.messages.is_empty());
    assert_eq!(
        held.record.held,
        ["the mode changed to `plan` while this turn runs; it is told when the next turn starts"]
    );
    assert!(conversation
        .request(RequestInput::at(at("2026-03-02T09:02:00Z")))
        .messages
        .is_empty());
    let next = conversation.turn(TurnInput::reply_at(at("2026-03-02T09:05:00Z")));
    assert_eq!(
        next.record.held,
        ["the mode changed to `plan` while the last turn ran, and is told now"]
    );
    assert_eq!(
        texts(&conversation.request(RequestInput::at(at("2026-03-02T09:05:00Z")))),
        [format!("## Permissions changed\nMode: now plan\n{CLOSING}")]
    );
}

#[test]
fn a_mode_changed_and_changed_back_within_a_turn_is_never_told() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let mut conversation = Composer::start(&bundles, session(), CliGate, &profile);
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    for (second, mode) in [("10", "plan"), ("20", "default")] {
        let mut change = RequestInput::at(at(&format!("2026-03-02T09:01:{second}Z")));
        change.mode = Some(mode.into());
        conversation.request(change);
    }
    let next = conversation.turn(TurnInput::reply_at(at("2026-03-02T09:05:00Z")));
    assert!(next.record.held.is_empty());
    assert!(conversation
        .request(RequestInput::at(at("2026-03-02T09:05:00Z")))
        .messages
        .is_empty());
}

#[test]
fn a_model_change_is_one_note_at_the_end_and_the_top_is_not_rewritten() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let mut conversation = Composer::start(&bundles, session(), CliGate, &profile);
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    let kept = (
        conversation.system_prompt().clone(),
        conversation.opening().to_vec(),
    );
    let mut switch = TurnInput::reply_at(at("2026-03-02T09:02:00Z"));
    switch.model = Some(Model {
        name: "claude-opus-4-1".into(),
        effort: Some("high".into()),
    });
    let turn = conversation.turn(switch);
    assert_eq!(turn.recomposed, None);
    assert_eq!(
        texts(&conversation.request(RequestInput::at(at("2026-03-02T09:02:00Z")))),
        ["## Model changed\nModel: claude-opus-4-1\nEffort: high"]
    );
    assert_eq!(
        (
            conversation.system_prompt().clone(),
            conversation.opening().to_vec()
        ),
        kept
    );
    assert_eq!(conversation.recompositions(), 0);
}

#[test]
fn tools_changed_between_requests_are_named_added_and_removed() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let mut conversation = Composer::start(&bundles, session(), CliGate, &profile);
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    let mut round = RequestInput::at(at("2026-03-02T09:01:10Z"));
    round.tools = Some(vec!["search_code".into(), "fetch_url".into()]);
    assert_eq!(
        texts(&conversation.request(round)),
        ["## What you have changed\nadded: fetch_url\nremoved: read_object"]
    );
}

#[test]
fn compaction_restates_every_section_in_full() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let mut conversation = Composer::start(&bundles, session(), CliGate, &profile);
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    let mut compacted = TurnInput::reply_at(at("2026-03-02T09:30:00Z"));
    compacted.compaction = true;
    conversation.turn(compacted);
    let after = conversation.request(RequestInput::at(at("2026-03-02T09:30:00Z")));
    assert_eq!(after.messages.len(), 6);
    assert!(after
        .record
        .sections
        .iter()
        .all(|section| section.told == Some(Told::Full)));
}

#[test]
fn a_host_may_place_a_turns_first_facts_before_its_prompt() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let options = Options {
        facts: FactsAt::BeforePrompt,
        ..Options::default()
    };
    let mut conversation = Composer::builder(&bundles, session(), CliGate, &profile)
        .options(options)
        .start();
    let turn = conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    let facts: Vec<&Note> = turn
        .notes
        .iter()
        .filter(|note| note.section.is_some())
        .collect();
    assert_eq!(facts.len(), 6);
    assert!(facts
        .iter()
        .all(|note| note.position == Position::BeforePrompt));
    assert!(conversation
        .request(RequestInput::at(at("2026-03-02T09:01:00Z")))
        .messages
        .is_empty());
}

// Duplicated sections

const CAPABILITIES: &str = r#"
plugin acme/capabilities 1.0.0 {
    owner workspace
    fact capabilities {
        budget 2000 tokens
        says [model, tools, arch]
    }
}
"#;

#[test]
fn a_section_two_plugins_state_is_told_once_and_the_second_is_recorded_as_merged() {
    let bundles = [crucible(), common::bundle_in("", CAPABILITIES)];
    let profile = Profile::none();
    let mut conversation = Composer::start(&bundles, session(), CliGate, &profile);
    let turn = conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    let request = conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    assert_eq!(request.messages.len(), 6);
    assert!(request
        .messages
        .iter()
        .all(|note| note.contributor.starts_with("acme/session-facts@")));
    let merged = turn
        .record
        .contributors
        .iter()
        .find(|c| c.contributor == "acme/capabilities@1.0.0/capabilities")
        .expect("recorded");
    assert!(!merged.included);
    assert_eq!(
        merged.why,
        "merged: `model` is already stated under `What is answering` by acme/session-facts@2.0.0/what-is-answering"
    );
}

// Bounds and budgets

#[test]
fn scalars_are_cut_to_200_characters() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let mut deep = session();
    deep.environment.workspace_root = Some(format!("/{}", "d".repeat(300)));
    let mut conversation = Composer::start(&bundles, deep, CliGate, &profile);
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    let request = conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    let root = request.messages[0].text.lines().nth(1).expect("a root");
    assert_eq!(root.chars().count(), 200);
    assert!(root.ends_with('…'));
}

#[test]
fn a_fact_over_its_budget_is_refused_whole_and_the_others_are_still_told() {
    let tight = r#"
plugin acme/tight 1.0.0 {
    owner operator
    fact tools {
        heading "What you have"
        budget 20 tokens
        says [tools]
    }
    fact model {
        budget 40 tokens
        says [model]
    }
}
"#;
    let bundles = [common::bundle_in("", tight)];
    let profile = Profile::none();
    let mut many = session();
    many.tools = (0..40).map(|i| format!("tool_{i:02}")).collect();
    let mut conversation = Composer::start(&bundles, many, CliGate, &profile);
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    let request = conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    assert_eq!(texts(&request), ["## Model\nclaude-sonnet-4-5"]);
    assert_eq!(request.record.refusals.len(), 1);
    assert!(request.record.refusals[0]
        .reason
        .ends_with("over its budget of 20; they were refused, not cut"));
    let tools = request
        .record
        .sections
        .iter()
        .find(|section| section.section == "What you have")
        .expect("recorded");
    assert_eq!(
        (tools.section.as_str(), tools.told),
        ("What you have", None)
    );
}

// Resume

/// A log the test can read while the conversation writes it.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn bytes(&self) -> Vec<u8> {
        self.0.borrow().clone()
    }
}

fn opus() -> Model {
    Model {
        name: "claude-opus-4-1".into(),
        effort: Some("high".into()),
    }
}

/// Turn 1: the six sections; a session-long allow mid-turn; turn 2 under
/// another model. Returns the log.
fn logged_session(bundles: &[Bundle], profile: &Profile) -> Vec<u8> {
    let log = Shared::default();
    let mut conversation = Composer::builder(bundles, session(), CliGate, profile)
        .log(log.clone())
        .start();
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    let mut allow = RequestInput::at(at("2026-03-02T09:01:30Z"));
    allow.allowed = Some(vec!["Bash(npm test)".into()]);
    conversation.request(allow);
    let mut switch = TurnInput::reply_at(at("2026-03-02T09:05:00Z"));
    switch.model = Some(opus());
    conversation.turn(switch);
    conversation.request(RequestInput::at(at("2026-03-02T09:05:00Z")));
    assert_eq!(conversation.log_error(), None);
    log.bytes()
}

/// The host's session when it picks the conversation up: under the model it
/// switched to; the allow, being session-long, not carried over.
fn resumed_session() -> Session {
    Session {
        model: opus(),
        ..session()
    }
}

fn resume_and_request(bundles: &[Bundle], profile: &Profile, log: &[u8]) -> Request {
    let mut conversation = Composer::builder(bundles, resumed_session(), CliGate, profile)
        .resume(log)
        .expect("a log, however cut, resumes");
    conversation.request(RequestInput::at(at("2026-03-02T10:00:00Z")))
}

#[test]
fn the_log_holds_the_words_then_the_state_behind_them() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let log = String::from_utf8(logged_session(&bundles, &profile)).expect("UTF-8");
    assert!(log.starts_with("contrib-session-log 2\ncompose {"));
    let told = log
        .find("told {\"section\":\"Where you are working\",\"told\":\"full\",\"turn\":1,\"request\":1}\n> ## Where you are working\n> /home/sam/acme\nstate {\"section\":\"Where you are working\",")
        .is_some();
    assert!(told, "{log}");
}

#[test]
fn a_resumed_session_restates_only_what_changed_while_it_was_closed() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let log = logged_session(&bundles, &profile);
    let request = resume_and_request(&bundles, &profile, &log);
    // The allow was not carried over: the model last heard of it, so it is
    // told it is gone. Nothing else changed.
    assert_eq!(
        texts(&request),
        [format!(
            "## Permissions changed\nAllowed for the rest of this session, removed: Bash(npm test)\n{CLOSING}"
        )]
    );

    // The next day, under the first model, with the tools built afresh in
    // another order: the date and the model, nothing about the tools.
    let mut next_day = session();
    next_day.tools.reverse();
    next_day.permissions.allowed = vec!["Bash(npm test)".into()];
    let mut conversation = Composer::builder(&bundles, next_day, CliGate, &profile)
        .resume(&log)
        .expect("resumes");
    let request = conversation.request(RequestInput::at(at("2026-03-03T08:00:00Z")));
    assert_eq!(
        texts(&request),
        [
            "## Date changed\nDate: 2026-03-03 (Tuesday, UTC)\nOS: linux\nArchitecture: x86_64",
            "## Model changed\nModel: claude-sonnet-4-5\nEffort: medium"
        ]
    );
}

#[test]
fn a_log_from_before_states_were_recorded_restates_every_section_in_full() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let log = String::from_utf8(logged_session(&bundles, &profile)).expect("UTF-8");
    let words_only: String = log
        .replacen("contrib-session-log 2", "contrib-session-log 1", 1)
        .lines()
        .filter(|line| !line.starts_with("state "))
        .map(|line| format!("{line}\n"))
        .collect();
    let request = resume_and_request(&bundles, &profile, words_only.as_bytes());
    assert_eq!(request.messages.len(), 6);
    assert!(request
        .record
        .sections
        .iter()
        .all(|section| section.told == Some(Told::Full)));
    assert!(!texts(&request)[0].starts_with("This supersedes"));
}

#[test]
fn something_that_is_not_a_log_is_refused_by_name() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let error = Composer::builder(&bundles, session(), CliGate, &profile)
        .resume(b"# notes\nhello\n")
        .err()
        .expect("refused");
    assert_eq!(
        error.to_string(),
        "this is not a session log: it starts `# notes` rather than `contrib-session-log 2`"
    );
    assert_eq!(
        error,
        contrib::runtime::ResumeError::NotALog {
            starts: "# notes".to_string()
        }
    );
    assert_eq!(error.code(), "not-a-session-log");
}

#[test]
fn a_log_that_is_not_text_is_refused_at_its_first_bad_byte() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let error = Composer::builder(&bundles, session(), CliGate, &profile)
        .resume(b"contrib-session-log 2\n\xff\xfe garbage\n")
        .err()
        .expect("refused");
    assert_eq!(error, contrib::runtime::ResumeError::NotUtf8 { at: 22 });
    assert_eq!(error.code(), "log-not-utf8");
    assert_eq!(
        error.to_string(),
        "the session log is not UTF-8 text (at byte 22)"
    );
}

/// Where each entry of a log ends, by section: its `told` lines and its
/// `state` lines, in order, as byte offsets just past the JSON.
fn entries(log: &str) -> BTreeMap<String, (Vec<usize>, Vec<usize>)> {
    let mut found: BTreeMap<String, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
    let mut offset = 0;
    for line in log.split_inclusive('\n') {
        let end = offset + line.trim_end_matches('\n').len();
        for (kind, is_state) in [("told ", false), ("state ", true)] {
            if let Some(json) = line.strip_prefix(kind) {
                let value: serde_json::Value = serde_json::from_str(json).expect("an entry");
                let section = value["section"].as_str().expect("a section").to_string();
                let slot = found.entry(section).or_default();
                if is_state {
                    slot.1.push(end);
                } else {
                    slot.0.push(end);
                }
            }
        }
        offset += line.len();
    }
    found
}

/// What the next request must say of each section when the log is cut at
/// `cut`: nothing, a change from the last state recorded whole, the whole
/// section superseding a telling whose state was never recorded, or the
/// whole section.
fn expected_after_cut(
    log: &BTreeMap<String, (Vec<usize>, Vec<usize>)>,
    cut: usize,
) -> Vec<(String, Option<Told>, Option<String>)> {
    let full = [
        ("Where you are working", WHERE.to_string()),
        ("Skills you can open", SKILLS.to_string()),
        ("Environment", ENVIRONMENT.to_string()),
        (
            "What is answering",
            "## What is answering\nModel: claude-opus-4-1\nEffort: high".to_string(),
        ),
        ("What you have", TOOLS.to_string()),
        (
            "Permissions",
            permissions("nothing beyond what the mode allows"),
        ),
    ];
    full.into_iter()
        .filter_map(|(section, whole)| {
            let (told, states) = log.get(section).cloned().unwrap_or_default();
            let known = states.iter().filter(|end| **end <= cut).count();
            let heard = told.iter().any(|end| *end <= cut);
            let change = match (section, known) {
                (_, 0) if heard => {
                    return Some((
                        section.to_string(),
                        Some(Told::Superseding),
                        Some(format!("{}\n{whole}", contrib::ir::facts::SUPERSEDES)),
                    ))
                }
                (_, 0) => return Some((section.to_string(), Some(Told::Full), Some(whole))),
                // The state before the switch names the first model.
                ("What is answering", 1) => "## Model changed\nModel: claude-opus-4-1\nEffort: high".to_string(),
                // The state after the allow holds it; the host's does not.
                ("Permissions", 2) => format!(
                    "## Permissions changed\nAllowed for the rest of this session, removed: Bash(npm test)\n{CLOSING}"
                ),
                _ => return None,
            };
            Some((section.to_string(), Some(Told::Changed), Some(change)))
        })
        .collect()
}

#[test]
fn a_log_cut_at_every_byte_resumes_and_the_next_request_is_exactly_right() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let log = logged_session(&bundles, &profile);
    let text = String::from_utf8(log.clone()).expect("UTF-8");
    let offsets = entries(&text);
    for cut in 0..=log.len() {
        let request = resume_and_request(&bundles, &profile, &log[..cut]);
        let got: Vec<(String, Option<Told>, Option<String>)> = request
            .messages
            .iter()
            .map(|note| {
                let told = request
                    .record
                    .sections
                    .iter()
                    .find(|s| Some(&s.section) == note.section.as_ref())
                    .and_then(|s| s.told);
                (
                    note.section.clone().unwrap_or_default(),
                    told,
                    Some(note.text.clone()),
                )
            })
            .collect();
        assert_eq!(got, expected_after_cut(&offsets, cut), "cut at byte {cut}");
    }
}

#[test]
fn a_log_with_any_byte_damaged_resumes_or_is_refused_and_never_panics() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let log = logged_session(&bundles, &profile);
    let mut resumed = 0;
    for at_byte in 0..log.len() {
        for damage in [0xFF, b'"', b'\n'] {
            let mut damaged = log.clone();
            damaged[at_byte] = damage;
            let outcome =
                Composer::builder(&bundles, resumed_session(), CliGate, &profile).resume(&damaged);
            if let Ok(mut conversation) = outcome {
                conversation.request(RequestInput::at(at("2026-03-02T10:00:00Z")));
                resumed += 1;
            }
        }
    }
    assert!(resumed > 0, "damage after the header still resumes");
}

#[test]
fn a_log_cut_and_continued_reads_back_the_same_way() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let log = logged_session(&bundles, &profile);
    let text = String::from_utf8(log.clone()).expect("UTF-8");
    // Cut inside the words of the first telling of "What you have".
    let cut = text.find("> - read_object").expect("words") + 5;
    let continued = Shared(Rc::new(RefCell::new(log[..cut].to_vec())));
    let mut conversation = Composer::builder(&bundles, resumed_session(), CliGate, &profile)
        .log(continued.clone())
        .resume(&log[..cut])
        .expect("resumes");
    let first = conversation.request(RequestInput::at(at("2026-03-02T10:00:00Z")));
    assert!(first.messages.iter().any(|note| note
        .text
        .starts_with("This supersedes every earlier version")));
    // Read again, the continued log knows what the model was told.
    let again = resume_and_request(&bundles, &profile, &continued.bytes());
    assert_eq!(texts(&again), Vec::<&str>::new());
}

#[test]
fn a_resumed_conversation_keeps_its_prompt_opening_and_turns_without_running_anything_again() {
    let clock = r#"
plugin acme/clock 1.0.0 {
    owner operator
    text rules {
        placement platform
        budget 20 tokens
        body "Be careful."
    }
    eager-run started-at {
        budget 40 tokens
        call get_current_time {}
    }
}
"#;
    let bundles = [common::bundle_in("", clock), crucible()];
    let profile = Profile::none();
    let log = Shared::default();
    let mut conversation = Composer::builder(&bundles, session(), CliGate, &profile)
        .log(log.clone())
        .start();
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    let kept = (
        conversation.system_prompt().clone(),
        conversation.opening().to_vec(),
    );
    drop(conversation);
    let mut resumed = Composer::builder(&bundles, session(), NoCalls, &profile)
        .resume(&log.bytes())
        .expect("resumes");
    assert_eq!(
        (resumed.system_prompt().clone(), resumed.opening().to_vec()),
        kept
    );
    let turn = resumed.turn(TurnInput::reply_at(at("2026-03-02T09:10:00Z")));
    assert_eq!(turn.number, 2);
}

/// A gate that fails the test if anything is run.
struct NoCalls;

impl contrib::runtime::Gate for NoCalls {
    fn call(&mut self, request: &contrib::runtime::GateRequest) -> contrib::runtime::GateOutcome {
        panic!("{} was run again", request.tool)
    }
}

/// A log that stops accepting writes after `left` bytes.
struct Full(usize);

impl Write for Full {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if bytes.len() > self.0 {
            return Err(std::io::Error::other("no space left on device"));
        }
        self.0 -= bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_log_that_cannot_be_written_says_so_and_the_conversation_goes_on() {
    let bundles = [crucible()];
    let profile = Profile::none();
    let mut conversation = Composer::builder(&bundles, session(), CliGate, &profile)
        .log(Full(100))
        .start();
    conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    let request = conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    assert_eq!(request.messages.len(), 6);
    assert_eq!(
        conversation.log_error(),
        Some("the session log could not be written: no space left on device")
    );
}

//! A small host: what an agent platform calls per conversation, per turn
//! and per request, and where it puts what it gets back.
//!
//! It builds four of the example plugins in memory (Crucible's six fact
//! sections, the retrieved-content hygiene instruction, the workspace's
//! memory prefaces, the conversation clock), then runs a conversation:
//! a first turn with a tool round and a session-long allow, a second turn
//! under another model, then a restart that resumes from the session log
//! and tells the model only what changed while it was closed.
//!
//!     cargo run --example host
//!
//! It checks what it prints as it goes and exits non-zero if the runtime
//! ever tells the model something it should not, so CI runs it.

use std::path::Path;

use contrib::bundle::{self, Bundle};
use contrib::config::Config;
use contrib::runtime::{
    Conversation, Gate, GateOutcome, GateRequest, Model, Note, Position, Profiles, Request,
    RequestInput, Session, Timestamp, Turn, TurnInput,
};
use contrib::source::SourceFile;

/// The host's side of contributors' tool calls: here, canned answers.
struct HostGate;

impl Gate for HostGate {
    fn call(&mut self, request: &GateRequest) -> GateOutcome {
        let output = match request.tool.as_str() {
            "get_current_time" => request.at.to_string(),
            "read_memory" => "The release is on Thursday.".to_string(),
            "fetch_url" => "Handbook: reviews within a day.".to_string(),
            other => {
                return GateOutcome::Refused {
                    reason: format!("`{other}` is not offered to contributors here"),
                }
            }
        };
        GateOutcome::Ran { output }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let bundles: Vec<Bundle> = [
        "session-facts.contrib",
        "retrieved-content-hygiene.contrib",
        "workspace-memory.contrib",
        "conversation-clock.contrib",
    ]
    .iter()
    .map(|name| build(&root, name))
    .collect();
    let session = Session::load(&root.join("runtime/session.toml")).expect("the example session");
    let profiles = Profiles::builtin();
    let profile = profiles.get("anthropic").expect("a shipped profile");
    let folder = tempfile::tempdir().expect("a temporary folder");
    let log_path = folder.path().join("session.log");

    // Per conversation: start it, with a session log.
    let log = std::fs::File::create(&log_path).expect("the log");
    let mut conversation = Conversation::builder(&bundles, session.clone(), HostGate, profile)
        .log(log)
        .start();
    println!(
        "system field: {} bytes, kept for the conversation",
        conversation.system_prompt().text.len()
    );
    println!(
        "opening: {} messages before the first prompt\n",
        conversation.opening().len()
    );

    // Per turn, then per request.
    let turn = conversation.turn(TurnInput::reply_at(at("2026-03-02T09:01:00Z")));
    show_turn(&turn, "Can you review my change?");
    let first = conversation.request(RequestInput::at(at("2026-03-02T09:01:00Z")));
    show_request(&first);
    check(
        first.messages.len() == 6,
        "the first request tells all six sections",
    );

    // The model called a tool; the person answered "don't ask again this
    // session" before the next request.
    let mut round = RequestInput::at(at("2026-03-02T09:01:40Z"));
    round.allowed = Some(vec!["Bash(npm test)".into()]);
    let second = conversation.request(round);
    show_request(&second);
    check(second.messages.len() == 1, "an allow is one short note");

    let mut switch = TurnInput::reply_at(at("2026-03-02T09:20:00Z"));
    switch.model = Some(Model {
        name: "claude-opus-4-1".into(),
        effort: Some("high".into()),
    });
    let turn = conversation.turn(switch);
    show_turn(&turn, "And the tests?");
    let after_switch = conversation.request(RequestInput::at(at("2026-03-02T09:20:00Z")));
    show_request(&after_switch);
    check(
        turn.recomposed.is_none(),
        "a model change does not rewrite the top",
    );
    check(
        after_switch
            .messages
            .iter()
            .any(|note| note.text.starts_with("## Model changed")),
        "a model change is a note at the end",
    );
    drop(conversation);

    // The host restarts. Its session is as it is now: the new model, and no
    // session-long allow (those are not carried over).
    println!(
        "== the host restarts and resumes from {}\n",
        log_path.display()
    );
    let mut now = session;
    now.model = Model {
        name: "claude-opus-4-1".into(),
        effort: Some("high".into()),
    };
    let text = std::fs::read(&log_path).expect("the log");
    let append = std::fs::OpenOptions::new()
        .append(true)
        .open(&log_path)
        .expect("the log");
    let mut resumed = Conversation::builder(&bundles, now, HostGate, profile)
        .log(append)
        .resume(&text)
        .expect("the log resumes");
    let turn = resumed.turn(TurnInput::reply_at(at("2026-03-02T10:00:00Z")));
    show_turn(&turn, "Anything else?");
    let request = resumed.request(RequestInput::at(at("2026-03-02T10:00:00Z")));
    show_request(&request);
    check(turn.number == 3, "turns carry on");
    check(
        request.messages.len() == 1
            && request.messages[0]
                .text
                .starts_with("## Permissions changed"),
        "only what changed while closed is told: the allow is gone",
    );
    check(resumed.log_error().is_none(), "the log was written");
}

/// A plugin under `examples/`, checked and built in the examples' workspace.
fn build(root: &Path, name: &str) -> Bundle {
    let (config, _) = Config::load(&root.join("contrib.toml")).expect("the examples' workspace");
    let text = std::fs::read_to_string(root.join(name)).expect("an example");
    let analysis = contrib::analyze(&SourceFile::new(name, text), &config);
    check(analysis.diagnostics.iter().all(|d| !d.is_error()), name);
    bundle::build(&analysis.plugin.expect("a plugin"), &config).expect("a canonical bundle")
}

fn at(text: &str) -> Timestamp {
    Timestamp::parse(text).expect("an RFC 3339 time")
}

/// What the host sends at a turn's start, in order: notes at position 0,
/// the stored history (not shown), notes before the prompt, the prompt with
/// any note that goes with it.
fn show_turn(turn: &Turn, prompt: &str) {
    println!("== turn {}", turn.number);
    for position in [Position::First, Position::BeforePrompt] {
        turn.notes
            .iter()
            .filter(|note| note.position == position)
            .for_each(show);
    }
    println!("[user] {prompt}");
    turn.notes
        .iter()
        .filter(|note| note.position == Position::WithPrompt)
        .for_each(show);
}

/// The fact sections appended before a request, one user message each.
fn show_request(request: &Request) {
    println!(
        "-- request {}: {} section(s) told",
        request.number,
        request.messages.len()
    );
    request.messages.iter().for_each(show);
    println!();
}

fn show(note: &Note) {
    let stored = if note.persisted {
        "stored"
    } else {
        "rebuilt each turn"
    };
    println!("[user, {}, {stored}]\n{}", note.kind, note.text);
}

fn check(holds: bool, what: &str) {
    if !holds {
        eprintln!("error: the runtime broke a rule: {what}");
        std::process::exit(1);
    }
}

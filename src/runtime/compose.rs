//! Composing a conversation: the kept system prompt, the opening, and the
//! notes before each turn.
//!
//! The order is the cache's order. A provider caches the prefix of a
//! request it has seen before, so what is shared by the most requests goes
//! first and what changes goes last:
//!
//! 1. the **system prompt**, kept for the whole conversation: platform
//!    contributions, then agent, then person; within a placement by
//!    priority, then plugin name, then id. Composed when the conversation
//!    starts and again only at a compaction or a model change (the
//!    provider's cache is per model, so a model change costs nothing more).
//!    Person-placement texts that reach only `replies` or `with-person` are
//!    left out of conversations with no person. Contributions below agent
//!    priority carry their framing.
//! 2. the **opening**, stored as the first messages: eager loads as
//!    `load_tools` calls and skill reads, conversation-placed texts, and
//!    eager runs as tool exchanges through the [`Gate`], each marked as its
//!    contributor's, never the model's. `get_current_time` is labelled the
//!    time the conversation began: it is not re-run per turn.
//! 3. before each turn, **notes**: system messages whose condition holds and
//!    facts that changed (stored with the conversation), then prefaces and
//!    message-placed texts (rebuilt every turn, never stored).
//!
//! Reach applies per turn: `replies` only to turns answering a person,
//! `with-person` while a person is present, `every-turn` always.
//!
//! ```
//! use contrib::runtime::{CliGate, Conversation, Profile, Session, Timestamp, TurnInput};
//!
//! let session = Session::from_toml(r#"
//!     started_at = "2026-03-02T09:00:00Z"
//!     [agent]
//!     name = "Helper"
//!     [model]
//!     name = "claude-sonnet-4-5"
//! "#).unwrap();
//! let none = Profile::none();
//! let mut conversation = Conversation::start(&[], session, CliGate, &none);
//! let turn = conversation.turn(TurnInput::reply_at(Timestamp::parse("2026-03-02T09:05:00Z").unwrap()));
//! assert_eq!(turn.number, 1);
//! assert!(turn.notes.is_empty());
//! assert_eq!(conversation.recompositions(), 0);
//! ```

mod awaiting;
mod kept_budget;
mod withdrawal;

use std::collections::{BTreeMap, BTreeSet};

use super::facts::{self, Stated};
use super::gate::{Gate, GateOutcome, GateRequest};
use super::profiles::{Boundary, Breakpoint, Placed, Profile};
use super::record::{
    ActivationRecord, Approval, Contribution, Fired, Named, Note, OpeningItem, OpeningKind,
    Refusal, RunRecord, SystemPrompt, Turn, TurnContributor, TurnInput, TurnRecord, Withdrawal,
};
use super::render::{envelope, render, within_budget, Values};
use super::session::Session;
use super::time::Timestamp;
use crate::bundle::{Bundle, BundledActivation, BundledCall, BundledContributor};
use crate::config::Effect;
use crate::ir::{ConditionKind, Delivery, Duration, Kind, Placement, Reach};
use crate::tokenizer::TokenizerKind;

/// The tokenizer request sizes are estimated with, for cache breakpoints
/// and their warnings. Budgets use each bundle's own.
pub const REQUEST_TOKENIZER: TokenizerKind = TokenizerKind::O200k;

/// One conversation, from its start to its last turn.
pub struct Conversation<'a, G: Gate> {
    entries: Vec<Entry<'a>>,
    profile: &'a Profile,
    gate: G,
    session: Session,
    system: SystemPrompt,
    preloaded: Vec<OpeningItem>,
    opening: Vec<OpeningItem>,
    /// Conditional texts told in this conversation since it last compacted.
    applied: BTreeSet<String>,
    /// Conditional texts to tell again after a compaction.
    restate: BTreeSet<String>,
    placed: Placed,
    compositions: u32,
    turns: u32,
    last_at: Timestamp,
    skills_seen: BTreeMap<String, semver::Version>,
    /// What each fact contributor last said.
    stated: BTreeMap<String, Stated>,
    /// Runs and refusals not yet reported in a turn's record.
    pending: TurnRecord,
    /// Eager runs waiting for a person's approval (see `awaiting`).
    awaiting: Vec<(Entry<'a>, &'a BundledCall)>,
    /// Plugin versions withdrawn since the last turn (see `withdrawal`).
    withdrawals: Vec<Withdrawal>,
    /// What the kept prefix may take (see `kept_budget`).
    kept_limit: Option<kept_budget::KeptLimit>,
}

/// A contributor with the bundle it came from.
#[derive(Clone, Copy)]
struct Entry<'a> {
    bundle: &'a Bundle,
    contributor: &'a BundledContributor,
}

impl Named for Entry<'_> {
    fn name(&self) -> String {
        self.bundle.contributor_name(self.contributor)
    }
}

impl Entry<'_> {
    fn kind(&self) -> Kind {
        self.contributor.kind
    }

    fn refuse(&self, reason: String) -> Refusal {
        Refusal {
            contributor: self.name(),
            reason,
        }
    }
}

/// What moved in the session at a turn.
#[derive(Default)]
struct Changes {
    /// The previous model's name, when the model changed.
    model_from: Option<String>,
    tools: Option<(Vec<String>, Vec<String>)>,
    permissions: bool,
}

impl<'a, G: Gate> Conversation<'a, G> {
    /// Starts a conversation: composes the system prompt, runs the opening
    /// through `gate`, and places cache breakpoints for `profile`.
    pub fn start(bundles: &'a [Bundle], session: Session, gate: G, profile: &'a Profile) -> Self {
        let mut entries: Vec<Entry<'a>> = bundles
            .iter()
            .flat_map(|bundle| {
                bundle.contributors.iter().map(move |contributor| Entry {
                    bundle,
                    contributor,
                })
            })
            .collect();
        entries.sort_by(|a, b| {
            let key = |entry: &Entry<'a>| {
                (
                    entry.contributor.placement,
                    entry.contributor.priority,
                    &entry.bundle.plugin,
                    &entry.bundle.version,
                    &entry.contributor.id,
                )
            };
            key(a).cmp(&key(b))
        });
        let started_at = session.started_at_local();
        let mut conversation = Conversation {
            entries,
            profile,
            gate,
            skills_seen: session.skills.clone(),
            session,
            system: SystemPrompt::default(),
            preloaded: Vec::new(),
            opening: Vec::new(),
            applied: BTreeSet::new(),
            restate: BTreeSet::new(),
            placed: Placed::default(),
            compositions: 0,
            turns: 0,
            last_at: started_at,
            stated: BTreeMap::new(),
            pending: TurnRecord::default(),
            awaiting: Vec::new(),
            withdrawals: Vec::new(),
            kept_limit: None,
        };
        conversation.compose(started_at);
        conversation.open(started_at);
        conversation.place();
        conversation
    }

    /// The kept system prompt.
    pub fn system_prompt(&self) -> &SystemPrompt {
        &self.system
    }

    /// The conversation opening, stored before the first prompt.
    pub fn opening(&self) -> &[OpeningItem] {
        &self.opening
    }

    /// What eager loads put before the first turn, in the shared prefix:
    /// tools advertised and skill operations read. The same for every
    /// conversation of the agent.
    pub fn preloaded(&self) -> &[OpeningItem] {
        &self.preloaded
    }

    /// Cache breakpoints after the agent part, the person part and the
    /// opening, as the profile allows. A host with a breakpoint to spare
    /// puts one after the stored history (see [`Boundary::History`]).
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.placed.breakpoints
    }

    /// Shared prefixes too short for the profile to cache.
    pub fn warnings(&self) -> &[String] {
        &self.placed.warnings
    }

    /// How often the system prompt was composed again after the start.
    pub fn recompositions(&self) -> u32 {
        self.compositions.saturating_sub(1)
    }

    /// The session as of the last turn.
    pub fn session(&self) -> &Session {
        &self.session
    }

    pub fn gate(&self) -> &G {
        &self.gate
    }

    pub fn gate_mut(&mut self) -> &mut G {
        &mut self.gate
    }

    /// Tokens through each boundary of the kept part of the request:
    /// the agent prefix (the preloaded tools and operations, then the
    /// platform and agent parts of the system prompt), the person part, the
    /// opening.
    pub fn prefix_tokens(&self) -> [(Boundary, u64); 3] {
        let preloaded: u64 = self.preloaded.iter().map(|item| item.tokens).sum();
        let agent = preloaded + count(self.system.agent_prefix());
        let person = agent + count(self.system.person_part());
        let opening = person + self.opening.iter().map(|item| item.tokens).sum::<u64>();
        [
            (Boundary::Agent, agent),
            (Boundary::Person, person),
            (Boundary::Opening, opening),
        ]
    }

    /// The notes before a turn, and its record.
    pub fn turn(&mut self, input: TurnInput) -> Turn {
        self.turns += 1;
        let at = self.session.local(input.at);
        let changes = self.apply(&input);
        let withdrawn = std::mem::take(&mut self.withdrawals);
        let recomposed = if input.compaction {
            Some("the conversation was compacted".to_string())
        } else {
            changes.model_from.as_ref().map(|from| {
                format!(
                    "the model changed from `{from}` to `{}`",
                    self.session.model.name
                )
            })
        }
        .or_else(|| withdrawal::why_recomposed(&withdrawn));
        if recomposed.is_some() {
            self.compose(at);
            self.rerender_opening(at);
            self.place();
            self.fit_kept();
        }
        if input.compaction {
            self.stated.clear();
            // What a conditional text said went with the compacted turns:
            // those that applied are told again below.
            self.restate = std::mem::take(&mut self.applied);
        }
        let mut record = std::mem::take(&mut self.pending);
        record.withdrawn = withdrawn;
        let person_present = input.person_present && self.session.person.is_some();
        let audience = |reach: Reach| match reach {
            Reach::EveryTurn => true,
            Reach::WithPerson => person_present,
            Reach::Replies => person_present && input.replying,
        };
        let mut stored = self.retry_awaiting(at, &mut record);
        let mut fleeting = Vec::new();
        for entry in self.entries.clone() {
            if !audience(entry.contributor.reach) {
                continue;
            }
            let note = match entry.kind() {
                Kind::SystemMessage => self.system_message(entry, at, &changes, &mut record),
                Kind::Fact => self.fact(entry, at),
                Kind::Preface => self.preface(entry, at, &mut record),
                Kind::Text if entry.contributor.activation.is_some() => {
                    self.conditional(entry, &input, at, &mut record)
                }
                Kind::Text if entry.contributor.delivery == Delivery::TurnNote => render(
                    entry.bundle,
                    entry.contributor,
                    &Values::at(&self.session, at),
                )
                .map(|rendered| {
                    record.withheld(&entry, rendered.withheld);
                    Some(note(entry, rendered.text, false))
                }),
                _ => Ok(None),
            };
            match note {
                Ok(Some(note)) if note.persisted => stored.push(note),
                Ok(Some(note)) => fleeting.push(note),
                Ok(None) => {}
                Err(reason) => record.refusals.push(entry.refuse(reason)),
            }
        }
        stored.extend(fleeting);
        self.last_at = at;
        self.skills_seen = self.session.skills.clone();
        record.turn_contributors = self.turn_contributors(&stored);
        Turn {
            number: self.turns,
            at,
            recomposed,
            notes: stored,
            record,
        }
    }

    /// Takes the turn's changes into the session and says what moved.
    fn apply(&mut self, input: &TurnInput) -> Changes {
        let mut changes = Changes::default();
        if let Some(model) = &input.model {
            if model.name != self.session.model.name {
                changes.model_from = Some(self.session.model.name.clone());
            }
            self.session.model = model.clone();
        }
        if let Some(tools) = &input.tools {
            let old: BTreeSet<&String> = self.session.tools.iter().collect();
            let new: BTreeSet<&String> = tools.iter().collect();
            if old != new {
                changes.tools = Some((
                    new.difference(&old).map(|tool| tool.to_string()).collect(),
                    old.difference(&new).map(|tool| tool.to_string()).collect(),
                ));
            }
            self.session.tools = tools.clone();
        }
        if let Some(skills) = &input.skills {
            self.session.skills = skills.clone();
        }
        if let Some(permissions) = &input.permissions {
            changes.permissions = *permissions != self.session.permissions;
            self.session.permissions = permissions.clone();
        }
        changes
    }

    /// Composes the kept system prompt from the session as it is at `at`.
    fn compose(&mut self, at: Timestamp) {
        self.compositions += 1;
        let values = Values::at(&self.session, at);
        let has_person = self.session.person.is_some();
        let mut agent = String::new();
        let mut person = String::new();
        let mut contributions = Vec::new();
        for entry in &self.entries {
            let contributor = entry.contributor;
            // Reach is decided here for what is kept: `with-person` text is
            // left out of conversations composed with no person in them.
            if contributor.reach != Reach::EveryTurn && !has_person {
                continue;
            }
            let text = match (&contributor.activation, contributor.delivery) {
                (None, Delivery::SystemPrompt) => {
                    match render(entry.bundle, contributor, &values) {
                        Ok(rendered) => {
                            self.pending.withheld(entry, rendered.withheld);
                            rendered.text
                        }
                        Err(reason) => {
                            self.pending.refusals.push(entry.refuse(reason));
                            continue;
                        }
                    }
                }
                (Some(BundledActivation::Request { description }), _)
                    if contributor.placement.is_system_prompt() =>
                {
                    on_request_listing(entry, description)
                }
                _ => continue,
            };
            let part = if contributor.placement == Placement::Person {
                &mut person
            } else {
                &mut agent
            };
            part.push_str(&text);
            part.push_str("\n\n");
            contributions.push(Contribution {
                contributor: entry.name(),
                placement: contributor.placement,
                text,
            });
        }
        self.system = SystemPrompt {
            agent_end: agent.len(),
            text: agent + &person,
            contributions,
        };
    }

    /// What comes before the first turn: eager loads into the shared
    /// prefix (the same for every conversation of the agent), then the
    /// opening: conversation texts, then eager runs, whose results are this
    /// conversation's alone.
    fn open(&mut self, at: Timestamp) {
        for entry in self.entries.clone() {
            if entry.kind() == Kind::EagerLoad {
                self.eager_load(entry);
            }
        }
        let has_person = self.session.person.is_some();
        for entry in self.entries.clone() {
            let contributor = entry.contributor;
            let kept_text = contributor.kind == Kind::Text
                && contributor.activation.is_none()
                && contributor.delivery == Delivery::Opening;
            if !kept_text || (contributor.reach != Reach::EveryTurn && !has_person) {
                continue;
            }
            match render(entry.bundle, contributor, &Values::at(&self.session, at)) {
                Ok(rendered) => {
                    self.pending.withheld(&entry, rendered.withheld);
                    self.opening.push(opening_text(entry, rendered.text));
                }
                Err(reason) => self.pending.refusals.push(entry.refuse(reason)),
            }
        }
        for entry in self.entries.clone() {
            if entry.kind() == Kind::EagerRun {
                self.eager_run(entry, at);
            }
        }
    }

    fn eager_load(&mut self, entry: Entry<'a>) {
        let contributor = entry.contributor;
        let mut items = Vec::new();
        let (offered, missing): (Vec<&String>, Vec<&String>) = contributor
            .tools
            .iter()
            .partition(|tool| self.session.tools.contains(tool));
        for tool in missing {
            self.pending.refusals.push(entry.refuse(format!(
                "`{tool}` is not among the session's tools, so it cannot be loaded"
            )));
        }
        if !offered.is_empty() {
            let text = format!("load_tools {}", serde_json::json!({ "tools": offered }));
            items.push((OpeningKind::LoadTools, text));
        }
        if let Some(load) = &contributor.operations {
            match self.session.skills.get(&load.skill) {
                Some(version) => items.push((
                    OpeningKind::SkillRead,
                    format!(
                        "read skill {} {version}: operations {}",
                        load.skill,
                        load.operations.join(", ")
                    ),
                )),
                None => self.pending.refusals.push(entry.refuse(format!(
                    "skill `{}` is not installed in this session",
                    load.skill
                ))),
            }
        }
        let counted: u64 = items.iter().map(|(_, text)| count(text)).sum();
        let unmeasured = contributor.measured_tokens.saturating_sub(counted);
        let last = items.len().saturating_sub(1);
        for (index, (kind, text)) in items.into_iter().enumerate() {
            let extra = if index == last { unmeasured } else { 0 };
            self.preloaded.push(OpeningItem {
                contributor: entry.name(),
                kind,
                tokens: count(&text) + extra,
                text,
                label: None,
            });
        }
    }

    fn eager_run(&mut self, entry: Entry<'a>, at: Timestamp) {
        let Some(call) = &entry.contributor.call else {
            return;
        };
        match self.run(entry, call, at, "the result") {
            Ok(output) => {
                let label = (call.tool == "get_current_time")
                    .then(|| "the time the conversation began".to_string());
                let mut text = format!("{} {} → {output}", call.tool, arguments(call));
                if let Some(label) = &label {
                    text.push_str(&format!(" ({label})"));
                }
                self.pending.eager_runs.push(ran(entry, call));
                self.opening.push(OpeningItem {
                    contributor: entry.name(),
                    kind: OpeningKind::Run,
                    tokens: count(&text),
                    text,
                    label,
                });
            }
            Err(not_run) if not_run.pending => self.await_approval(entry, call, not_run.reason),
            Err(NotRun { reason, .. }) => {
                self.pending
                    .eager_runs
                    .push(refused(entry, call, reason.clone()));
                self.pending.refusals.push(entry.refuse(reason));
            }
        }
    }

    /// A contributor's call through the gate, held to its budget.
    fn run(
        &mut self,
        entry: Entry<'a>,
        call: &BundledCall,
        at: Timestamp,
        what: &str,
    ) -> Result<String, NotRun> {
        // A tool the permissions do not list was never approved: treat it
        // as writing and gated, so the gate refuses it.
        let (effect, gated) = entry
            .bundle
            .permissions
            .tools_run
            .iter()
            .find(|run| run.tool == call.tool)
            .map_or((Effect::Write, true), |run| (run.effect, run.gated));
        let request = GateRequest {
            contributor: entry.name(),
            tool: call.tool.clone(),
            arguments: call.arguments.clone(),
            effect,
            gated,
            at,
        };
        match self.gate.call(&request) {
            GateOutcome::Ran { output } => {
                within_budget(entry.bundle, entry.contributor, &output, what)?;
                Ok(output)
            }
            GateOutcome::Refused { reason } => Err(format!("the gate refused it: {reason}").into()),
            GateOutcome::Pending { reason } => Err(NotRun {
                reason: format!("waiting for a person's approval: {reason}"),
                pending: true,
            }),
        }
    }

    /// Renders the opening's texts again after a recomposition (a new
    /// model may be named in them). Its loads and runs are kept: nothing is
    /// re-run.
    fn rerender_opening(&mut self, at: Timestamp) {
        let values = Values::at(&self.session, at);
        let mut refusals = Vec::new();
        let entries = &self.entries;
        self.opening.retain_mut(|item| {
            if item.kind != OpeningKind::Text {
                return true;
            }
            let Some(entry) = entries
                .iter()
                .find(|entry| entry.name() == item.contributor)
            else {
                return true;
            };
            match render(entry.bundle, entry.contributor, &values) {
                Ok(rendered) => {
                    item.tokens = count(&rendered.text);
                    item.text = rendered.text;
                    true
                }
                Err(reason) => {
                    refusals.push(entry.refuse(reason));
                    false
                }
            }
        });
        self.pending.refusals.extend(refusals);
    }

    fn place(&mut self) {
        self.placed = self
            .profile
            .place(&self.session.model.name, &self.prefix_tokens());
    }

    fn system_message(
        &mut self,
        entry: Entry<'a>,
        at: Timestamp,
        changes: &Changes,
        record: &mut TurnRecord,
    ) -> Result<Option<Note>, String> {
        let Some(condition) = &entry.contributor.condition else {
            return Ok(None);
        };
        let mut values = Values::at(&self.session, at);
        let last = self.last_at.at_offset(at.offset_minutes);
        let why = match condition.kind {
            ConditionKind::Idle => {
                let idle = at.seconds_since(last);
                let threshold = condition.idle_seconds.unwrap_or(0);
                values.idle_seconds = Some(idle);
                (idle > threshold).then(|| {
                    format!(
                        "idle for {}, over {}",
                        super::time::duration_in_words(idle),
                        Duration { seconds: threshold }
                    )
                })
            }
            ConditionKind::DateCrossed => (at.date() > last.date())
                .then(|| format!("the date moved from {} to {}", last.date(), at.date())),
            ConditionKind::SkillUpdated => {
                let skill = condition.skill.as_deref().unwrap_or_default();
                let now = self.session.skills.get(skill);
                let before = self.skills_seen.get(skill);
                match now {
                    Some(version) if Some(version) != before => {
                        values.skill_version = Some(version.to_string());
                        Some(match before {
                            Some(before) => format!("`{skill}` went from {before} to {version}"),
                            None => format!("`{skill}` was installed at {version}"),
                        })
                    }
                    _ => None,
                }
            }
            ConditionKind::ModelChanged => changes.model_from.as_ref().map(|from| {
                format!(
                    "the model changed from `{from}` to `{}`",
                    self.session.model.name
                )
            }),
            ConditionKind::ToolsChanged => changes.tools.as_ref().map(|(added, removed)| {
                let named = |tools: &[String]| {
                    tools
                        .iter()
                        .map(|tool| format!("`{tool}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                match (added.is_empty(), removed.is_empty()) {
                    (false, true) => format!("tools added: {}", named(added)),
                    (true, false) => format!("tools removed: {}", named(removed)),
                    _ => format!("tools added: {}; removed: {}", named(added), named(removed)),
                }
            }),
            ConditionKind::PermissionsChanged => changes
                .permissions
                .then(|| "the permissions changed".to_string()),
        };
        let Some(why) = why else {
            return Ok(None);
        };
        let rendered = render(entry.bundle, entry.contributor, &values)?;
        record.withheld(&entry, rendered.withheld);
        let text = rendered.text;
        record.system_messages.push(Fired {
            contributor: entry.name(),
            why,
        });
        Ok(Some(note(entry, text, true)))
    }

    fn fact(&mut self, entry: Entry<'a>, at: Timestamp) -> Result<Option<Note>, String> {
        let name = entry.name();
        let now = facts::state(&entry.contributor.says, &self.session, at);
        let text = match self.stated.get(&name) {
            None => facts::full(&now),
            Some(before) => facts::changes(before, &now),
        };
        if text.is_empty() {
            return Ok(None);
        }
        within_budget(entry.bundle, entry.contributor, &text, "the fact")?;
        self.stated.insert(name, now);
        Ok(Some(note(entry, text, true)))
    }

    fn preface(
        &mut self,
        entry: Entry<'a>,
        at: Timestamp,
        record: &mut TurnRecord,
    ) -> Result<Option<Note>, String> {
        let Some(call) = &entry.contributor.call else {
            return Ok(None);
        };
        match self.run(entry, call, at, "the retrieved content") {
            Ok(content) => {
                record.retrievals.push(ran(entry, call));
                let provenance = entry
                    .contributor
                    .source
                    .map_or("external", |source| source.as_str());
                let origin = entry.contributor.origin.as_deref().unwrap_or_default();
                Ok(Some(note(
                    entry,
                    envelope(provenance, origin, at, &content),
                    false,
                )))
            }
            Err(not_run) => {
                let mut retrieval = refused(entry, call, not_run.reason.clone());
                retrieval.approval = not_run.pending.then_some(Approval::Pending);
                record.retrievals.push(retrieval);
                Err(not_run.reason)
            }
        }
    }

    /// A text that applies only when something happens: told, as a note
    /// kept in the conversation, on the first turn its activation holds, and
    /// again after a compaction; recorded either way with why.
    fn conditional(
        &mut self,
        entry: Entry<'a>,
        input: &TurnInput,
        at: Timestamp,
        record: &mut TurnRecord,
    ) -> Result<Option<Note>, String> {
        let Some(activation) = &entry.contributor.activation else {
            return Ok(None);
        };
        let name = entry.name();
        let holds = activation_holds(activation, &name, input);
        let (include, why) = if self.restate.remove(&name) {
            (
                true,
                "it applied before the compaction, so it is told again".to_string(),
            )
        } else if self.applied.contains(&name) {
            (false, "already told in this conversation".to_string())
        } else {
            match holds {
                Ok(why) => (true, why),
                Err(why) => (false, why),
            }
        };
        record.activations.push(ActivationRecord {
            contributor: name.clone(),
            included: include,
            why,
        });
        if !include {
            return Ok(None);
        }
        let rendered = render(
            entry.bundle,
            entry.contributor,
            &Values::at(&self.session, at),
        )?;
        record.withheld(&entry, rendered.withheld);
        self.applied.insert(name);
        Ok(Some(note(entry, rendered.text, true)))
    }

    /// The bundles behind the system prompt, the opening and `notes`.
    fn turn_contributors(&self, notes: &[Note]) -> Vec<TurnContributor> {
        let names: BTreeSet<&str> = self
            .system
            .contributions
            .iter()
            .map(|contribution| contribution.contributor.as_str())
            .chain(self.opening.iter().map(|item| item.contributor.as_str()))
            .chain(notes.iter().map(|note| note.contributor.as_str()))
            .collect();
        let mut contributors: Vec<TurnContributor> = self
            .entries
            .iter()
            .filter(|entry| names.contains(entry.name().as_str()))
            .map(|entry| TurnContributor {
                plugin: entry.bundle.id(),
                digest: entry.bundle.digest.clone().unwrap_or_default(),
                id: entry.contributor.id.clone(),
            })
            .collect();
        contributors.sort();
        contributors
    }

    /// Every contribution as a layout that ignores placement would put it in
    /// the system prompt at this turn: texts with their current values, loads,
    /// eager runs run again now, this turn's notes, and facts in full. The
    /// simulator's naive baseline.
    pub(crate) fn everything_now(&mut self, turn: &Turn) -> Vec<(String, u64)> {
        let values_at = turn.at;
        let mut pieces = Vec::new();
        for entry in self.entries.clone() {
            let name = entry.name();
            let piece = match entry.kind() {
                Kind::Text => render(
                    entry.bundle,
                    entry.contributor,
                    &Values::at(&self.session, values_at),
                )
                .ok()
                .map(|rendered| (count(&rendered.text), rendered.text)),
                Kind::EagerLoad => {
                    let text: Vec<&str> = self
                        .preloaded
                        .iter()
                        .filter(|item| item.contributor == name)
                        .map(|item| item.text.as_str())
                        .collect();
                    let tokens = self
                        .preloaded
                        .iter()
                        .filter(|item| item.contributor == name)
                        .map(|item| item.tokens)
                        .sum();
                    (!text.is_empty()).then(|| (tokens, text.join("\n")))
                }
                Kind::EagerRun => entry.contributor.call.as_ref().and_then(|call| {
                    self.run(entry, call, values_at, "the result")
                        .ok()
                        .map(|output| {
                            let text = format!("{} {} → {output}", call.tool, arguments(call));
                            (count(&text), text)
                        })
                }),
                Kind::Fact => {
                    let text = facts::full(&facts::state(
                        &entry.contributor.says,
                        &self.session,
                        values_at,
                    ));
                    Some((count(&text), text))
                }
                Kind::SystemMessage | Kind::Preface => turn
                    .notes
                    .iter()
                    .find(|note| note.contributor == name)
                    .map(|note| (count(&note.text), note.text.clone())),
            };
            pieces.extend(piece.map(|(tokens, text)| (text, tokens)));
        }
        pieces
    }
}

/// Whether a conditional text's activation holds on this turn: why it
/// does, or why not.
fn activation_holds(
    activation: &BundledActivation,
    name: &str,
    input: &TurnInput,
) -> Result<String, String> {
    let invoked = |what: &str, given: &Option<String>, wanted: &str| match given {
        Some(given) if given == wanted => Ok(format!("the {what} `{wanted}` was invoked")),
        _ => Err(format!("the {what} `{wanted}` was not invoked")),
    };
    match activation {
        BundledActivation::Command { name } => invoked("command", &input.command, name),
        BundledActivation::Skill { name } => invoked("skill", &input.invoked_skill, name),
        BundledActivation::Subagent { name } => invoked("subagent", &input.subagent, name),
        BundledActivation::Files { globs } => {
            let set = globs
                .iter()
                .filter_map(|glob| {
                    globset::GlobBuilder::new(glob)
                        .literal_separator(true)
                        .build()
                        .ok()
                })
                .fold(globset::GlobSetBuilder::new(), |mut set, glob| {
                    set.add(glob);
                    set
                })
                .build()
                .map_err(|error| format!("its globs cannot be matched: {error}"))?;
            match input.files.iter().find(|file| set.is_match(file.as_str())) {
                Some(file) => Ok(format!("`{file}` is in play")),
                None => Err("no file in play matches its globs".to_string()),
            }
        }
        BundledActivation::Request { .. } => {
            let asked = input.requested.iter().any(|requested| {
                requested == name || name.rsplit('/').next() == Some(requested.as_str())
            });
            if asked {
                Ok("the model asked for it".to_string())
            } else {
                Err("the model did not ask for it".to_string())
            }
        }
    }
}

fn count(text: &str) -> u64 {
    REQUEST_TOKENIZER.count(text) as u64
}

fn note(entry: Entry<'_>, text: String, persisted: bool) -> Note {
    Note {
        contributor: entry.name(),
        kind: entry.kind(),
        text,
        persisted,
    }
}

fn opening_text(entry: Entry<'_>, text: String) -> OpeningItem {
    OpeningItem {
        contributor: entry.name(),
        kind: OpeningKind::Text,
        tokens: count(&text),
        text,
        label: None,
    }
}

/// The line the system prompt keeps for a text the model may ask for.
fn on_request_listing(entry: &Entry<'_>, description: &str) -> String {
    crate::ir::on_request_listing(&entry.name(), description)
}

fn arguments(call: &BundledCall) -> String {
    serde_json::to_string(&call.arguments).unwrap_or_default()
}

/// Why a contributor's call gave no result: refused, or waiting for a
/// person's approval.
struct NotRun {
    reason: String,
    pending: bool,
}

impl From<String> for NotRun {
    fn from(reason: String) -> Self {
        NotRun {
            reason,
            pending: false,
        }
    }
}

fn ran(entry: Entry<'_>, call: &BundledCall) -> RunRecord {
    RunRecord {
        contributor: entry.name(),
        tool: call.tool.clone(),
        ran: true,
        reason: None,
        approval: None,
    }
}

fn refused(entry: Entry<'_>, call: &BundledCall, reason: String) -> RunRecord {
    RunRecord {
        contributor: entry.name(),
        tool: call.tool.clone(),
        ran: false,
        reason: Some(reason),
        approval: None,
    }
}

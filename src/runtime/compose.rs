//! A conversation: what it keeps, and composing it.
//!
//! The order is the cache's order. A provider caches the prefix of a
//! request it has seen before, so what is shared by the most requests goes
//! first and what changes goes last:
//!
//! 1. the **system prompt**, kept for the whole conversation: platform
//!    contributions, then agent, then the agent's skills under their
//!    `## {name}` headings, then person; within a placement by priority,
//!    then plugin name, then id. Composed when the conversation starts and
//!    again only at a compaction (and, if the host chooses
//!    [`ModelChange::Recompose`], at a change of model), from the versions
//!    installed *then*: an edit reaches a conversation at its next
//!    compaction, not its next message.
//! 2. what eager loads put **before the first turn** (tools advertised,
//!    skill operations read), then the **opening**: conversation-placed
//!    texts and eager runs, each marked as its contributor's.
//! 3. before each **turn**, notes (see `turn.rs`); before each **request**,
//!    the fact sections that changed (see `request.rs`).
//!
//! A host calls [`Conversation::start`] (or [`Conversation::builder`] to
//! choose [`Options`], keep a session log, or resume from one), then per
//! turn [`Conversation::turn`] and per request [`Conversation::request`].
//!
//! ```
//! use contrib::runtime::{CliGate, Conversation, Profile, RequestInput, Session, Timestamp, TurnInput};
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
//! let at = Timestamp::parse("2026-03-02T09:05:00Z").unwrap();
//! let turn = conversation.turn(TurnInput::reply_at(at));
//! assert_eq!(turn.number, 1);
//! assert!(turn.notes.is_empty());
//! let request = conversation.request(RequestInput::at(at));
//! assert!(request.messages.is_empty());
//! assert_eq!(conversation.recompositions(), 0);
//! ```

mod awaiting;
mod kept_budget;
mod opening;
mod turn;
pub(super) mod withdrawal;

pub(super) use opening::call_text;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use super::facts::{self, Memory, Merged, Section};
use super::gate::Gate;
use super::log::{KeptVersion, LogWriter, Restored, ResumeError, Seen};
use super::options::{ModelChange, Options, PersonPart};
use super::profiles::{Boundary, Breakpoint, Placed, Profile};
use super::reader::Reader;
use super::record::{
    Contribution, KeptSkill, Named, OpeningItem, OpeningKind, PluginVersion, Refusal, SystemPrompt,
    TurnRecord, VersionRecord, Withdrawal,
};
use super::render::{render, Values};
use super::session::Session;
use super::time::Timestamp;
use crate::bundle::{Bundle, BundledActivation, BundledCall, BundledContributor};
use crate::ir::{Delivery, Kind, Placement, Reach};
use crate::tokenizer::TokenizerKind;

/// The tokenizer request sizes are estimated with, for cache breakpoints,
/// their warnings and the tokens each contributor adds in a turn record.
/// Budgets use each bundle's own.
pub const REQUEST_TOKENIZER: TokenizerKind = TokenizerKind::O200k;

/// The tag of the instruction that says what envelopes' provenance means.
const HYGIENE_TAG: &str = "<retrieved_content_hygiene>";

/// One conversation, from its start to its last turn.
pub struct Conversation<'a, G: Gate> {
    /// The contributors the conversation runs on, in composition order:
    /// the versions kept since it started or last recomposed.
    pub(super) entries: Vec<Entry<'a>>,
    /// The versions those contributors come from.
    pub(super) kept: Vec<&'a Bundle>,
    /// The bundles installed now: what the next recomposition uses.
    pub(super) installed: Vec<&'a Bundle>,
    pub(super) profile: &'a Profile,
    pub(super) options: Options,
    pub(super) gate: G,
    pub(super) session: Session,
    pub(super) system: SystemPrompt,
    pub(super) preloaded: Vec<OpeningItem>,
    pub(super) opening: Vec<OpeningItem>,
    /// Conditional texts told in this conversation since it last compacted.
    pub(super) applied: BTreeSet<String>,
    /// Conditional texts to tell again after a compaction.
    pub(super) restate: BTreeSet<String>,
    pub(super) placed: Placed,
    pub(super) compositions: u32,
    pub(super) turns: u32,
    /// Requests made in the current turn.
    pub(super) requests: u32,
    pub(super) last_at: Timestamp,
    /// The session as the last turn began: what system messages' conditions
    /// compare with.
    pub(super) seen: Seen,
    /// The fact sections, in Crucible's order, and facts merged into others.
    pub(super) sections: Vec<Section>,
    pub(super) merged: Vec<Merged>,
    /// What the model holds of each section, by heading.
    pub(super) memory: BTreeMap<String, Memory>,
    /// Tokens each contributor's stored notes hold in the history since the
    /// last compaction, and the turn the first was told.
    pub(super) history: BTreeMap<String, (u64, u32)>,
    /// Who the current turn reaches.
    pub(super) audience: Audience,
    /// A mode change made while a turn ran, for the next turn.
    pub(super) held_mode: Option<String>,
    /// Messages sent during a turn that wait for turns of their own.
    pub(super) waiting: u32,
    /// Runs, refusals and version changes not yet reported in a record.
    pub(super) pending: TurnRecord,
    pub(super) log: Option<LogWriter<'a>>,
    /// Eager runs waiting for a person's approval (see `awaiting`).
    pub(super) awaiting: Vec<(Entry<'a>, &'a BundledCall)>,
    /// Plugin versions withdrawn since the last turn (see `withdrawal`).
    pub(super) withdrawals: Vec<Withdrawal>,
    /// What the kept prefix may take (see `kept_budget`).
    kept_limit: Option<kept_budget::KeptLimit>,
    /// The host's reader of what eager loads read, when it gave one.
    pub(super) reader: Option<Box<dyn Reader + 'a>>,
}

/// A contributor with the bundle it came from.
#[derive(Clone, Copy)]
pub(super) struct Entry<'a> {
    pub bundle: &'a Bundle,
    pub contributor: &'a BundledContributor,
}

impl Named for Entry<'_> {
    fn name(&self) -> String {
        self.bundle.contributor_name(self.contributor)
    }
}

impl Entry<'_> {
    pub fn kind(&self) -> Kind {
        self.contributor.kind
    }

    pub fn refuse(&self, reason: String) -> Refusal {
        Refusal {
            contributor: self.name(),
            reason,
        }
    }
}

/// Who a turn reaches, for contributors' `reach`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Audience {
    pub person_present: bool,
    pub replying: bool,
}

impl Audience {
    pub fn reaches(self, reach: Reach) -> bool {
        match reach {
            Reach::EveryTurn => true,
            Reach::WithPerson => self.person_present,
            Reach::Replies => self.person_present && self.replying,
        }
    }

    /// Why `reach` leaves this turn out.
    pub fn why_not(self, reach: Reach) -> String {
        match reach {
            Reach::WithPerson => "it reaches `with-person` and no person is here".to_string(),
            _ => format!("it reaches `{reach}` and this turn answers nobody"),
        }
    }
}

/// How a conversation is started: its options and its session log.
pub struct Start<'a, G: Gate> {
    bundles: &'a [Bundle],
    session: Session,
    gate: G,
    profile: &'a Profile,
    options: Options,
    log: Option<Box<dyn Write + 'a>>,
    reader: Option<Box<dyn Reader + 'a>>,
}

impl<'a, G: Gate> Start<'a, G> {
    /// Where the designs disagree, the host's choices.
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// Reads what eager loads load with `reader`, so their real text goes
    /// into the prompt and is counted.
    pub fn reader(mut self, reader: impl Reader + 'a) -> Self {
        self.reader = Some(Box::new(reader));
        self
    }

    /// Writes the session log to `log` as the conversation goes: what the
    /// model was told, each time as the words then the state behind them.
    pub fn log(mut self, log: impl Write + 'a) -> Self {
        self.log = Some(Box::new(log));
        self
    }

    /// The same start with its gate boxed, so that conversations on
    /// different gates have one type.
    pub fn boxed(self) -> Start<'a, Box<dyn Gate + 'a>>
    where
        G: 'a,
    {
        Start {
            bundles: self.bundles,
            session: self.session,
            gate: Box::new(self.gate),
            profile: self.profile,
            options: self.options,
            log: self.log,
            reader: self.reader,
        }
    }

    /// Starts a new conversation: composes the system prompt, runs the
    /// opening through the gate, and places cache breakpoints.
    pub fn start(self) -> Conversation<'a, G> {
        let mut conversation = Conversation::empty(self);
        conversation.log_header();
        conversation.begin();
        conversation
    }

    /// Continues a conversation from its session log: the kept system
    /// prompt and opening, the turns taken, and what the model was told of
    /// each fact section. Further entries are appended to the log given with
    /// [`Start::log`] (normally the same file).
    ///
    /// The session given is the host's as it is now: what changed while
    /// the conversation was closed is told on its next request, and the
    /// mode and session-long allows are not carried over from the log.
    pub fn resume(self, log: &[u8]) -> Result<Conversation<'a, G>, ResumeError> {
        let restored = Restored::read(log)?;
        let mut conversation = Conversation::empty(self);
        conversation.restore(restored);
        Ok(conversation)
    }
}

impl<'a, G: Gate> Conversation<'a, G> {
    /// Starts a conversation with the default [`Options`] and no log.
    pub fn start(bundles: &'a [Bundle], session: Session, gate: G, profile: &'a Profile) -> Self {
        Conversation::builder(bundles, session, gate, profile).start()
    }

    /// A conversation to start or resume, with options and a log.
    pub fn builder(
        bundles: &'a [Bundle],
        session: Session,
        gate: G,
        profile: &'a Profile,
    ) -> Start<'a, G> {
        Start {
            bundles,
            session,
            gate,
            profile,
            options: Options::default(),
            log: None,
            reader: None,
        }
    }

    fn empty(start: Start<'a, G>) -> Self {
        let installed = newest(start.bundles);
        let started_at = start.session.started_at_local();
        Conversation {
            entries: Vec::new(),
            kept: Vec::new(),
            installed,
            profile: start.profile,
            options: start.options,
            gate: start.gate,
            seen: Seen::of(&start.session),
            session: start.session,
            system: SystemPrompt::default(),
            preloaded: Vec::new(),
            opening: Vec::new(),
            applied: BTreeSet::new(),
            restate: BTreeSet::new(),
            placed: Placed::default(),
            compositions: 0,
            turns: 0,
            requests: 0,
            last_at: started_at,
            sections: Vec::new(),
            merged: Vec::new(),
            memory: BTreeMap::new(),
            history: BTreeMap::new(),
            audience: Audience {
                person_present: true,
                replying: true,
            },
            held_mode: None,
            waiting: 0,
            pending: TurnRecord::default(),
            log: start.log.map(LogWriter::new),
            awaiting: Vec::new(),
            withdrawals: Vec::new(),
            kept_limit: None,
            reader: start.reader,
        }
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

    /// The cache profile the conversation places breakpoints under.
    pub fn profile(&self) -> &Profile {
        self.profile
    }

    /// The session as of the last turn or request.
    pub fn session(&self) -> &Session {
        &self.session
    }

    pub fn options(&self) -> Options {
        self.options
    }

    /// Turns taken so far.
    pub fn turns(&self) -> u32 {
        self.turns
    }

    pub fn gate(&self) -> &G {
        &self.gate
    }

    pub fn gate_mut(&mut self) -> &mut G {
        &mut self.gate
    }

    /// Why the session log stopped being written, if it did. After a
    /// failed write nothing more is written: a log with a gap would say the
    /// model was told less than it was, which resuming would then repeat,
    /// whereas a log that stops short only makes resuming restate.
    pub fn log_error(&self) -> Option<&str> {
        self.log.as_ref().and_then(LogWriter::error)
    }

    /// Makes `bundles` the versions installed now. A running conversation
    /// keeps the versions it was composed from until its next compaction
    /// (the turn record shows what waits); a new conversation has them at
    /// once. Where several versions of a plugin are given, the newest is
    /// installed.
    pub fn install(&mut self, bundles: &'a [Bundle]) {
        self.installed = newest(bundles);
    }

    /// Tokens through each boundary of the kept part of the request:
    /// the agent prefix (the preloaded tools and operations, then the
    /// platform and agent parts of the system prompt), the person part, the
    /// opening.
    pub fn prefix_tokens(&self) -> [(Boundary, u64); 3] {
        let preloaded: u64 = self.preloaded.iter().map(|item| item.tokens).sum();
        let agent = preloaded + count(self.system.agent_prefix());
        let (person_items, opening_items): (Vec<&OpeningItem>, Vec<&OpeningItem>) = self
            .opening
            .iter()
            .partition(|item| item.kind == OpeningKind::PersonPart);
        let person = agent
            + count(self.system.person_part())
            + person_items.iter().map(|item| item.tokens).sum::<u64>();
        let opening = person + opening_items.iter().map(|item| item.tokens).sum::<u64>();
        [
            (Boundary::Agent, agent),
            (Boundary::Person, person),
            (Boundary::Opening, opening),
        ]
    }

    pub(super) fn place(&mut self) {
        self.placed = self
            .profile
            .place(&self.session.model.name, &self.prefix_tokens());
        self.placed.warnings.extend(self.hygiene_warning());
    }

    /// A warning when prefaces put retrieved content in envelopes but no
    /// platform text tells the model what an envelope's provenance means
    /// (design 001's `<retrieved_content_hygiene>` rule): the envelope
    /// alone marks the content, it does not say how far to trust it.
    fn hygiene_warning(&self) -> Option<String> {
        let prefaces: Vec<String> = self
            .entries
            .iter()
            .filter(|entry| entry.kind() == Kind::Preface)
            .map(|entry| format!("`{}`", entry.name()))
            .collect();
        let told = self.system.contributions.iter().any(|contribution| {
            contribution.placement == Placement::Platform && contribution.text.contains(HYGIENE_TAG)
        });
        (!prefaces.is_empty() && !told).then(|| {
            format!(
                "{} put retrieved content in envelopes, but no platform text tells the model what their provenance means; install an instruction in `{HYGIENE_TAG}` (`examples/retrieved-content-hygiene.contrib`)",
                prefaces.join(", ")
            )
        })
    }

    /// Takes the installed versions as the ones the conversation runs on,
    /// composes the system prompt from them, and records what changed.
    pub(super) fn recompose(&mut self, at: Timestamp, why: &str) {
        self.recompose_from(self.installed.clone(), at, why);
    }

    /// Takes `bundles` as the versions the conversation runs on, composes
    /// the system prompt from them, and records what changed.
    pub(super) fn recompose_from(&mut self, bundles: Vec<&'a Bundle>, at: Timestamp, why: &str) {
        let before: Vec<&'a Bundle> = std::mem::replace(&mut self.kept, bundles);
        if self.compositions > 0 {
            self.pending.versions = version_changes(&before, &self.kept, why);
        }
        self.entries = self.runnable_entries();
        self.compose(at);
        self.index_sections();
    }

    /// The contributors of the versions kept, less those of a plugin whose
    /// `requires` the session does not meet: each such plugin is refused
    /// whole, and the refusal says which skill and version it needs.
    fn runnable_entries(&mut self) -> Vec<Entry<'a>> {
        let mut runnable = Vec::new();
        for bundle in self.kept.clone() {
            match unmet_requirement(bundle, &self.session) {
                Some(reason) => self.pending.refusals.push(Refusal {
                    contributor: bundle.id(),
                    reason,
                }),
                None => runnable.push(bundle),
            }
        }
        entries(&runnable)
    }

    /// Writes the composition as it stands, once the opening is known.
    pub(super) fn log_composition(&mut self, why: &str, at: Timestamp) {
        let kept = self.kept_versions();
        if let Some(log) = &mut self.log {
            log.compose(
                why,
                at,
                self.compositions,
                kept,
                &self.system,
                &self.preloaded,
                &self.opening,
            );
        }
    }

    fn kept_versions(&self) -> Vec<KeptVersion> {
        self.kept
            .iter()
            .map(|bundle| KeptVersion {
                plugin: bundle.plugin.clone(),
                version: bundle.version.clone(),
                digest: bundle.digest.clone().unwrap_or_default(),
            })
            .collect()
    }

    /// Composes and opens a new conversation.
    fn begin(&mut self) {
        let at = self.session.started_at_local();
        let why = "the conversation started";
        self.recompose(at, why);
        self.open(at);
        self.place();
        self.log_composition(why, at);
    }

    fn log_header(&mut self) {
        if let Some(log) = &mut self.log {
            log.header();
        }
    }

    /// The fact sections of the kept versions, each told once.
    fn index_sections(&mut self) {
        let facts = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, entry)| entry.kind() == Kind::Fact)
            .map(|(index, entry)| {
                (
                    index,
                    entry.name(),
                    entry.contributor.heading.as_deref(),
                    entry.contributor.says.as_slice(),
                )
            });
        let (sections, merged) = facts::sections(facts);
        self.sections = sections;
        self.merged = merged;
    }

    /// Composes the kept system prompt from the session as it is at `at`.
    fn compose(&mut self, at: Timestamp) {
        self.compositions += 1;
        let values = Values::at(&self.session, at);
        let has_person = self.session.person.is_some();
        let mut agent = String::new();
        let mut person = String::new();
        let mut contributions = Vec::new();
        let mut person_contributions = Vec::new();
        let push = |part: &mut String, list: &mut Vec<Contribution>, contribution: Contribution| {
            part.push_str(&contribution.text);
            part.push_str("\n\n");
            list.push(contribution);
        };
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
                    crate::ir::on_request_listing(
                        &entry.name(),
                        description,
                        contributor.framing.as_deref(),
                    )
                }
                _ => continue,
            };
            let (part, list) = if contributor.placement == Placement::Person {
                (&mut person, &mut person_contributions)
            } else {
                (&mut agent, &mut contributions)
            };
            push(
                part,
                list,
                Contribution {
                    contributor: entry.name(),
                    placement: contributor.placement,
                    text,
                },
            );
        }
        let mut skills = Vec::new();
        for (slug, skill) in &self.session.skills {
            let Some(body) = &skill.body else { continue };
            let name = skill.display_name(slug).to_string();
            push(
                &mut agent,
                &mut contributions,
                Contribution {
                    contributor: format!("skill:{slug}@{}", skill.version),
                    placement: Placement::Agent,
                    text: format!("## {name}\n{body}"),
                },
            );
            skills.push(KeptSkill {
                skill: slug.clone(),
                name,
                version: skill.version.clone(),
            });
        }
        contributions.extend(person_contributions);
        self.set_system(agent, &person, contributions, skills);
    }

    /// The kept system prompt from its parts: the agent part, then the
    /// person part, which goes in the system field or, when the host keeps
    /// person values out of it, first in the opening.
    pub(super) fn set_system(
        &mut self,
        agent: String,
        person: &str,
        contributions: Vec<Contribution>,
        skills: Vec<KeptSkill>,
    ) {
        let text = match self.options.person_part {
            PersonPart::SystemPrompt => agent.clone() + person,
            PersonPart::Opening => agent.clone(),
        };
        self.opening
            .retain(|item| item.kind != OpeningKind::PersonPart);
        if self.options.person_part == PersonPart::Opening && !person.is_empty() {
            let person = person.trim_end().to_string();
            self.opening.insert(
                0,
                OpeningItem {
                    contributor: "person part".to_string(),
                    kind: OpeningKind::PersonPart,
                    tokens: count(&person),
                    text: person,
                    label: Some("the person's part, kept out of the system field".into()),
                    call: None,
                },
            );
        }
        self.system = SystemPrompt {
            agent_end: agent.len(),
            text,
            contributions,
            skills,
        };
    }

    /// Whether a model change from the last turn rewrites the kept part.
    pub(super) fn recomposes_on_model_change(&self) -> bool {
        self.options.model_change == ModelChange::Recompose
    }

    /// The version records for a turn: each plugin the conversation runs on
    /// or has installed, with what `changed` at this turn or what waits.
    pub(super) fn version_records(&self, changed: &[VersionRecord]) -> Vec<VersionRecord> {
        let mut plugins: BTreeSet<&str> = self.kept.iter().map(|b| b.plugin.as_str()).collect();
        plugins.extend(self.installed.iter().map(|b| b.plugin.as_str()));
        plugins.extend(changed.iter().map(|record| record.plugin.as_str()));
        plugins
            .into_iter()
            .map(|plugin| {
                let running = self.kept.iter().find(|b| b.plugin == plugin).map(|b| version(b));
                let installed = self
                    .installed
                    .iter()
                    .find(|b| b.plugin == plugin)
                    .map(|b| version(b))
                    .filter(|installed| Some(installed) != running.as_ref());
                let change = changed
                    .iter()
                    .find(|record| record.plugin == plugin)
                    .and_then(|record| record.change.clone())
                    .or_else(|| {
                        installed.as_ref().map(|installed| match &running {
                            Some(_) => format!(
                                "{} is installed; it reaches this conversation at its next compaction",
                                installed.version
                            ),
                            None => format!(
                                "{} was installed after this conversation was composed; it reaches it at its next compaction",
                                installed.version
                            ),
                        })
                    })
                    .or_else(|| {
                        (running.is_some() && !self.installed.iter().any(|b| b.plugin == plugin))
                            .then(|| "uninstalled; it leaves this conversation at its next compaction".to_string())
                    });
                VersionRecord {
                    plugin: plugin.to_string(),
                    running,
                    installed,
                    change,
                }
            })
            .collect()
    }

    /// Restores a conversation from its log.
    fn restore(&mut self, restored: Restored) {
        if let Some(log) = &mut self.log {
            log.continue_after(&restored);
        }
        let kept = restored.compose.as_ref().map(|compose| {
            compose
                .kept
                .iter()
                .map(|kept| {
                    self.installed
                        .iter()
                        .copied()
                        .find(|b| {
                            b.plugin == kept.plugin
                                && b.version == kept.version
                                && b.digest.as_deref() == Some(kept.digest.as_str())
                        })
                        .ok_or_else(|| format!("{}@{}", kept.plugin, kept.version))
                })
                .collect::<Result<Vec<&'a Bundle>, String>>()
        });
        let started_at = self.session.started_at_local();
        match (restored.compose, kept) {
            (Some(compose), Some(Ok(kept))) => {
                self.kept = kept;
                self.entries = self.runnable_entries();
                self.index_sections();
                self.system = compose.system_prompt;
                self.preloaded = compose.preloaded;
                self.opening = compose.opening;
                self.compositions = compose.compositions;
            }
            (Some(compose), Some(Err(_))) => {
                // What it was composed from is gone or changed: each such
                // version is withdrawn on the record of the first turn
                // after the resume, with what became of it, and the kept
                // prompt is composed from what is installed, keeping the
                // opening's runs (they are snapshots, credited to the
                // versions that made them).
                let left = self.left_while_closed(&compose.kept);
                self.compositions = compose.compositions;
                self.opening = compose.opening;
                self.kept = compose
                    .kept
                    .iter()
                    .filter_map(|kept| {
                        self.installed
                            .iter()
                            .copied()
                            .find(|b| b.plugin == kept.plugin && b.version == kept.version)
                    })
                    .collect();
                let named: Vec<String> = left
                    .iter()
                    .map(|withdrawal| format!("`{}`", withdrawal.plugin))
                    .collect();
                let why = format!(
                    "the conversation was resumed and {} it was composed with {} no longer installed as it was",
                    named.join(", "),
                    if named.len() == 1 { "is" } else { "are" }
                );
                // Recorded, not withdrawn again: the composition below
                // already leaves them out.
                self.pending.withdrawn.extend(left);
                self.recompose(started_at, &why);
                self.refresh_opening(started_at);
                self.log_composition(&why, started_at);
            }
            _ => self.begin(),
        }
        if let Some(turn) = restored.turn {
            self.turns = turn.number;
            self.last_at = turn.at;
            self.applied = turn.applied;
            self.restate = turn.restate;
            self.history = turn.history;
            self.seen = turn.seen;
            self.awaiting = self
                .entries
                .iter()
                .filter(|entry| turn.awaiting.contains(&entry.name()))
                .filter_map(|entry| entry.contributor.call.as_ref().map(|call| (*entry, call)))
                .collect();
        }
        self.memory = restored.memory;
        self.place();
    }
}

impl<'a, G: Gate> Conversation<'a, G> {
    /// The versions a resumed conversation was composed with that are not
    /// installed now as they were, each with what became of it.
    fn left_while_closed(&self, kept: &[KeptVersion]) -> Vec<Withdrawal> {
        kept.iter()
            .filter_map(|kept| {
                let reason = match self
                    .installed
                    .iter()
                    .find(|b| b.plugin == kept.plugin && b.version == kept.version)
                {
                    Some(b) if b.digest.as_deref() == Some(kept.digest.as_str()) => return None,
                    Some(b) => format!(
                        "its content changed while the conversation was closed: composed with {}, installed now as {}",
                        kept.digest,
                        b.digest.as_deref().unwrap_or("a bundle without a digest")
                    ),
                    None => match self.installed.iter().find(|b| b.plugin == kept.plugin) {
                        Some(now) => format!(
                            "replaced by {} while the conversation was closed",
                            now.version
                        ),
                        None => "uninstalled while the conversation was closed".to_string(),
                    },
                };
                Some(Withdrawal {
                    plugin: format!("{}@{}", kept.plugin, kept.version),
                    reason,
                })
            })
            .collect()
    }
}

/// The newest version of each plugin among `bundles`.
fn newest(bundles: &[Bundle]) -> Vec<&Bundle> {
    let mut newest: BTreeMap<&str, &Bundle> = BTreeMap::new();
    for bundle in bundles {
        match newest.get(bundle.plugin.as_str()) {
            Some(other) if other.version >= bundle.version => {}
            _ => {
                newest.insert(&bundle.plugin, bundle);
            }
        }
    }
    newest.into_values().collect()
}

/// The contributors of `bundles`, in composition order.
/// Why `bundle` cannot run in `session`: a skill it requires is missing,
/// or at a version its requirement does not match.
fn unmet_requirement(bundle: &Bundle, session: &Session) -> Option<String> {
    bundle.requires.iter().find_map(|(skill, requirement)| {
        let refused = |why: String| {
            Some(format!(
                "it requires skill `{skill}` {requirement}, and {why}: none of its contributors is composed"
            ))
        };
        let Ok(wanted) = semver::VersionReq::parse(requirement) else {
            return refused(format!("`{requirement}` is not a version requirement"));
        };
        match session.skills.get(skill) {
            None => refused(format!("the session has no skill `{skill}`")),
            Some(found) if !wanted.matches(&found.version) => {
                refused(format!("the session has {}", found.version))
            }
            Some(_) => None,
        }
    })
}

fn entries<'a>(bundles: &[&'a Bundle]) -> Vec<Entry<'a>> {
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
    entries
}

fn version(bundle: &Bundle) -> PluginVersion {
    PluginVersion {
        version: bundle.version.clone(),
        digest: bundle.digest.clone().unwrap_or_default(),
    }
}

/// What a recomposition changed, plugin by plugin.
fn version_changes(before: &[&Bundle], after: &[&Bundle], why: &str) -> Vec<VersionRecord> {
    let mut plugins: BTreeSet<&str> = before.iter().map(|b| b.plugin.as_str()).collect();
    plugins.extend(after.iter().map(|b| b.plugin.as_str()));
    plugins
        .into_iter()
        .filter_map(|plugin| {
            let old = before.iter().find(|b| b.plugin == plugin);
            let new = after.iter().find(|b| b.plugin == plugin);
            let change = match (old, new) {
                (Some(old), Some(new)) if old.digest == new.digest => return None,
                (Some(old), Some(new)) => {
                    format!("from {} to {}: {why}", old.version, new.version)
                }
                (None, Some(new)) => format!("{} joined: {why}", new.version),
                (Some(old), None) => format!("{} left: {why}", old.version),
                (None, None) => return None,
            };
            Some(VersionRecord {
                plugin: plugin.to_string(),
                running: new.map(|b| version(b)),
                installed: None,
                change: Some(change),
            })
        })
        .collect()
}

pub(super) fn count(text: &str) -> u64 {
    REQUEST_TOKENIZER.count(text) as u64
}

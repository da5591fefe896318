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
//! A host calls [`Composer::start`] (or [`Composer::builder`] to
//! choose [`Options`], keep a session log, or resume from one), then per
//! turn [`Composer::turn`] and per request [`Composer::request`].
//!
//! ```
//! use contrib_runtime::{CliGate, Composer, Profile, RequestInput, Session, Timestamp, TurnInput};
//!
//! let session = Session::from_toml(r#"
//!     started_at = "2026-03-02T09:00:00Z"
//!     [agent]
//!     name = "Helper"
//!     [model]
//!     name = "claude-sonnet-4-5"
//! "#).unwrap();
//! let none = Profile::none();
//! let mut conversation = Composer::start(&[], session, CliGate, &none);
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
mod naive;
mod opening;
mod restore;
mod state;
mod system;
mod turn;
mod turn_record;
mod versions;
pub(super) mod withdrawal;

use std::io::Write;

use self::state::{Prompt, State, Versions};
use self::versions::{newest, version_changes};
use super::facts;
use super::gate::Gate;
use super::log::{LogWriter, Restored, ResumeError, Seen};
use super::options::{ModelChange, Options};
use super::profiles::{Boundary, Breakpoint, Profile};
use super::reader::Reader;
use super::record::{Named, OpeningItem, OpeningKind, Refusal, SystemPrompt};
use super::session::Session;
use super::time::Timestamp;
use contrib_bundle::{Bundle, BundledContributor};
use contrib_core::tokenizer::TokenizerKind;
use contrib_core::vocabulary::{Kind, Placement, Reach};

/// The tokenizer request sizes are estimated with, for cache breakpoints,
/// their warnings and the tokens each contributor adds in a turn record.
/// Budgets use each bundle's own.
pub const REQUEST_TOKENIZER: TokenizerKind = TokenizerKind::O200k;

/// The tag of the instruction that says what envelopes' provenance means.
const HYGIENE_TAG: &str = "<retrieved_content_hygiene>";

/// One conversation, from its start to its last turn.
///
/// Its state is grouped by what it is: the versions it runs on, the prompt
/// those were composed into, and how the turns have gone; beside them, what
/// the host gave it. Each behaviour file touches the groups it needs.
pub struct Composer<'a, G: Gate> {
    /// The contributors and bundle versions the conversation runs on.
    pub(super) versions: Versions<'a>,
    /// The kept prompt composed from those versions, and its fact sections.
    pub(super) prompt: Prompt,
    /// How the turns have gone, and what waits for the next.
    pub(super) state: State<'a>,
    pub(super) profile: &'a Profile,
    pub(super) options: Options,
    pub(super) gate: G,
    /// The session as of the last turn or request.
    pub(super) session: Session,
    pub(super) log: Option<LogWriter<'a>>,
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
    pub(super) fn kind(&self) -> Kind {
        self.contributor.kind
    }

    pub(super) fn refuse(&self, reason: String) -> Refusal {
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
    pub(super) fn reaches(self, reach: Reach) -> bool {
        match reach {
            Reach::EveryTurn => true,
            Reach::WithPerson => self.person_present,
            Reach::Replies => self.person_present && self.replying,
        }
    }

    /// Why `reach` leaves this turn out.
    pub(super) fn why_not(self, reach: Reach) -> String {
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
    pub fn start(self) -> Composer<'a, G> {
        let mut conversation = Composer::empty(self);
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
    pub fn resume(self, log: &[u8]) -> Result<Composer<'a, G>, ResumeError> {
        let restored = Restored::read(log)?;
        let mut conversation = Composer::empty(self);
        conversation.restore(restored);
        Ok(conversation)
    }
}

impl<'a, G: Gate> Composer<'a, G> {
    /// Starts a conversation with the default [`Options`] and no log.
    pub fn start(bundles: &'a [Bundle], session: Session, gate: G, profile: &'a Profile) -> Self {
        Composer::builder(bundles, session, gate, profile).start()
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
        Composer {
            versions: Versions::new(installed),
            prompt: Prompt::default(),
            state: State::new(Seen::of(&start.session), started_at),
            profile: start.profile,
            options: start.options,
            gate: start.gate,
            session: start.session,
            log: start.log.map(LogWriter::new),
            kept_limit: None,
            reader: start.reader,
        }
    }

    /// The kept system prompt.
    pub fn system_prompt(&self) -> &SystemPrompt {
        &self.prompt.system
    }

    /// The conversation opening, stored before the first prompt.
    pub fn opening(&self) -> &[OpeningItem] {
        &self.prompt.opening
    }

    /// What eager loads put before the first turn, in the shared prefix:
    /// tools advertised and skill operations read. The same for every
    /// conversation of the agent.
    pub fn preloaded(&self) -> &[OpeningItem] {
        &self.prompt.preloaded
    }

    /// Cache breakpoints after the agent part, the person part and the
    /// opening, as the profile allows. A host with a breakpoint to spare
    /// puts one after the stored history (see [`Boundary::History`]).
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.prompt.placed.breakpoints
    }

    /// Shared prefixes too short for the profile to cache.
    pub fn warnings(&self) -> &[String] {
        &self.prompt.placed.warnings
    }

    /// How often the system prompt was composed again after the start.
    pub fn recompositions(&self) -> u32 {
        self.state.progress.compositions.saturating_sub(1)
    }

    /// The cache profile the conversation places breakpoints under.
    pub fn profile(&self) -> &Profile {
        self.profile
    }

    /// The session as of the last turn or request.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Where the designs disagree, the choices this conversation was
    /// started with; they hold for its whole life.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Turns taken so far.
    pub fn turns(&self) -> u32 {
        self.state.progress.turns
    }

    /// The host's gate, as given when the conversation started.
    pub fn gate(&self) -> &G {
        &self.gate
    }

    /// The host's gate, to change what it will answer between turns (a
    /// person's approval given, a script's answers).
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
        self.versions.installed = newest(bundles);
    }

    /// Tokens through each boundary of the kept part of the request:
    /// the agent prefix (the preloaded tools and operations, then the
    /// platform and agent parts of the system prompt), the person part, the
    /// opening.
    pub fn prefix_tokens(&self) -> [(Boundary, u64); 3] {
        let preloaded: u64 = self.prompt.preloaded.iter().map(|item| item.tokens).sum();
        let agent = preloaded + count(self.prompt.system.agent_prefix());
        let (person_items, opening_items): (Vec<&OpeningItem>, Vec<&OpeningItem>) = self
            .prompt
            .opening
            .iter()
            .partition(|item| item.kind == OpeningKind::PersonPart);
        let person = agent
            + count(self.prompt.system.person_part())
            + person_items.iter().map(|item| item.tokens).sum::<u64>();
        let opening = person + opening_items.iter().map(|item| item.tokens).sum::<u64>();
        [
            (Boundary::Agent, agent),
            (Boundary::Person, person),
            (Boundary::Opening, opening),
        ]
    }

    pub(super) fn place(&mut self) {
        self.prompt.placed = self
            .profile
            .place(&self.session.model.name, &self.prefix_tokens());
        self.prompt.placed.warnings.extend(self.hygiene_warning());
    }

    /// A warning when prefaces put retrieved content in envelopes but no
    /// platform text tells the model what an envelope's provenance means
    /// (design 001's `<retrieved_content_hygiene>` rule): the envelope
    /// alone marks the content, it does not say how far to trust it.
    fn hygiene_warning(&self) -> Option<String> {
        let prefaces: Vec<String> = self
            .versions
            .entries
            .iter()
            .filter(|entry| entry.kind() == Kind::Preface)
            .map(|entry| format!("`{}`", entry.name()))
            .collect();
        let told = self.prompt.system.contributions.iter().any(|contribution| {
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
        self.recompose_from(self.versions.installed.clone(), at, why);
    }

    /// Takes `bundles` as the versions the conversation runs on, composes
    /// the system prompt from them, and records what changed.
    pub(super) fn recompose_from(&mut self, bundles: Vec<&'a Bundle>, at: Timestamp, why: &str) {
        let before: Vec<&'a Bundle> = std::mem::replace(&mut self.versions.kept, bundles);
        if self.state.progress.compositions > 0 {
            self.state.pending.versions = version_changes(&before, &self.versions.kept, why);
        }
        self.versions.entries = self.runnable_entries();
        self.compose(at);
        self.index_sections();
    }

    /// Writes the composition as it stands, once the opening is known.
    pub(super) fn log_composition(&mut self, why: &str, at: Timestamp) {
        let kept = self.kept_versions();
        if let Some(log) = &mut self.log {
            log.compose(
                why,
                at,
                self.state.progress.compositions,
                kept,
                &self.prompt.system,
                &self.prompt.preloaded,
                &self.prompt.opening,
            );
        }
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
            .versions
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
        self.prompt.sections = sections;
        self.prompt.merged = merged;
    }

    /// Whether a model change from the last turn rewrites the kept part.
    pub(super) fn recomposes_on_model_change(&self) -> bool {
        self.options.model_change == ModelChange::Recompose
    }
}

pub(super) fn count(text: &str) -> u64 {
    REQUEST_TOKENIZER.count(text) as u64
}

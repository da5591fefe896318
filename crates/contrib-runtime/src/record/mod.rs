//! What a conversation is made of, what a host tells it per turn and per
//! request, and what each records: the types [`super::Composer`] takes
//! and hands back, all serialisable, so a host can store them and anyone
//! can explain a turn afterwards. What the host tells it is in
//! `record/input.rs`.

mod input;

use serde::{Deserialize, Serialize};

pub(crate) use self::input::Changes;
pub use self::input::{RequestInput, SkillPick, StoredPick, TurnInput};
use super::facts::Told;
use super::time::Timestamp;
use contrib_core::vocabulary::{Delivery, Kind, Placement};

/// One contributor's text in the kept system prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contribution {
    /// `plugin@version/id`, or `skill:SLUG@VERSION` for a skill's body.
    pub contributor: String,
    /// The part of the prompt it is in: platform, agent (a skill's body
    /// among them) or person.
    pub placement: Placement,
    /// Framing (below agent priority) and body, as the model reads it.
    pub text: String,
}

/// A skill whose instructions the kept system prompt holds, under its
/// `## {name}` heading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptSkill {
    /// The skill's slug, as the session's `skills` key it.
    pub skill: String,
    /// The name under its `## {name}` heading: the session's name for it,
    /// or its slug.
    pub name: String,
    /// The version whose instructions were composed in; a version the
    /// session gives later reaches the prompt at the next compaction.
    pub version: semver::Version,
}

/// The kept system prompt: platform, then agent, then the agent's skills,
/// then person contributions.
///
/// The platform and agent parts (skills among them) together are the
/// agent prefix, identical byte for byte in every conversation of the
/// agent; the person part follows, identical in every conversation of one
/// person with the agent. A host that keeps person values out of the
/// system field ([`super::PersonPart::Opening`]) finds the person part in
/// the opening instead, and `text` ends with the agent prefix.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SystemPrompt {
    /// The system field as sent: each contribution's text followed by a
    /// blank line, the agent prefix first.
    pub text: String,
    /// What `text` is made of, one entry per contributor in the order
    /// composed, the person part's included even when it went to the
    /// opening.
    pub contributions: Vec<Contribution>,
    /// Where the agent prefix ends, in bytes of `text`.
    pub agent_end: usize,
    /// The skills composed into it, and the versions they were at.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<KeptSkill>,
}

impl SystemPrompt {
    /// The platform and agent parts.
    pub fn agent_prefix(&self) -> &str {
        self.text.get(..self.agent_end).unwrap_or_default()
    }

    /// The person part.
    pub fn person_part(&self) -> &str {
        self.text.get(self.agent_end..).unwrap_or_default()
    }

    /// The skill `slug`, when this prompt was composed with it.
    pub fn skill(&self, slug: &str) -> Option<&KeptSkill> {
        self.skills.iter().find(|kept| kept.skill == slug)
    }
}

/// What an opening item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OpeningKind {
    /// An eager load's `load_tools` call.
    LoadTools,
    /// An eager load's skill read.
    SkillRead,
    /// An eager run's tool exchange.
    Run,
    /// Text at conversation placement.
    Text,
    /// The person part, when the host keeps it out of the system field.
    PersonPart,
}

/// One message of the conversation opening, before the first prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpeningItem {
    /// `plugin@version/id`: the contributor it is marked as, never the model.
    pub contributor: String,
    /// What made it, and so how a wire sends it.
    pub kind: OpeningKind,
    /// The message as the model reads it.
    pub text: String,
    /// What it adds to the request: counted, or for loads what the checker
    /// measured (the schemas and operations the host returns).
    pub tokens: u64,
    /// What the message is, when the text alone does not say it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// For an eager run: the call and what it returned, so a wire format
    /// can send them as a tool exchange rather than as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<RunCall>,
}

/// An eager run's tool call as it went through the host's tool dispatch,
/// and what the tool returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCall {
    /// The tool called.
    pub tool: String,
    /// Its arguments, as the JSON object the tool received.
    pub input: serde_json::Map<String, serde_json::Value>,
    /// What the tool returned.
    pub output: String,
}

/// Who a note speaks as. Every note is a user-role message: providers take
/// only one system field, and it is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The `user` role.
    User,
}

/// Where a note goes in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Position {
    /// The first message, before the opening: retrieved content when the
    /// host places prefaces at position 0 ([`super::PrefacesAt::First`]).
    First,
    /// After the stored history, before the turn's prompt.
    BeforePrompt,
    /// In the person's message, after their words.
    WithPrompt,
    /// At the end of the conversation as it stands before a request: after
    /// the prompt on a turn's first request, after the last tool results
    /// on the others.
    End,
}

/// A message the runtime adds to the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// `plugin@version/id`, or `platform` for the skill-invocation note.
    pub contributor: String,
    /// What made it.
    pub kind: NoteKind,
    /// Who it speaks as: always the user.
    pub role: Role,
    /// Where the host puts it in the request.
    pub position: Position,
    /// The fact section it states, for a fact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// The message as the model reads it.
    pub text: String,
    /// Whether the host stores it in the conversation. Prefaces and the
    /// skill-invocation note are not: they are rebuilt each time the
    /// conversation is sent.
    pub persisted: bool,
}

/// What made a note: a contributor of some kind, or the platform's note
/// beside a person's pick of a skill. Written as the kind's spelling
/// (`fact`, `preface`) or `skill-invocation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// A contributor of this kind (`system-message`, `preface`, `fact`, …).
    Contributor(Kind),
    /// The platform's note beside a person's pick of a skill.
    SkillInvocation,
}

impl NoteKind {
    /// Its spelling in records: the kind's (`fact`), or `skill-invocation`.
    pub fn as_str(self) -> &'static str {
        match self {
            NoteKind::Contributor(kind) => kind.as_str(),
            NoteKind::SkillInvocation => "skill-invocation",
        }
    }
}

impl std::fmt::Display for NoteKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for NoteKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One turn: its notes and its record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Turn {
    /// Counting from 1.
    pub number: u32,
    /// When the turn was taken, in the person's offset.
    pub at: Timestamp,
    /// Why the system prompt was composed again before this turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recomposed: Option<String>,
    /// In order: at [`Position::First`], then before the prompt (stored
    /// notes, then those rebuilt each turn), then with the prompt.
    pub notes: Vec<Note>,
    /// The person's pick, as the host stores it with their message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pick: Option<StoredPick>,
    /// What shaped the turn and what was left out, and why.
    pub record: TurnRecord,
}

/// One request: the fact sections told before it, and its record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Request {
    /// The turn it belongs to (0 before the first turn).
    pub turn: u32,
    /// Counting from 1 within the turn.
    pub number: u32,
    /// When the request is sent, in the person's offset.
    pub at: Timestamp,
    /// One user-role message per section told, in Crucible's order, at
    /// [`Position::End`] (or before the prompt, on a turn's first request,
    /// when the host places facts with the turn's notes).
    pub messages: Vec<Note>,
    /// Each section told or not, and why.
    pub record: RequestRecord,
}

/// Enough to explain a turn afterwards.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct TurnRecord {
    /// Every contributor of the versions the conversation runs on: at which
    /// version and digest, whether it shaped this turn and why or why not,
    /// and the tokens it adds to the request.
    pub contributors: Vec<ContributorRecord>,
    /// The agent's skills: the version installed, the version the kept
    /// system prompt holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<SkillRecord>,
    /// Each plugin: the version this conversation runs on, and the one
    /// installed when they differ.
    pub versions: Vec<VersionRecord>,
    /// System messages that fired, and why.
    pub system_messages: Vec<Fired>,
    /// Eager runs at the opening (recorded with the first turn, and with a
    /// compaction that ran new ones).
    pub eager_runs: Vec<RunRecord>,
    /// Prefaces' retrievals for this turn.
    pub retrievals: Vec<RunRecord>,
    /// Each text that applies conditionally: whether it was told on this
    /// turn, and why or why not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub activations: Vec<ActivationRecord>,
    /// Changes made while the previous turn ran and held for this one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<String>,
    /// Contributions refused: over budget, missing a value, refused by the
    /// gate, or a value withheld for being over its variable's bound.
    pub refusals: Vec<Refusal>,
    /// Plugin versions withdrawn before this turn: from it on, nothing of
    /// theirs reaches the conversation.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub withdrawn: Vec<Withdrawal>,
}

/// Enough to explain a request afterwards.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct RequestRecord {
    /// Every fact section: told or not, how and why.
    pub sections: Vec<SectionRecord>,
    /// Changes this request brought that wait for the next turn.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<String>,
    /// Facts whose sections on this request were over their budget, each
    /// refused whole.
    pub refusals: Vec<Refusal>,
}

/// One fact section on one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionRecord {
    /// The section's heading.
    pub section: String,
    /// The fact that tells it.
    pub contributor: String,
    /// How it was told; `None` when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub told: Option<Told>,
    /// Why it was told so, or why not (unchanged, out of its reach,
    /// refused).
    pub why: String,
    /// The tokens its message adds.
    pub tokens: u64,
}

/// One contributor on one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContributorRecord {
    /// `plugin@version/id`.
    pub contributor: String,
    /// `plugin@version`.
    pub plugin: String,
    /// The bundle's digest, `sha256:<hex>`; empty for a bundle that has
    /// none.
    pub digest: String,
    /// The contributor's id within its plugin.
    pub id: String,
    /// What kind of contributor it is.
    pub kind: Kind,
    /// Where what it adds goes: the system prompt, the shared prefix, the
    /// opening, or notes before turns.
    pub delivery: Delivery,
    /// Whether what it adds is in this turn's request.
    pub included: bool,
    /// Where it is or why it is not.
    pub why: String,
    /// What it adds to this turn's request, in the request tokenizer's
    /// tokens (for loads, what the checker measured).
    pub tokens: u64,
}

/// One of the agent's skills on one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillRecord {
    /// The skill's slug.
    pub skill: String,
    /// The version installed now.
    pub version: semver::Version,
    /// The host's digest of that version, when the session gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The version the kept system prompt holds, when it holds the skill.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_system_prompt: Option<semver::Version>,
    /// Where its instructions are on this turn, or why they are not there
    /// yet.
    pub why: String,
}

/// One plugin version, by its digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginVersion {
    /// The plugin's version.
    pub version: semver::Version,
    /// The bundle's digest, `sha256:<hex>`; empty for a bundle that has
    /// none.
    pub digest: String,
}

/// One plugin on one turn: what the conversation runs on, what is
/// installed, and what changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionRecord {
    /// The plugin, `scope/name`, without a version.
    pub plugin: String,
    /// The version this turn had; `None` once uninstalled and compacted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running: Option<PluginVersion>,
    /// The version installed, when it differs from the one running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed: Option<PluginVersion>,
    /// What happened to it at this turn, or what waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
}

/// Whether a conditional text was told on a turn, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActivationRecord {
    /// `plugin@version/id`.
    pub contributor: String,
    /// Whether it was told on this turn.
    pub included: bool,
    /// Why it was told (the activation that held, or a compaction that
    /// restates it), or why not.
    pub why: String,
}

/// A system message that fired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fired {
    /// `plugin@version/id`.
    pub contributor: String,
    /// The condition that held, in words (`idle for 4 hours, over 1
    /// hour`).
    pub why: String,
}

/// A contributor's tool call and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunRecord {
    /// `plugin@version/id`.
    pub contributor: String,
    /// The tool it called.
    pub tool: String,
    /// Whether the call ran.
    pub ran: bool,
    /// Why it did not run, or is waiting; `None` when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a retrieval: the provenance its envelope carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<String>,
    /// For a retrieval: its origin, placeholders filled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// For a call to a gated tool: whether a person's approval is pending,
    /// was given, or was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<Approval>,
}

/// A contribution left out or narrowed, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// Who was refused: `plugin@version/id`, `plugin@version` for a
    /// plugin refused whole, or `platform` for a pick of a skill.
    pub contributor: String,
    /// Why, in words.
    pub reason: String,
}

impl TurnRecord {
    /// Records the values withheld from a contributor's text.
    pub(crate) fn withheld(&mut self, contributor: &impl Named, reasons: Vec<String>) {
        for reason in reasons {
            self.refusals.push(Refusal {
                contributor: contributor.name(),
                reason,
            });
        }
    }
}

/// Something with a contributor's full name.
pub(crate) trait Named {
    fn name(&self) -> String;
}

/// Where a gated call's approval stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Approval {
    /// Asked for; the call waits, and is asked about again each turn.
    Pending,
    /// Given: the call ran.
    Approved,
    /// Refused by a person: the call will not run.
    Denied,
}

/// A plugin version withdrawn from a running conversation, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Withdrawal {
    /// `scope/name@version`.
    pub plugin: String,
    /// Why: as the host gave it (yanked, uninstalled), or what changed
    /// while the conversation was closed.
    pub reason: String,
}

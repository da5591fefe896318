//! What a conversation is made of and what a turn records: the types
//! [`super::Conversation`] hands back, all serialisable, so a host can
//! store them and anyone can explain a turn afterwards.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::session::Model;
use super::time::Timestamp;
use crate::ir::{Kind, Placement};

/// One contributor's text in the kept system prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Contribution {
    /// `plugin@version/id`.
    pub contributor: String,
    pub placement: Placement,
    /// Framing (below agent priority) and body, as the model reads it.
    pub text: String,
}

/// The kept system prompt: platform, then agent, then person contributions.
///
/// The platform and agent parts together are the agent prefix, identical
/// byte for byte in every conversation of the agent; the person part
/// follows, identical in every conversation of one person with the agent.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct SystemPrompt {
    pub text: String,
    pub contributions: Vec<Contribution>,
    /// Where the agent prefix ends, in bytes of `text`.
    pub agent_end: usize,
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
}

/// What an opening item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
}

/// One message of the conversation opening, before the first prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpeningItem {
    /// `plugin@version/id`: the contributor it is marked as, never the model.
    pub contributor: String,
    pub kind: OpeningKind,
    /// The message as the model reads it.
    pub text: String,
    /// What it adds to the request: counted, or for loads what the checker
    /// measured (the schemas and operations the host returns).
    pub tokens: u64,
    /// What the message is, when the text alone does not say it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// A turn's circumstances, as the host knows them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnInput {
    /// When the turn is taken.
    pub at: Timestamp,
    /// Whether a person is in the conversation.
    #[serde(default = "yes")]
    pub person_present: bool,
    /// Whether this turn answers a person's message.
    #[serde(default = "yes")]
    pub replying: bool,
    /// Whether the host compacted the conversation before this turn.
    #[serde(default)]
    pub compaction: bool,
    /// The model from this turn on, when it changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Model>,
    /// The tools from this turn on, when they changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// The installed skills from this turn on, when they changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<BTreeMap<String, semver::Version>>,
    /// The permissions from this turn on, when they changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<BTreeMap<String, String>>,
    /// The command a person invoked with this turn's message (`deploy` for
    /// `/deploy`), for texts that apply `on command`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The skill invoked on this turn, for texts that apply `on skill`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invoked_skill: Option<String>,
    /// The subagent the agent delegates to on this turn, for texts that
    /// apply `on subagent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<String>,
    /// Files in play on this turn, relative to the workspace, for texts
    /// that apply `to files`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Texts the model asked for, by name (`plugin@version/id` or `id`),
    /// for texts that apply `on request`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requested: Vec<String>,
}

fn yes() -> bool {
    true
}

impl TurnInput {
    /// A turn answering a person at `at`, with nothing else changed.
    pub fn reply_at(at: Timestamp) -> TurnInput {
        TurnInput {
            at,
            person_present: true,
            replying: true,
            compaction: false,
            model: None,
            tools: None,
            skills: None,
            permissions: None,
            command: None,
            invoked_skill: None,
            subagent: None,
            files: Vec::new(),
            requested: Vec::new(),
        }
    }
}

/// A message placed before a turn's prompt, after the cached prefix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// `plugin@version/id`.
    pub contributor: String,
    pub kind: Kind,
    pub text: String,
    /// Whether the host stores it in the conversation. Prefaces are not:
    /// they are fetched again each turn, so stale retrievals never pile up.
    pub persisted: bool,
}

/// One turn: its notes and its record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Turn {
    /// Counting from 1.
    pub number: u32,
    pub at: Timestamp,
    /// Why the system prompt was composed again before this turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recomposed: Option<String>,
    /// In order: system messages and facts (stored), then prefaces and
    /// message-placed texts (not stored).
    pub notes: Vec<Note>,
    pub record: TurnRecord,
}

/// Enough to explain a turn afterwards.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct TurnRecord {
    /// Every contributor that shaped the request: the kept system prompt,
    /// the opening and this turn's notes.
    pub turn_contributors: Vec<TurnContributor>,
    /// System messages that fired, and why.
    pub system_messages: Vec<Fired>,
    /// Eager runs at the opening (recorded with the first turn).
    pub eager_runs: Vec<RunRecord>,
    /// Prefaces' retrievals for this turn.
    pub retrievals: Vec<RunRecord>,
    /// Each text that applies conditionally: whether it was told on this
    /// turn, and why or why not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub activations: Vec<ActivationRecord>,
    /// Contributions refused: over budget, missing a value, refused by the
    /// gate, or a value withheld for being over its variable's bound.
    pub refusals: Vec<Refusal>,
    /// Plugin versions withdrawn before this turn: from it on, nothing of
    /// theirs reaches the conversation.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub withdrawn: Vec<Withdrawal>,
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

/// Whether a conditional text was told on a turn, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActivationRecord {
    pub contributor: String,
    pub included: bool,
    pub why: String,
}

/// One contributor, by the bundle it came from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct TurnContributor {
    /// `plugin@version`.
    pub plugin: String,
    pub digest: String,
    pub id: String,
}

/// A system message that fired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fired {
    pub contributor: String,
    pub why: String,
}

/// A contributor's tool call and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunRecord {
    pub contributor: String,
    pub tool: String,
    pub ran: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a call to a gated tool: whether a person's approval is pending,
    /// was given, or was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<Approval>,
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
    pub reason: String,
}

/// A contribution left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub contributor: String,
    pub reason: String,
}

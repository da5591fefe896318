//! What a host tells a conversation: a turn's circumstances, a request's
//! changes between requests, and a skill the person picked.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::session::{Environment, Model, Skill};
use crate::time::Timestamp;

/// A turn's circumstances, as the host knows them when the turn begins.
///
/// The session's fields (`model`, `tools`, `skills`, `mode`, `allowed`,
/// `environment`) are the values from this turn on, when they changed;
/// the same fields on a [`RequestInput`] change them between requests.
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
    /// The model from this turn on, when it changed; `None` keeps the
    /// one before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Model>,
    /// The tools the host offers from this turn on, by name, when they
    /// changed; `None` keeps those before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// The agent's skills from this turn on, by slug, all of them, when
    /// they changed; `None` keeps those before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<BTreeMap<String, Skill>>,
    /// The permission mode from this turn on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The scopes allowed for the rest of the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<String>>,
    /// Where the agent runs from this turn on, all of it, when it changed;
    /// `None` keeps it as it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
    /// The command a person invoked with this turn's message (`deploy` for
    /// `/deploy`), for texts that apply `on command`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// A skill invoked on this turn other than by the person's pick (the
    /// agent chose it), for texts that apply `on skill`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invoked_skill: Option<String>,
    /// The skill the person picked from the `/` menu, sent beside their
    /// message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pick: Option<SkillPick>,
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
            mode: None,
            allowed: None,
            environment: None,
            command: None,
            invoked_skill: None,
            pick: None,
            subagent: None,
            files: Vec::new(),
            requested: Vec::new(),
        }
    }

    /// What it changes in the session.
    pub(crate) fn changes(&self) -> Changes {
        Changes {
            model: self.model.clone(),
            tools: self.tools.clone(),
            skills: self.skills.clone(),
            mode: self.mode.clone(),
            allowed: self.allowed.clone(),
            environment: self.environment.clone(),
        }
    }
}

/// One request to the model within a turn: the first after the person's
/// prompt, and one after each round of tool results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestInput {
    /// When the request is sent.
    pub at: Timestamp,
    /// The model from this request on, when it changed within the turn;
    /// `None` keeps the one before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Model>,
    /// The tools advertised for this request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// The agent's skills from this request on, by slug, all of them, when
    /// they changed; `None` keeps those before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<BTreeMap<String, Skill>>,
    /// A mode change made while the turn runs: held for the next turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The scopes allowed for the rest of the session, after a person
    /// answered "Yes, and don't ask again this session".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<String>>,
    /// Where the agent runs from this request on, all of it, when it
    /// changed; `None` keeps it as it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
}

impl RequestInput {
    /// A request at `at`, with nothing changed.
    pub fn at(at: Timestamp) -> RequestInput {
        RequestInput {
            at,
            model: None,
            tools: None,
            skills: None,
            mode: None,
            allowed: None,
            environment: None,
        }
    }

    pub(crate) fn changes(&self) -> Changes {
        Changes {
            model: self.model.clone(),
            tools: self.tools.clone(),
            skills: self.skills.clone(),
            mode: self.mode.clone(),
            allowed: self.allowed.clone(),
            environment: self.environment.clone(),
        }
    }
}

/// What a turn or a request changes in the session.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Changes {
    pub model: Option<Model>,
    pub tools: Option<Vec<String>>,
    pub skills: Option<BTreeMap<String, Skill>>,
    pub mode: Option<String>,
    pub allowed: Option<Vec<String>>,
    pub environment: Option<Environment>,
}

/// A skill the person picked from the `/` menu, sent beside their message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillPick {
    /// The skill's slug.
    pub skill: String,
    /// Whether the person typed anything beside it; when not, the note is
    /// the whole request.
    #[serde(default = "yes")]
    pub with_message: bool,
}

/// A pick as the host stores it with the message (`metadata.skill`): the
/// slug, the name it had then, and whether words came with it. The note
/// is projected from this each time the message is sent, so a retry, a
/// later turn and a compaction see the same thing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredPick {
    /// The skill's slug.
    pub skill: String,
    /// The name the skill was shown under when picked (its slug when the
    /// session gave none), so the note keeps naming it the same way.
    pub name: String,
    /// Whether the person typed anything beside the pick; when not, the
    /// note is the whole request.
    pub with_message: bool,
}

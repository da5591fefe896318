//! Where the three designs disagree, the host's choice.
//!
//! Each default is the choice `docs/runtime.md` argues for; each other
//! value is what a host may reasonably want instead, and is as fully
//! supported.

use serde::{Deserialize, Serialize};

/// How a conversation lays out what disagrees between the designs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// Where person-placed text goes: the system field by default.
    pub person_part: PersonPart,
    /// Where facts go on a turn's first request: after the prompt by
    /// default.
    pub facts: FactsAt,
    /// Where prefaces' retrieved content goes: after the stored history by
    /// default.
    pub prefaces: PrefacesAt,
    /// What a change of model does to the kept part: a note by default,
    /// no recomposing.
    pub model_change: ModelChange,
}

/// Where person-placed text (a voice, `{person.name}`) goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PersonPart {
    /// At the end of the system field (the contributors design): cached
    /// for every conversation the person has with the agent.
    #[default]
    SystemPrompt,
    /// As the first message of the opening, so the system field is the
    /// same bytes for everybody on the agent ("What the model is told":
    /// nothing about the session enters the instructions).
    Opening,
}

/// Where facts go on a turn's first request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FactsAt {
    /// After the person's prompt, as Crucible sends them: the first request
    /// reads the question, then the sections.
    #[default]
    AfterPrompt,
    /// Before the prompt, with the turn's other notes (the contributors
    /// design's system messages).
    BeforePrompt,
}

/// Where prefaces' retrieved content goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PrefacesAt {
    /// After the stored history, before the turn's prompt: the history's
    /// cached prefix survives the content changing every turn.
    #[default]
    AfterHistory,
    /// As a synthetic first message at position 0 (the composing-context
    /// design), for hosts that want it read before everything else and pay
    /// a cache miss on the history every turn it changes.
    First,
}

/// What a change of model does to the kept part of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelChange {
    /// Nothing is rewritten: facts and system messages tell the change at
    /// the end ("What the model is told").
    #[default]
    Note,
    /// The system prompt is composed again from the versions installed
    /// and the opening's texts rendered again (the contributors design:
    /// the provider's cache is per model, so nothing more is lost).
    Recompose,
}

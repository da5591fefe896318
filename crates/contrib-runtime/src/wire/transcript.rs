//! What was said in a conversation after its opening, as a host records
//! it: the person's messages, the model's replies and tool calls, what the
//! tools returned, and the runtime's notes that stay in the conversation.
//!
//! The runtime composes what contributors add; the conversation itself is
//! the host's. A [`Transcript`] is the one place a host writes it down, in
//! a form no provider owns, so that every wire format builds its request
//! from the same record and a conversation started on one provider can go
//! on on another.

use serde::{Deserialize, Serialize};

use crate::record::{Note, NoteKind, Position, Request, StoredPick, Turn};

/// One thing said in a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "said", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Said {
    /// A person's message, with the skill they picked from the `/` menu.
    Person {
        /// Their words; empty when a pick came alone.
        text: String,
        /// The pick, as stored with the message: the note beside it is
        /// projected again each time the message is sent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pick: Option<StoredPick>,
    },
    /// The model's reply: its words, and the tools it called.
    Model {
        /// What it wrote; empty when it only called tools.
        #[serde(default)]
        text: String,
        /// The calls it made, each answered by a [`ToolResult`] next.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        calls: Vec<ToolCall>,
    },
    /// What the host's tools returned for the model's calls.
    Results {
        /// One per call, in the order of the calls.
        results: Vec<ToolResult>,
    },
    /// A note the runtime added that stays in the conversation: a system
    /// message, a fact section.
    Note {
        /// `plugin@version/id` of the contributor that made it.
        contributor: String,
        /// Its kind's spelling: `system-message`, `fact`.
        kind: String,
        /// The note as the model reads it.
        text: String,
    },
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The provider's id for the call, which its result names.
    pub id: String,
    /// The tool called.
    pub name: String,
    /// Its arguments.
    #[serde(default = "empty_object")]
    pub input: serde_json::Value,
}

/// What a tool returned for one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolResult {
    /// The id of the call it answers.
    pub id: String,
    /// What the tool returned, as text.
    pub output: String,
    /// Whether the call failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

/// A conversation after its opening: what is stored, and what the current
/// turn adds only for as long as it runs.
///
/// Feed it the [`Turn`] and every [`Request`] the runtime hands back, and
/// what the model and the tools said between them; a wire format then
/// builds each request from it ([`super::body`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Transcript {
    said: Vec<Said>,
    /// Notes rebuilt every turn, never stored: prefaces at the first
    /// position and before the prompt.
    first: Vec<Note>,
    before_prompt: Vec<Note>,
    /// Where, in `said`, the current turn's notes rebuilt every turn go:
    /// after its stored notes, before its facts and the person's message.
    prompt_at: usize,
    /// Where the current turn begins in `said`.
    turn_at: usize,
}

impl Transcript {
    /// An empty conversation.
    pub fn new() -> Transcript {
        Transcript::default()
    }

    /// A conversation that goes on from what a host stored: what
    /// [`Transcript::said`] returned before.
    pub fn from_said(said: Vec<Said>) -> Transcript {
        let end = said.len();
        Transcript {
            said,
            prompt_at: end,
            turn_at: end,
            ..Transcript::default()
        }
    }

    /// Everything stored, in order: what a host keeps between turns.
    pub fn said(&self) -> &[Said] {
        &self.said
    }

    /// A turn begins: the turn's stored notes go before the person's
    /// message (`prompt`, `None` for a turn nobody asked for), the notes
    /// rebuilt every turn are held for this turn alone.
    pub fn begin(&mut self, turn: &Turn, prompt: Option<&str>) {
        self.first.clear();
        self.before_prompt.clear();
        self.turn_at = self.said.len();
        // In the turn's order: stored notes, the notes rebuilt every turn,
        // then facts told before the prompt, then the prompt.
        let mut facts = Vec::new();
        let mut with_prompt = Vec::new();
        for note in &turn.notes {
            match (note.position, note.persisted) {
                (Position::First, _) => self.first.push(note.clone()),
                (Position::BeforePrompt, true) if note.section.is_some() => {
                    facts.push(stored(note))
                }
                (Position::BeforePrompt, true) => self.said.push(stored(note)),
                (Position::BeforePrompt, false) => self.before_prompt.push(note.clone()),
                // The skill-invocation note is projected from the pick each
                // time the message is sent.
                (Position::WithPrompt, _) if note.kind == NoteKind::SkillInvocation => {}
                (Position::WithPrompt, _) | (Position::End, _) => with_prompt.push(stored(note)),
            }
        }
        self.prompt_at = self.said.len();
        self.said.extend(facts);
        if prompt.is_some() || turn.pick.is_some() {
            self.said.push(Said::Person {
                text: prompt.unwrap_or_default().to_string(),
                pick: turn.pick.clone(),
            });
        }
        self.said.extend(with_prompt);
    }

    /// A request is about to be sent: the fact sections it tells are
    /// stored at the end of the conversation, where the runtime puts them.
    pub fn request(&mut self, request: &Request) {
        self.said.extend(request.messages.iter().map(stored));
    }

    /// The model replied: its words and the tools it called.
    pub fn model(&mut self, text: impl Into<String>, calls: Vec<ToolCall>) {
        self.said.push(Said::Model {
            text: text.into(),
            calls,
        });
    }

    /// The host's tools answered the model's calls.
    pub fn results(&mut self, results: Vec<ToolResult>) {
        self.said.push(Said::Results { results });
    }

    /// The host compacted the conversation: `kept` replaces everything
    /// stored (typically a recap, framed as one, and the turns kept
    /// whole). The runtime restates every fact on the next request.
    pub fn compact(&mut self, kept: Vec<Said>) {
        *self = Transcript::from_said(kept);
    }

    /// What this turn says before the opening (prefaces at position 0).
    pub(super) fn first(&self) -> &[Note] {
        &self.first
    }

    /// What was stored before this turn.
    pub(super) fn history(&self) -> &[Said] {
        self.said.get(..self.turn_at).unwrap_or_default()
    }

    /// This turn's stored notes, the notes rebuilt for it, and the rest
    /// of the turn from its facts and person message on.
    pub(super) fn this_turn(&self) -> (&[Said], &[Note], &[Said]) {
        let before = self
            .said
            .get(self.turn_at..self.prompt_at)
            .unwrap_or_default();
        let rest = self.said.get(self.prompt_at..).unwrap_or_default();
        (before, &self.before_prompt, rest)
    }
}

fn stored(note: &Note) -> Said {
    Said::Note {
        contributor: note.contributor.clone(),
        kind: note.kind.as_str().to_string(),
        text: note.text.clone(),
    }
}

//! A request as a provider reads it, before any provider's spelling: the
//! tools, the system text and the messages, in order, each piece marked
//! with who shares it, and the cache breakpoints placed on the pieces
//! where each shared prefix ends.

use crate::compose::Composer;
use crate::gate::Gate;
use crate::layout::Segment;
use crate::options::PrefacesAt;
use crate::profiles::{Boundary, Breakpoint, Caching};
use crate::record::{Note, OpeningItem, OpeningKind};
use contrib_core::vocabulary::Placement;

use super::transcript::{Said, Transcript};
use super::ToolDefinition;

/// Who says a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Speaker {
    User,
    Assistant,
}

/// One piece of a request.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Piece {
    /// A tool definition.
    Tool(ToolDefinition),
    /// A block of the system text.
    System(String),
    /// Text in a message.
    Text(Speaker, String),
    /// A tool call, always the assistant's.
    Call {
        id: String,
        name: String,
        input: serde_json::Value,
    },
    /// What a call returned, always in the user's turn.
    Result {
        id: String,
        output: String,
        is_error: bool,
    },
}

impl Piece {
    /// Who says it, for a piece of a message.
    pub(super) fn speaker(&self) -> Option<Speaker> {
        match self {
            Piece::Tool(_) | Piece::System(_) => None,
            Piece::Text(speaker, _) => Some(*speaker),
            Piece::Call { .. } => Some(Speaker::Assistant),
            Piece::Result { .. } => Some(Speaker::User),
        }
    }

    /// The text a tokenizer would see of it.
    pub(super) fn text(&self) -> String {
        match self {
            Piece::Tool(tool) => {
                format!("{} {} {}", tool.name, tool.description, tool.input_schema)
            }
            Piece::System(text) | Piece::Text(_, text) => text.clone(),
            Piece::Call { name, input, .. } => format!("{name} {input}"),
            Piece::Result { output, .. } => output.clone(),
        }
    }
}

/// A piece, who shares it, and the cache breakpoint on it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Placed {
    pub piece: Piece,
    pub segment: Segment,
    /// The breakpoint that ends a shared prefix here: its boundary and
    /// lifetime (the profile's name for it).
    pub cache: Option<(Boundary, String)>,
}

/// The words before the opening's eager runs, so the model reads the calls
/// as the platform's and not its own: a run goes "into the conversation as
/// if the agent had made it", marked as the contributor's.
pub const EAGER_RUNS_NOTE: &str = "[platform] When this conversation began, the platform made these tool calls on its behalf, before anyone asked; their results follow.";

/// The pieces of the next request of `conversation`, in the order the
/// provider reads them, with its breakpoints placed.
pub(super) fn lay_out<G: Gate>(
    conversation: &Composer<'_, G>,
    transcript: &Transcript,
    tools: &[ToolDefinition],
) -> Vec<Placed> {
    let mut pieces = Vec::new();
    let mut push = |segment: Segment, piece: Piece| {
        pieces.push(Placed {
            piece,
            segment,
            cache: None,
        })
    };
    for tool in tools {
        push(Segment::Agent, Piece::Tool(tool.clone()));
    }
    system(conversation, &mut push);
    if conversation.options().prefaces == PrefacesAt::First {
        for note in transcript.first() {
            push(Segment::Turn, Piece::Text(Speaker::User, note.text.clone()));
        }
    }
    opening(conversation.opening(), &mut push);
    for said in transcript.history() {
        said_pieces(conversation, said, Segment::History, &mut push);
    }
    let (before, rebuilt, rest) = transcript.this_turn();
    for said in before {
        said_pieces(conversation, said, Segment::Turn, &mut push);
    }
    for note in rebuilt {
        push(Segment::Turn, note_piece(note));
    }
    for said in rest {
        said_pieces(conversation, said, Segment::Turn, &mut push);
    }
    let mut breakpoints = conversation.breakpoints().to_vec();
    if let Some(history) = history_breakpoint(conversation, &pieces, &breakpoints) {
        breakpoints.push(history);
    }
    mark(&mut pieces, &breakpoints);
    pieces
}

/// The system text, one block per part, split where placements end: the
/// platform part, the skill operations eager loads read (shared by every
/// agent that installs the plugin, so before the first text that names the
/// agent), the agent part, the person part. Few blocks keep a provider's
/// lookback for earlier cache entries long.
fn system<G: Gate>(conversation: &Composer<'_, G>, push: &mut impl FnMut(Segment, Piece)) {
    let contributions = &conversation.system_prompt().contributions;
    let part = |placement: Placement| -> String {
        contributions
            .iter()
            .filter(|contribution| contribution.placement == placement)
            .map(|contribution| format!("{}\n\n", contribution.text))
            .collect()
    };
    let reads: String = conversation
        .preloaded()
        .iter()
        .filter(|item| item.kind != OpeningKind::LoadTools)
        .map(|item| format!("{}\n\n", item.text))
        .collect();
    let parts = [
        (Segment::Agent, part(Placement::Platform)),
        (Segment::Agent, reads),
        (Segment::Agent, part(Placement::Agent)),
        (Segment::Person, part(Placement::Person)),
    ];
    for (segment, text) in parts {
        if !text.is_empty() {
            push(segment, Piece::System(text));
        }
    }
}

/// The opening: conversation-placed texts and the person part as user
/// text, each eager run as the platform's tool call and its result.
fn opening(items: &[OpeningItem], push: &mut impl FnMut(Segment, Piece)) {
    let mut runs = items
        .iter()
        .filter(|item| item.kind == OpeningKind::Run)
        .peekable();
    for item in items.iter().filter(|item| item.kind != OpeningKind::Run) {
        let segment = if item.kind == OpeningKind::PersonPart {
            Segment::Person
        } else {
            Segment::Opening
        };
        push(segment, Piece::Text(Speaker::User, item.text.clone()));
    }
    if runs.peek().is_some() {
        push(
            Segment::Opening,
            Piece::Text(Speaker::User, EAGER_RUNS_NOTE.to_string()),
        );
    }
    for item in runs {
        match &item.call {
            Some(call) => {
                let id = run_id(&item.contributor);
                push(
                    Segment::Opening,
                    Piece::Call {
                        id: id.clone(),
                        name: call.tool.clone(),
                        input: serde_json::Value::Object(call.input.clone()),
                    },
                );
                push(
                    Segment::Opening,
                    Piece::Result {
                        id,
                        output: call.output.clone(),
                        is_error: false,
                    },
                );
            }
            // A run recorded before calls were kept: its text, as the
            // layout shows it.
            None => push(
                Segment::Opening,
                Piece::Text(Speaker::User, item.text.clone()),
            ),
        }
    }
}

/// A stable id for an eager run's call: the same in every request of the
/// conversation (the opening is cached) and for every conversation that
/// runs the same contributor, in the characters every provider accepts.
pub(super) fn run_id(contributor: &str) -> String {
    let hash = blake3::hash(contributor.as_bytes());
    format!("contrib_{}", &hash.to_hex()[..24])
}

fn note_piece(note: &Note) -> Piece {
    Piece::Text(Speaker::User, note.text.clone())
}

fn said_pieces<G: Gate>(
    conversation: &Composer<'_, G>,
    said: &Said,
    segment: Segment,
    push: &mut impl FnMut(Segment, Piece),
) {
    match said {
        Said::Person { text, pick } => {
            if !text.is_empty() {
                push(segment, Piece::Text(Speaker::User, text.clone()));
            }
            if let Some(pick) = pick {
                let note = conversation.project(pick);
                push(segment, note_piece(&note));
            }
        }
        Said::Model { text, calls } => {
            if !text.is_empty() {
                push(segment, Piece::Text(Speaker::Assistant, text.clone()));
            }
            for call in calls {
                push(
                    segment,
                    Piece::Call {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        input: call.input.clone(),
                    },
                );
            }
        }
        Said::Results { results } => {
            for result in results {
                push(
                    segment,
                    Piece::Result {
                        id: result.id.clone(),
                        output: result.output.clone(),
                        is_error: result.is_error,
                    },
                );
            }
        }
        Said::Note { text, .. } => push(segment, Piece::Text(Speaker::User, text.clone())),
    }
}

/// A breakpoint after the stored history, when the profile marks
/// breakpoints and has one to spare: the next turn reads it back.
fn history_breakpoint<G: Gate>(
    conversation: &Composer<'_, G>,
    pieces: &[Placed],
    placed: &[Breakpoint],
) -> Option<Breakpoint> {
    let profile = conversation.profile();
    let spare = profile.caching == Caching::Explicit && placed.len() < profile.max_breakpoints;
    let has_history = pieces.iter().any(|piece| piece.segment == Segment::History);
    let lifetime = profile.lifetimes.first()?;
    (spare && has_history).then(|| Breakpoint {
        after: Boundary::History,
        tokens: 0,
        lifetime: lifetime.name.clone(),
        why: "the next turn of this conversation reads the stored history again".to_string(),
    })
}

/// Each breakpoint on the last piece of the prefix it ends: the prefix
/// runs to the piece before the first one narrower than its boundary.
fn mark(pieces: &mut [Placed], breakpoints: &[Breakpoint]) {
    for breakpoint in breakpoints {
        let widest = match breakpoint.after {
            Boundary::Agent => Segment::Agent,
            Boundary::Person => Segment::Person,
            Boundary::Opening => Segment::Opening,
            Boundary::History => Segment::History,
        };
        let end = pieces
            .iter()
            .position(|piece| piece.segment > widest)
            .unwrap_or(pieces.len());
        let last = pieces
            .get(..end)
            .and_then(|prefix| prefix.iter().rposition(|piece| piece.segment <= widest));
        if let Some(piece) = last.and_then(|index| pieces.get_mut(index)) {
            if piece.cache.is_none() {
                piece.cache = Some((breakpoint.after, breakpoint.lifetime.clone()));
            }
        }
    }
}

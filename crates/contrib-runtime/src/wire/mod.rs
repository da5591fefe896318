//! Request bodies exactly as a provider takes them: the Anthropic Messages
//! API, the OpenAI Responses API and OpenAI Chat Completions.
//!
//! The runtime composes what contributors add — the kept system prompt,
//! the opening, the notes of each turn, the facts of each request — and a
//! host records what the person, the model and the tools said in a
//! [`Transcript`]. [`body`] puts the two together into the JSON object the
//! provider's SDK sends (`client.messages.create(**body)`,
//! `client.responses.create(**body)`, `client.chat.completions.create(**body)`):
//!
//! - the tools the host advertises, first (both providers read them
//!   first), then the system text split where placements end, then the
//!   messages: the opening (conversation texts, then each eager run as the
//!   platform's tool call and its result), the stored history, this turn's
//!   notes, the person's message with the skill-invocation note, the
//!   model's rounds and the fact sections;
//! - the cache breakpoints the profile chose, on the piece where each
//!   shared prefix ends, and one more after the stored history when the
//!   profile allows it (never more than its limit, four on Anthropic);
//! - on OpenAI, a `prompt_cache_key` derived from the agent prefix alone,
//!   so every conversation of an agent meets the same cache, and the
//!   retention the model requires.
//!
//! Nothing per person or per conversation comes before the agent
//! breakpoint, so two people's requests to one agent are byte-identical up
//! to it.

mod anthropic;
mod openai;
mod pieces;
mod transcript;

use serde::{Deserialize, Serialize};

use super::compose::Composer;
use super::gate::Gate;
use super::layout::Segment;
use super::profiles::{Boundary, Prewarm};
use super::record::OpeningKind;
use super::session::DEFAULT_MAX_TOKENS;
use contrib_core::tokenizer::TokenizerKind;

pub use pieces::EAGER_RUNS_NOTE;
pub use transcript::{Said, ToolCall, ToolResult, Transcript};

/// A provider's request format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Wire {
    /// The Anthropic Messages API (`POST /v1/messages`).
    Anthropic,
    /// The OpenAI Responses API (`POST /v1/responses`).
    OpenaiResponses,
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    OpenaiChat,
}

impl Wire {
    /// Every wire, in the order the documentation lists them.
    pub const ALL: [Wire; 3] = [Wire::Anthropic, Wire::OpenaiResponses, Wire::OpenaiChat];

    /// Its name on the command line and in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Wire::Anthropic => "anthropic",
            Wire::OpenaiResponses => "openai-responses",
            Wire::OpenaiChat => "openai-chat",
        }
    }

    /// The path its provider takes requests at, under the API's base URL.
    pub fn path(self) -> &'static str {
        match self {
            Wire::Anthropic => "/v1/messages",
            Wire::OpenaiResponses => "/v1/responses",
            Wire::OpenaiChat => "/v1/chat/completions",
        }
    }
}

impl std::fmt::Display for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A wire name that is none of [`Wire::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownWire(pub String);

impl std::fmt::Display for UnknownWire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "there is no wire `{}`; there are: {}",
            self.0,
            Wire::ALL.map(Wire::as_str).join(", ")
        )
    }
}

impl std::error::Error for UnknownWire {}

impl std::str::FromStr for Wire {
    type Err = UnknownWire;

    fn from_str(text: &str) -> Result<Wire, UnknownWire> {
        Wire::ALL
            .into_iter()
            .find(|wire| wire.as_str() == text)
            .ok_or_else(|| UnknownWire(text.to_string()))
    }
}

/// A tool the host can advertise to the model, as its provider is told it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolDefinition {
    /// The tool's name, as the session lists it.
    pub name: String,
    /// What it does, for the model.
    #[serde(default)]
    pub description: String,
    /// The JSON Schema of its arguments (an object schema).
    pub input_schema: serde_json::Value,
    /// Advertised only once loaded: by an eager load, or by the model's
    /// own `load_tools` call (the host then lists it in the session's
    /// tools and marks it loaded here).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deferred: bool,
}

/// A request body and what it is made of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Body {
    /// The wire it is written for.
    pub wire: Wire,
    /// The body, exactly as sent.
    pub json: serde_json::Value,
    /// What went into it.
    pub record: BodyRecord,
}

/// What a body holds, for the record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BodyRecord {
    /// The breakpoints marked in it, in request order.
    pub breakpoints: Vec<Marked>,
    /// The input tokens it sends, and how they were counted.
    pub tokens: Tokens,
    /// The tools advertised, by name.
    pub tools: Vec<String>,
    /// Tools the session lists that no definition was given for, so they
    /// were not advertised.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub undefined_tools: Vec<String>,
    /// The key that routes it to its agent's cache entries (OpenAI).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    /// What a reader of the body should know: a request that ends with the
    /// model's words (which a provider reads as the start of its reply).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A breakpoint marked in a body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Marked {
    /// The shared prefix it ends.
    pub after: Boundary,
    /// The lifetime asked for.
    pub lifetime: String,
}

/// Input tokens, and how they were counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tokens {
    /// The text the model reads (tool definitions, system text, messages),
    /// counted; the provider's own framing of roles and blocks is not.
    pub input: u64,
    /// The tokenizer used.
    pub tokenizer: TokenizerKind,
    /// Whether it is the provider's own tokenizer.
    pub exact: bool,
    /// How the count was made, in a sentence.
    pub how: String,
}

/// The body of the next request of `conversation` on `wire`: `transcript`
/// holds what was said after the opening, `tools` the definitions the
/// host can advertise (those the session lists are advertised, deferred
/// ones only once loaded).
pub fn body<G: Gate>(
    wire: Wire,
    conversation: &Composer<'_, G>,
    transcript: &Transcript,
    tools: &[ToolDefinition],
) -> Body {
    let (advertised, undefined_tools) = advertised(conversation, tools);
    let pieces = pieces::lay_out(conversation, transcript, &advertised);
    let max_tokens = conversation
        .session()
        .max_tokens
        .unwrap_or(DEFAULT_MAX_TOKENS);
    assemble(
        wire,
        conversation,
        &pieces,
        (advertised, undefined_tools),
        max_tokens,
    )
}

/// The body of a pre-warm request for `conversation`'s agent prefix on
/// `wire`: the tool definitions and the system parts through the agent
/// breakpoint, then a one-word message, in a request that fills the cache
/// and generates nothing (Anthropic's `max_tokens: 0`; on the Responses
/// API, `prompt_cache_options.prewarm` from GPT-5.6 on). A host sends it
/// when a composition makes an agent prefix it has not sent yet, and
/// shortly before the entry would expire while the agent is in use; it is
/// priced like any request (the prefix written, or read when live).
///
/// `None` where there is nothing to pre-warm: the profile or the wire
/// takes no such request (OpenAI's models before GPT-5.6, Chat
/// Completions), or the agent prefix got no breakpoint (too short to be
/// cached on its own).
pub fn prewarm_body<G: Gate>(
    wire: Wire,
    conversation: &Composer<'_, G>,
    tools: &[ToolDefinition],
) -> Option<Body> {
    let expected = match wire {
        Wire::Anthropic => Prewarm::MaxTokensZero,
        Wire::OpenaiResponses => Prewarm::PromptCacheOptions,
        Wire::OpenaiChat => return None,
    };
    if conversation.profile().prewarm != Some(expected) {
        return None;
    }
    let (advertised, undefined_tools) = advertised(conversation, tools);
    let mut pieces: Vec<pieces::Placed> =
        pieces::lay_out(conversation, &Transcript::new(), &advertised)
            .into_iter()
            .take_while(|placed| placed.segment == Segment::Agent)
            .collect();
    let warmed = pieces
        .iter()
        .any(|placed| matches!(placed.cache, Some((Boundary::Agent, _))));
    if !warmed {
        return None;
    }
    pieces.push(pieces::Placed {
        piece: pieces::Piece::Text(pieces::Speaker::User, PREWARM_MESSAGE.to_string()),
        segment: Segment::Turn,
        cache: None,
    });
    let mut body = assemble(
        wire,
        conversation,
        &pieces,
        (advertised, undefined_tools),
        0,
    );
    if let Some(object) = body.json.as_object_mut() {
        if wire == Wire::OpenaiResponses {
            object.remove("max_output_tokens");
            object.insert(
                "prompt_cache_options".into(),
                serde_json::json!({ "mode": "explicit", "prewarm": true }),
            );
        }
    }
    Some(body)
}

/// The message a pre-warm request carries: the APIs take no request
/// without one, and it comes after the breakpoint, so it is never cached.
pub const PREWARM_MESSAGE: &str = "[platform] Cache pre-warm: no reply is generated.";

/// The body of `pieces` on `wire`, and its record.
fn assemble<G: Gate>(
    wire: Wire,
    conversation: &Composer<'_, G>,
    pieces: &[pieces::Placed],
    (advertised, undefined_tools): (Vec<ToolDefinition>, Vec<String>),
    max_tokens: u32,
) -> Body {
    let session = conversation.session();
    let model = session.model.name.as_str();
    let profile = conversation.profile();
    let (json, prompt_cache_key) = match wire {
        Wire::Anthropic => (anthropic::body(pieces, model, max_tokens), None),
        Wire::OpenaiResponses | Wire::OpenaiChat => {
            let key = openai::cache_key(pieces);
            let settings = openai::Settings {
                model,
                max_tokens,
                key: &key,
                retention: profile
                    .model(model)
                    .and_then(|entry| entry.retention.as_deref()),
            };
            let json = if wire == Wire::OpenaiResponses {
                openai::responses(pieces, &settings)
            } else {
                openai::chat(pieces, &settings)
            };
            (json, Some(key))
        }
    };
    let mut warnings = Vec::new();
    let last = pieces
        .iter()
        .rev()
        .find_map(|placed| placed.piece.speaker());
    if last == Some(pieces::Speaker::Assistant) {
        warnings.push(
            "the request ends with the model's own words, which a provider reads as the start of its reply: a turn nobody asked for needs a note or a message to answer".to_string(),
        );
    }
    Body {
        wire,
        json,
        record: BodyRecord {
            breakpoints: pieces
                .iter()
                .filter_map(|placed| placed.cache.clone())
                .map(|(after, lifetime)| Marked { after, lifetime })
                .collect(),
            tokens: tokens(wire, pieces),
            tools: advertised.iter().map(|tool| tool.name.clone()).collect(),
            undefined_tools,
            prompt_cache_key,
            warnings,
        },
    }
}

/// The definitions to advertise, in the host's order, the eagerly loaded
/// deferred ones after the rest; and the session's tools nothing defines.
fn advertised<G: Gate>(
    conversation: &Composer<'_, G>,
    tools: &[ToolDefinition],
) -> (Vec<ToolDefinition>, Vec<String>) {
    let session = &conversation.session().tools;
    let loaded: Vec<String> = conversation
        .preloaded()
        .iter()
        .filter(|item| item.kind == OpeningKind::LoadTools)
        .filter_map(|item| item.call.as_ref()?.input.get("tools")?.as_array().cloned())
        .flatten()
        .filter_map(|name| name.as_str().map(str::to_string))
        .collect();
    let offered = |tool: &&ToolDefinition| session.contains(&tool.name);
    let mut advertised: Vec<ToolDefinition> = tools
        .iter()
        .filter(offered)
        .filter(|tool| !tool.deferred)
        .cloned()
        .collect();
    advertised.extend(
        tools
            .iter()
            .filter(offered)
            .filter(|tool| tool.deferred && loaded.contains(&tool.name))
            .cloned(),
    );
    let undefined = session
        .iter()
        .filter(|name| !tools.iter().any(|tool| &tool.name == *name))
        .cloned()
        .collect();
    (advertised, undefined)
}

/// The body's input tokens, with the provider's tokenizer where it is
/// public (OpenAI's o200k); Anthropic publishes none, so its count is an
/// o200k estimate and says so.
fn tokens(wire: Wire, pieces: &[pieces::Placed]) -> Tokens {
    let tokenizer = TokenizerKind::O200k;
    let input = pieces
        .iter()
        .map(|placed| tokenizer.count(&placed.piece.text()) as u64)
        .sum();
    let (exact, how) = match wire {
        Wire::Anthropic => (
            false,
            "estimated with o200k: Anthropic publishes no tokenizer for its current models (its token-counting endpoint gives the exact figure); Claude's tokenizers are known to count more tokens than o200k for the same text, so read it as a floor".to_string(),
        ),
        Wire::OpenaiResponses | Wire::OpenaiChat => (
            true,
            "counted with o200k, the tokenizer of OpenAI's GPT-4o and GPT-5 models, over the text the model reads; the few tokens of framing the API adds per message are not counted".to_string(),
        ),
    };
    Tokens {
        input,
        tokenizer,
        exact,
        how,
    }
}

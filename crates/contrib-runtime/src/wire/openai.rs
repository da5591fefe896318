//! OpenAI's two wires: the Responses API (`instructions` and `input`
//! items, `function_call` and `function_call_output` pairs) and Chat
//! Completions (a system message, `tool_calls` answered by `tool`
//! messages).
//!
//! OpenAI caches every long enough prefix by itself; what a request
//! chooses is which cache it meets (`prompt_cache_key`: one key per agent
//! prefix, so every conversation of an agent meets the same one), how long
//! entries are kept where the model requires a retention (`gpt-5.5` takes
//! only `24h`), and on models with explicit breakpoints (GPT-5.6 and later)
//! where they fall: `prompt_cache_breakpoint` on content blocks, at most
//! four, with `prompt_cache_options`. A profile whose lifetimes are
//! OpenAI's (`30m`, `12h`) and whose caching is explicit gets them.

use serde_json::{json, Map, Value};

use super::pieces::{Piece, Placed, Speaker};
use super::ToolDefinition;
use crate::layout::Segment;

/// What every OpenAI body carries besides its pieces.
pub(super) struct Settings<'a> {
    pub model: &'a str,
    pub max_tokens: u32,
    pub key: &'a str,
    /// `prompt_cache_retention`, where the model requires one.
    pub retention: Option<&'a str>,
}

/// The lifetimes OpenAI's explicit breakpoints take.
const TTLS: [&str; 2] = ["30m", "12h"];

/// The key every conversation of one agent shares: a digest of the agent
/// prefix (tool definitions, the platform and agent parts, eager loads),
/// so a different prefix never shares a key with this one.
pub(super) fn cache_key(pieces: &[Placed]) -> String {
    let mut hasher = blake3::Hasher::new();
    for placed in pieces
        .iter()
        .take_while(|placed| placed.segment == Segment::Agent)
    {
        let text = placed.piece.text();
        hasher.update(&(text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    }
    format!("contrib-agent-{}", &hasher.finalize().to_hex()[..32])
}

/// The body for `client.responses.create(**body)`.
pub(super) fn responses(pieces: &[Placed], settings: &Settings<'_>) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(settings.model));
    let explicit = explicit_breakpoints(pieces);
    let mut input = Vec::new();
    let system = system(pieces);
    if explicit && !system.is_empty() {
        // Instructions are one string: a breakpoint inside them needs the
        // system text as a message of content blocks instead.
        let content: Vec<Value> = system.iter().map(|placed| input_text(placed)).collect();
        input.push(json!({ "type": "message", "role": "developer", "content": content }));
    } else if !system.is_empty() {
        let text: String = system.iter().map(|placed| placed.piece.text()).collect();
        body.insert("instructions".into(), json!(text));
    }
    let mut open: Option<(Speaker, Vec<Value>)> = None;
    let flush = |open: &mut Option<(Speaker, Vec<Value>)>, input: &mut Vec<Value>| {
        if let Some((speaker, content)) = open.take() {
            input.push(match speaker {
                Speaker::User => json!({ "type": "message", "role": "user", "content": content }),
                // Earlier replies go back as the assistant's text.
                Speaker::Assistant => {
                    let text: String = content
                        .iter()
                        .filter_map(|block| block.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n\n");
                    json!({ "type": "message", "role": "assistant", "content": text })
                }
            });
        }
    };
    for placed in pieces {
        match &placed.piece {
            Piece::Tool(_) | Piece::System(_) => {}
            Piece::Text(_, text) if text.is_empty() => {}
            Piece::Text(speaker, _) => match &mut open {
                Some((current, content)) if current == speaker => content.push(input_text(placed)),
                _ => {
                    flush(&mut open, &mut input);
                    open = Some((*speaker, vec![input_text(placed)]));
                }
            },
            Piece::Call {
                id,
                name,
                input: arguments,
            } => {
                flush(&mut open, &mut input);
                input.push(json!({
                    "type": "function_call",
                    "call_id": id,
                    "name": name,
                    "arguments": arguments.to_string(),
                }));
            }
            Piece::Result { id, output, .. } => {
                flush(&mut open, &mut input);
                input.push(json!({
                    "type": "function_call_output",
                    "call_id": id,
                    "output": output,
                }));
            }
        }
    }
    flush(&mut open, &mut input);
    body.insert("input".into(), Value::Array(input));
    finish(
        &mut body,
        settings,
        explicit,
        "max_output_tokens",
        tools(pieces, |tool| {
            json!({
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.input_schema,
                "strict": false,
            })
        }),
    );
    Value::Object(body)
}

/// The body for `client.chat.completions.create(**body)`.
pub(super) fn chat(pieces: &[Placed], settings: &Settings<'_>) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(settings.model));
    let explicit = explicit_breakpoints(pieces);
    let mut messages = Vec::new();
    let system = system(pieces);
    if !system.is_empty() {
        let content = if explicit {
            Value::Array(system.iter().map(|placed| chat_text(placed)).collect())
        } else {
            json!(system
                .iter()
                .map(|placed| placed.piece.text())
                .collect::<String>())
        };
        messages.push(json!({ "role": "system", "content": content }));
    }
    for placed in pieces {
        match &placed.piece {
            Piece::Tool(_) | Piece::System(_) => {}
            Piece::Text(_, text) if text.is_empty() => {}
            Piece::Text(Speaker::User, _) => match messages.last_mut() {
                Some(last) if is_open(last, "user") => push_part(last, chat_text(placed)),
                _ => messages.push(json!({ "role": "user", "content": [chat_text(placed)] })),
            },
            Piece::Text(Speaker::Assistant, text) => {
                messages.push(json!({ "role": "assistant", "content": text }));
            }
            Piece::Call { id, name, input } => {
                let call = json!({
                    "id": id,
                    "type": "function",
                    "function": { "name": name, "arguments": input.to_string() },
                });
                match messages.last_mut() {
                    // The words and the calls of one reply are one message.
                    Some(last) if is_open(last, "assistant") => {
                        if let Some(object) = last.as_object_mut() {
                            let calls = object.entry("tool_calls").or_insert_with(|| json!([]));
                            if let Some(calls) = calls.as_array_mut() {
                                calls.push(call);
                            }
                        }
                    }
                    _ => messages.push(json!({
                        "role": "assistant",
                        "content": null,
                        "tool_calls": [call],
                    })),
                }
            }
            Piece::Result { id, output, .. } => {
                messages.push(json!({ "role": "tool", "tool_call_id": id, "content": output }));
            }
        }
    }
    body.insert("messages".into(), Value::Array(messages));
    finish(
        &mut body,
        settings,
        explicit,
        "max_completion_tokens",
        tools(pieces, |tool| {
            json!({
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.input_schema,
                },
            })
        }),
    );
    Value::Object(body)
}

/// Whether `message` is the last message and has `role`, so that a piece
/// of the same speaker joins it.
fn is_open(message: &Value, role: &str) -> bool {
    message.get("role").and_then(Value::as_str) == Some(role)
        && (role != "assistant" || message.get("content").is_some_and(Value::is_string))
}

fn push_part(message: &mut Value, part: Value) {
    if let Some(parts) = message.get_mut("content").and_then(Value::as_array_mut) {
        parts.push(part);
    }
}

/// Whether the breakpoints placed are ones OpenAI takes: explicit, with
/// its lifetimes.
fn explicit_breakpoints(pieces: &[Placed]) -> bool {
    let marked: Vec<&str> = pieces
        .iter()
        .filter_map(|placed| placed.cache.as_ref().map(|(_, ttl)| ttl.as_str()))
        .collect();
    !marked.is_empty() && marked.iter().all(|ttl| TTLS.contains(ttl))
}

fn breakpoint(placed: &Placed) -> Option<Value> {
    let (_, ttl) = placed.cache.as_ref()?;
    TTLS.contains(&ttl.as_str())
        .then(|| json!({ "mode": "explicit", "ttl": ttl }))
}

/// A text block of `kind` (`input_text` on Responses, `text` on Chat),
/// with its breakpoint where one falls on it.
fn text_block(kind: &str, placed: &Placed) -> Value {
    let mut block = Map::new();
    block.insert("type".into(), json!(kind));
    block.insert("text".into(), json!(placed.piece.text()));
    if let Some(mark) = breakpoint(placed) {
        block.insert("prompt_cache_breakpoint".into(), mark);
    }
    Value::Object(block)
}

fn input_text(placed: &Placed) -> Value {
    text_block("input_text", placed)
}

fn chat_text(placed: &Placed) -> Value {
    text_block("text", placed)
}

/// The system text's pieces.
fn system(pieces: &[Placed]) -> Vec<&Placed> {
    pieces
        .iter()
        .filter(|placed| matches!(placed.piece, Piece::System(_)))
        .collect()
}

/// The tool definitions, each as `spell` writes it for the wire.
fn tools(pieces: &[Placed], spell: impl Fn(&ToolDefinition) -> Value) -> Vec<Value> {
    pieces
        .iter()
        .filter_map(|placed| match &placed.piece {
            Piece::Tool(tool) => Some(spell(tool)),
            _ => None,
        })
        .collect()
}

/// What every OpenAI body ends with: its tools, its reply length under
/// `length_key`, and its cache fields.
fn finish(
    body: &mut Map<String, Value>,
    settings: &Settings<'_>,
    explicit: bool,
    length_key: &str,
    tools: Vec<Value>,
) {
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    body.insert(length_key.into(), json!(settings.max_tokens));
    cache_fields(body, settings, explicit);
}

fn cache_fields(body: &mut Map<String, Value>, settings: &Settings<'_>, explicit: bool) {
    body.insert("prompt_cache_key".into(), json!(settings.key));
    if let Some(retention) = settings.retention {
        body.insert("prompt_cache_retention".into(), json!(retention));
    }
    if explicit {
        body.insert("prompt_cache_options".into(), json!({ "mode": "explicit" }));
    }
}

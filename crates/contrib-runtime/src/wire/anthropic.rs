//! The Anthropic Messages API: `tools`, `system` as text blocks, `messages`
//! with roles alternating, `cache_control` on the blocks where breakpoints
//! fall.
//!
//! The API takes the two roles in turn and each `tool_use` answered by a
//! `tool_result` in the next user message, results first; consecutive
//! pieces of one role are therefore one message's blocks. A breakpoint is
//! `{"type": "ephemeral"}`, with `"ttl": "1h"` where the profile chose the
//! hour (five minutes is the API's default, so it is not spelled out).

use serde_json::{json, Map, Value};

use super::pieces::{Piece, Placed, Speaker};

/// The body for `client.messages.create(**body)`.
pub(super) fn body(pieces: &[Placed], model: &str, max_tokens: u32) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(max_tokens));
    let tools: Vec<Value> = pieces.iter().filter_map(tool).collect();
    let system: Vec<Value> = pieces.iter().filter_map(system_block).collect();
    if !system.is_empty() {
        body.insert("system".into(), Value::Array(system));
    }
    body.insert("messages".into(), Value::Array(messages(pieces)));
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    Value::Object(body)
}

fn tool(placed: &Placed) -> Option<Value> {
    let Piece::Tool(tool) = &placed.piece else {
        return None;
    };
    let mut value = Map::new();
    value.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        value.insert("description".into(), json!(tool.description));
    }
    value.insert("input_schema".into(), tool.input_schema.clone());
    Some(cached(value, placed))
}

fn system_block(placed: &Placed) -> Option<Value> {
    let Piece::System(text) = &placed.piece else {
        return None;
    };
    Some(cached(text_block(text), placed))
}

/// Messages with roles alternating: each run of one speaker's pieces is
/// one message, and a user message's tool results come before its text.
fn messages(pieces: &[Placed]) -> Vec<Value> {
    let mut messages: Vec<(Speaker, Vec<Value>, Vec<Value>)> = Vec::new();
    for placed in pieces {
        let Some(speaker) = placed.piece.speaker() else {
            continue;
        };
        let Some(block) = content_block(placed) else {
            continue;
        };
        let results_first = matches!(placed.piece, Piece::Result { .. });
        match messages.last_mut() {
            Some((last, results, blocks)) if *last == speaker => {
                if results_first && blocks.is_empty() {
                    results.push(block);
                } else {
                    blocks.push(block);
                }
            }
            _ => {
                let (results, blocks) = if results_first {
                    (vec![block], Vec::new())
                } else {
                    (Vec::new(), vec![block])
                };
                messages.push((speaker, results, blocks));
            }
        }
    }
    messages
        .into_iter()
        .map(|(speaker, mut results, blocks)| {
            results.extend(blocks);
            let role = match speaker {
                Speaker::User => "user",
                Speaker::Assistant => "assistant",
            };
            json!({ "role": role, "content": results })
        })
        .collect()
}

fn content_block(placed: &Placed) -> Option<Value> {
    let block = match &placed.piece {
        Piece::Tool(_) | Piece::System(_) => return None,
        // The API refuses empty text blocks.
        Piece::Text(_, text) if text.is_empty() => return None,
        Piece::Text(_, text) => text_block(text),
        Piece::Call { id, name, input } => {
            let mut block = Map::new();
            block.insert("type".into(), json!("tool_use"));
            block.insert("id".into(), json!(id));
            block.insert("name".into(), json!(name));
            block.insert("input".into(), input.clone());
            block
        }
        Piece::Result {
            id,
            output,
            is_error,
        } => {
            let mut block = Map::new();
            block.insert("type".into(), json!("tool_result"));
            block.insert("tool_use_id".into(), json!(id));
            block.insert("content".into(), json!(output));
            if *is_error {
                block.insert("is_error".into(), json!(true));
            }
            block
        }
    };
    Some(cached(block, placed))
}

fn text_block(text: &str) -> Map<String, Value> {
    let mut block = Map::new();
    block.insert("type".into(), json!("text"));
    block.insert("text".into(), json!(text));
    block
}

/// The block with its breakpoint, where one falls on it.
fn cached(mut block: Map<String, Value>, placed: &Placed) -> Value {
    if let Some((_, lifetime)) = &placed.cache {
        let control = if lifetime == "1h" {
            json!({ "type": "ephemeral", "ttl": "1h" })
        } else {
            json!({ "type": "ephemeral" })
        };
        block.insert("cache_control".into(), control);
    }
    Value::Object(block)
}

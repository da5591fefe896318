//! `compose --wire`: each request's body exactly as the provider takes it,
//! one JSON line per request, `{"turn": N, "request": M, "body": {…}}`,
//! with what the body holds beside it under `record`.

use std::path::Path;

use serde::Serialize;

use super::script::{Round, Step};
use crate::runtime::wire::{self, BodyRecord, Said, ToolDefinition, Transcript, Wire};
use crate::runtime::{Composer, Gate, Request, Turn};

/// The bodies of a conversation, as it goes.
pub(super) struct Bodies {
    wire: Wire,
    /// The host's tool definitions, from `--tools`.
    tools: Vec<ToolDefinition>,
    transcript: Transcript,
    lines: Vec<String>,
}

#[derive(Serialize)]
struct Line<'a> {
    turn: u32,
    request: u32,
    body: &'a serde_json::Value,
    record: &'a BodyRecord,
}

impl Bodies {
    /// Bodies on `wire`, with the tool definitions in `tools` (a JSON
    /// array of `{name, description, input_schema, deferred}`), if given.
    pub(super) fn new(wire: Wire, tools: Option<&Path>) -> Result<Bodies, String> {
        let tools = match tools {
            None => Vec::new(),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|error| format!("cannot read `{}`: {error}", path.display()))?;
                serde_json::from_str(&text).map_err(|error| {
                    format!(
                        "`{}`: {error}; the tools file is a JSON array of {{\"name\", \"description\", \"input_schema\"}} objects",
                        path.display()
                    )
                })?
            }
        };
        Ok(Bodies {
            wire,
            tools,
            transcript: Transcript::new(),
            lines: Vec::new(),
        })
    }

    /// A turn begins: a compaction first, then the turn's notes and the
    /// person's message.
    pub(super) fn begin(&mut self, turn: &Turn, step: &Step) {
        if step.input.compaction {
            let kept = step
                .recap
                .iter()
                .map(|recap| Said::Note {
                    contributor: "host".to_string(),
                    kind: "recap".to_string(),
                    text: recap.clone(),
                })
                .collect();
            self.transcript.compact(kept);
        }
        self.transcript.begin(turn, step.prompt.as_deref());
    }

    /// The model's round before the next request.
    pub(super) fn round(&mut self, round: &Round) {
        self.transcript
            .model(round.said.clone(), round.calls.clone());
        if !round.results.is_empty() {
            self.transcript.results(round.results.clone());
        }
    }

    /// A request: its facts stored, its body written.
    pub(super) fn request<G: Gate>(
        &mut self,
        conversation: &Composer<'_, G>,
        request: &Request,
    ) -> Result<(), String> {
        self.transcript.request(request);
        let tools = self.definitions(&conversation.session().tools);
        let body = wire::body(self.wire, conversation, &self.transcript, &tools);
        let line = Line {
            turn: request.turn,
            request: request.number,
            body: &body.json,
            record: &body.record,
        };
        let text = serde_json::to_string(&line)
            .map_err(|error| format!("cannot write a request body: {error}"))?;
        self.lines.push(text);
        Ok(())
    }

    /// The turn ends with the model's reply.
    pub(super) fn end(&mut self, step: &Step) {
        if let Some(reply) = &step.reply {
            self.transcript.model(reply.clone(), Vec::new());
        }
    }

    /// The JSON lines, one per request.
    pub(super) fn finish(self) -> String {
        self.lines.join("\n")
    }

    /// The host's definitions, and for a tool the session lists that none
    /// defines, the least a provider takes: its name and an object schema.
    fn definitions(&self, session_tools: &[String]) -> Vec<ToolDefinition> {
        let mut tools = self.tools.clone();
        for name in session_tools {
            if !tools.iter().any(|tool| &tool.name == name) {
                tools.push(ToolDefinition {
                    name: name.clone(),
                    description: String::new(),
                    input_schema: serde_json::json!({ "type": "object", "properties": {} }),
                    deferred: false,
                });
            }
        }
        tools
    }
}

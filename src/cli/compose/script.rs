//! The turns file: the host's script for `compose`, turn by turn.
//!
//! Each `[[turn]]` gives when it is taken and what changed (a
//! [`TurnInput`]), what reached the host before it (approvals,
//! withdrawals), and what was said: the person's `prompt`, and the model's
//! final `reply`. Each `[[turn.request]]` is one more request in the turn,
//! after a round in which the model `said` something and made `calls` and
//! the host's tools returned `results`:
//!
//! ```toml
//! [[turn]]
//! at = "2026-03-02T09:01:00Z"
//! prompt = "Is the change in src/lib.rs safe to ship?"
//! reply = "Yes: it is covered by the tests it adds."
//!
//! [[turn.request]]
//! at = "2026-03-02T09:01:20Z"
//! said = "Let me read it."
//! calls = [{ id = "call_1", name = "read_object", input = { path = "src/lib.rs" } }]
//! results = [{ id = "call_1", output = "pub fn add(a: i32, b: i32) -> i32 { a + b }" }]
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::super::installed::{unapproved_bundles, Events};
use crate::bundle::Bundle;
use crate::runtime::wire::{ToolCall, ToolResult};
use crate::runtime::{RequestInput, TurnInput};

/// One turn of a turns file.
pub(super) struct Step {
    pub input: TurnInput,
    /// What reached the host before the turn: approvals, withdrawals.
    pub events: Events,
    /// Bundles installed before the turn.
    pub install: Option<Vec<Bundle>>,
    /// The requests after the turn's first, each after a round.
    pub requests: Vec<(Round, RequestInput)>,
    /// The person's message.
    pub prompt: Option<String>,
    /// The model's last reply, which ends the turn.
    pub reply: Option<String>,
    /// At a compaction, the recap that replaces the conversation so far.
    pub recap: Option<String>,
}

impl Step {
    /// A turn answering a person at `at`, with nothing else said.
    pub(super) fn reply_at(at: crate::runtime::Timestamp) -> Step {
        Step {
            input: TurnInput::reply_at(at),
            events: Events::default(),
            install: None,
            requests: Vec::new(),
            prompt: None,
            reply: None,
            recap: None,
        }
    }
}

/// A round of a turn: what the model said and called, and what the tools
/// returned, before the next request.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Round {
    #[serde(default)]
    pub said: String,
    #[serde(default)]
    pub calls: Vec<ToolCall>,
    #[serde(default)]
    pub results: Vec<ToolResult>,
}

const ROUND_KEYS: [&str; 3] = ["said", "calls", "results"];

impl Round {
    /// The round's keys, taken out of a request's table.
    fn take(request: &mut toml::Table) -> Result<Round, String> {
        let mut round = toml::Table::new();
        for key in ROUND_KEYS {
            if let Some(value) = request.remove(key) {
                round.insert(key.to_string(), value);
            }
        }
        round
            .try_into()
            .map_err(|error: toml::de::Error| error.message().to_string())
    }
}

/// A string the turn's table may hold under `key`.
fn string(table: &mut toml::Table, key: &str) -> Result<Option<String>, String> {
    match table.remove(key) {
        None => Ok(None),
        Some(toml::Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(format!("`{key}` is a string")),
    }
}

/// The turns of a turns file, with what reached the host before each, the
/// bundles each installs (only when composing bundles nobody installed: a
/// workspace installs through its lock) and the requests it makes after
/// its first; and its `[answers]`, what the host's read tools answer by
/// tool name.
pub(super) fn read_steps(
    path: &Path,
    unapproved: bool,
) -> Result<(Vec<Step>, BTreeMap<String, String>), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read `{}`: {error}", path.display()))?;
    let located = |error: toml::de::Error| format!("`{}`: {}", path.display(), error.message());
    let mut file: toml::Table = toml::from_str(&text).map_err(located)?;
    let turns = match file.remove("turn") {
        None => Vec::new(),
        Some(toml::Value::Array(turns)) => turns,
        Some(_) => {
            return Err(format!(
                "`{}`: `turn` is a list of `[[turn]]` tables",
                path.display()
            ))
        }
    };
    let answers = match file.remove("answers") {
        None => BTreeMap::new(),
        Some(answers) => answers
            .try_into::<BTreeMap<String, String>>()
            .map_err(|error| {
                format!(
                    "`{}`: `answers` maps a tool's name to the text it answers: {}",
                    path.display(),
                    error.message()
                )
            })?,
    };
    if let Some(key) = file.keys().next() {
        return Err(format!(
            "`{}`: unknown key `{key}`; a turns file holds `[answers]` and `[[turn]]` tables",
            path.display()
        ));
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let steps = turns
        .into_iter()
        .enumerate()
        .map(|(index, turn)| {
            let at =
                |message: String| format!("`{}`, turn {}: {message}", path.display(), index + 1);
            let toml::Value::Table(mut table) = turn else {
                return Err(at("a turn is a table".to_string()));
            };
            let events = Events::take(&mut table).map_err(&at)?;
            let install = match table.remove("install") {
                Some(toml::Value::String(_)) if !unapproved => {
                    return Err(at(
                        "`install` loads bundles nobody approved; with `--workspace`, install with `contrib install` between runs".to_string(),
                    ))
                }
                Some(toml::Value::String(folder)) => {
                    Some(unapproved_bundles(&base.join(folder)).map_err(&at)?)
                }
                Some(_) => return Err(at("`install` is a folder of bundles".to_string())),
                None => None,
            };
            let requests = match table.remove("request") {
                Some(toml::Value::Array(requests)) => requests
                    .into_iter()
                    .map(|request| {
                        let toml::Value::Table(mut request) = request else {
                            return Err(at("a request is a table".to_string()));
                        };
                        let round = Round::take(&mut request)
                            .map_err(|error| at(format!("`request`: {error}")))?;
                        let input = toml::Value::Table(request)
                            .try_into::<RequestInput>()
                            .map_err(|error| at(format!("`request`: {}", error.message())))?;
                        Ok((round, input))
                    })
                    .collect::<Result<Vec<_>, String>>()?,
                Some(_) => return Err(at("`request` is a list of `[[turn.request]]` tables".to_string())),
                None => Vec::new(),
            };
            let prompt = string(&mut table, "prompt").map_err(&at)?;
            let reply = string(&mut table, "reply").map_err(&at)?;
            let recap = string(&mut table, "recap").map_err(&at)?;
            let input = toml::Value::Table(table)
                .try_into::<TurnInput>()
                .map_err(|error| at(error.message().to_string()))?;
            Ok(Step {
                input,
                events,
                install,
                requests,
                prompt,
                reply,
                recap,
            })
        })
        .collect::<Result<Vec<Step>, String>>()?;
    Ok((steps, answers))
}

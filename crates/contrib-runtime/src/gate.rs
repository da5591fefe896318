//! The gate: how a contributor's tool calls reach the host.
//!
//! Eager runs (at the conversation opening) and prefaces (before each turn)
//! call tools with nobody asking. The runtime never calls a tool itself: it
//! hands each call to a [`Gate`] the host implements, which dispatches
//! read-only tools, checks egress and gating, and answers or refuses. The
//! request names the contributor that asked (`plugin@version/id`), so the
//! host can log and attribute it, and carries the effect and gating the
//! person approved in the bundle's permissions, so the host can hold the
//! call to them.
//!
//! ```
//! use contrib_runtime::{CliGate, Effect, Gate, GateOutcome, GateRequest, Timestamp};
//!
//! let request = GateRequest {
//!     contributor: "acme/clock@2.0.0/started-at".into(),
//!     tool: "get_current_time".into(),
//!     arguments: Default::default(),
//!     effect: Effect::Read,
//!     gated: false,
//!     at: Timestamp::parse("2026-03-02T09:00:00+01:00").unwrap(),
//! };
//! assert_eq!(
//!     CliGate.call(&request),
//!     GateOutcome::Ran { output: "2026-03-02T09:00:00+01:00".into() }
//! );
//! let write = GateRequest { tool: "deploy".into(), effect: Effect::Write, ..request };
//! assert!(matches!(CliGate.call(&write), GateOutcome::Refused { .. }));
//! ```

use std::collections::BTreeMap;

use serde::Serialize;

use super::time::Timestamp;
use contrib_core::config::Effect;
use contrib_core::vocabulary::Value;

/// One tool call a contributor makes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateRequest {
    /// `plugin@version/id`: whose call this is. Never the model's.
    pub contributor: String,
    /// The tool called, by name.
    pub tool: String,
    /// The call's arguments exactly as the contributor's bundle declares
    /// them, by argument name; empty for a call that takes none.
    pub arguments: BTreeMap<String, Value>,
    /// The tool's effect as the bundle's permissions record it.
    pub effect: Effect,
    /// Whether the tool waits for a person's approval.
    pub gated: bool,
    /// When the call is made, in the person's offset.
    pub at: Timestamp,
}

/// What became of a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum GateOutcome {
    /// The tool ran: its output becomes the eager run's result or the
    /// preface's retrieved content, if it fits the contributor's budget.
    Ran {
        /// What the tool returned, as text.
        output: String,
    },
    /// The call will not run: the contributor is left out and the turn's
    /// record says why.
    Refused {
        /// Why, in words the record quotes.
        reason: String,
    },
    /// It waits for a person's approval: the runtime records it pending and
    /// asks again before each turn, until it runs or is refused.
    Pending {
        /// Why it waits, in words the record quotes.
        reason: String,
    },
}

/// The host's side of contributor tool calls.
pub trait Gate {
    /// Decides one contributor call and, if it runs, runs it. Called while
    /// a conversation composes (the opening's eager runs; before each turn,
    /// prefaces and runs still waiting), so it answers at once; a call it
    /// cannot decide yet is [`GateOutcome::Pending`].
    fn call(&mut self, request: &GateRequest) -> GateOutcome;
}

impl<G: Gate + ?Sized> Gate for &mut G {
    fn call(&mut self, request: &GateRequest) -> GateOutcome {
        (**self).call(request)
    }
}

impl<G: Gate + ?Sized> Gate for Box<G> {
    fn call(&mut self, request: &GateRequest) -> GateOutcome {
        (**self).call(request)
    }
}

/// The gate `contrib compose` and `contrib simulate` use: no host behind
/// it, so it answers the one tool it can answer honestly, echoes other
/// read calls so the layout shows where their results go, and refuses what
/// it could not do safely — writes, and gated tools, whose approval it has
/// nobody to ask for.
#[derive(Debug, Clone, Copy, Default)]
pub struct CliGate;

impl Gate for CliGate {
    fn call(&mut self, request: &GateRequest) -> GateOutcome {
        if request.effect == Effect::Write {
            return GateOutcome::Refused {
                reason: format!(
                    "`{}` writes, and contributor calls may only read",
                    request.tool
                ),
            };
        }
        if request.gated {
            return GateOutcome::Refused {
                reason: format!(
                    "`{}` is gated and there is nobody here to approve it",
                    request.tool
                ),
            };
        }
        let output = match request.tool.as_str() {
            "get_current_time" => request.at.to_string(),
            _ => format!(
                "({} {}: the CLI has no host to run it)",
                request.tool,
                serde_json::to_string(&request.arguments).unwrap_or_default()
            ),
        };
        GateOutcome::Ran { output }
    }
}

/// The command line's gate with the answers a script gives: a read the
/// script answers returns that text, as a host's tool would; the rest is
/// [`CliGate`]'s, writes and gated tools refused among it. `contrib
/// compose` builds one from a turns file's `[answers]`, so what retrieved
/// content becomes in its envelope shows in the layout.
#[derive(Debug, Clone, Default)]
pub struct ScriptedGate {
    /// By tool name.
    pub answers: BTreeMap<String, String>,
}

impl Gate for ScriptedGate {
    fn call(&mut self, request: &GateRequest) -> GateOutcome {
        match (CliGate.call(request), self.answers.get(&request.tool)) {
            (GateOutcome::Ran { .. }, Some(answer)) => GateOutcome::Ran {
                output: answer.clone(),
            },
            (outcome, _) => outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(tool: &str, effect: Effect) -> GateRequest {
        GateRequest {
            contributor: "acme/notes@1.0.0/notes".into(),
            tool: tool.into(),
            arguments: BTreeMap::new(),
            effect,
            gated: false,
            at: Timestamp::parse("2026-03-02T09:00:00Z").unwrap(),
        }
    }

    #[test]
    fn a_script_answers_reads_and_never_makes_a_write_run() {
        let mut gate = ScriptedGate {
            answers: BTreeMap::from([
                ("read_memory".to_string(), "notes".to_string()),
                ("deploy".to_string(), "done".to_string()),
            ]),
        };
        assert_eq!(
            gate.call(&request("read_memory", Effect::Read)),
            GateOutcome::Ran {
                output: "notes".into()
            }
        );
        assert!(matches!(
            gate.call(&request("deploy", Effect::Write)),
            GateOutcome::Refused { .. }
        ));
        assert_eq!(
            gate.call(&request("get_current_time", Effect::Read)),
            GateOutcome::Ran {
                output: "2026-03-02T09:00:00Z".into()
            }
        );
    }
}

//! The host's gate and reader, as JavaScript functions the runtime calls.
//!
//! The runtime calls them synchronously, on the JavaScript thread, from
//! inside a method of the conversation (`start`, `turn`, `request`). The
//! method lends them its `Env` for the call ([`with_env`]); a function that
//! throws answers "refused" (gate) or "none" (reader) to the runtime, and
//! its exception is thrown again from the method once the runtime returns.

use std::cell::RefCell;

use contrib_runtime::{CliGate, Gate, GateOutcome, GateRequest, Reader};
use napi::bindgen_prelude::{FnArgs, Function, FunctionRef};
use napi::{Env, Error, Result, Status};
use serde_json::Value;

thread_local! {
    /// The `Env` of the method running now, if any.
    static ENV: RefCell<Option<Env>> = const { RefCell::new(None) };
    /// The first exception a callback threw during it.
    static THROWN: RefCell<Option<Error>> = const { RefCell::new(None) };
}

/// Runs `work` with `env` lent to the callbacks; fails with the first
/// exception one of them threw.
pub(crate) fn with_env<T>(env: Env, work: impl FnOnce() -> T) -> Result<T> {
    let outer = ENV.with(|slot| slot.replace(Some(env)));
    let value = work();
    ENV.with(|slot| *slot.borrow_mut() = outer);
    match THROWN.with(|slot| slot.borrow_mut().take()) {
        Some(error) => Err(error),
        None => Ok(value),
    }
}

fn keep_first(error: Error) {
    THROWN.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(error);
        }
    });
}

fn current_env() -> Result<Env> {
    ENV.with(|slot| *slot.borrow()).ok_or_else(|| {
        Error::new(
            Status::GenericFailure,
            "the runtime called the host outside a conversation's method",
        )
    })
}

/// The host's gate: `(request) => outcome`. Without one, the command
/// line's gate (`CliGate`), as `contrib compose` answers.
pub(crate) struct JsGate(pub(crate) Option<FunctionRef<Value, Value>>);

impl Gate for JsGate {
    fn call(&mut self, request: &GateRequest) -> GateOutcome {
        let Some(function) = &self.0 else {
            return CliGate.call(request);
        };
        match ask_gate(function, request) {
            Ok(outcome) => outcome,
            Err(error) => {
                keep_first(error);
                GateOutcome::Refused {
                    reason: "the host's gate failed".to_string(),
                }
            }
        }
    }
}

fn ask_gate(function: &FunctionRef<Value, Value>, request: &GateRequest) -> Result<GateOutcome> {
    let env = current_env()?;
    let argument = serde_json::to_value(request)
        .map_err(|error| Error::new(Status::GenericFailure, error.to_string()))?;
    let answer = function.borrow_back(&env)?.call(argument)?;
    outcome(&answer)
}

/// `{ outcome: "ran", output }`, `{ outcome: "refused", reason }`,
/// `{ outcome: "pending", reason }`, or a string: what the tool returned.
fn outcome(answer: &Value) -> Result<GateOutcome> {
    if let Value::String(output) = answer {
        return Ok(GateOutcome::Ran {
            output: output.clone(),
        });
    }
    let text = |key: &str| answer.get(key).and_then(Value::as_str).map(str::to_string);
    let outcome = match answer.get("outcome").and_then(Value::as_str) {
        Some("ran") => text("output").map(|output| GateOutcome::Ran { output }),
        Some("refused") => text("reason").map(|reason| GateOutcome::Refused { reason }),
        Some("pending") => text("reason").map(|reason| GateOutcome::Pending { reason }),
        _ => None,
    };
    outcome.ok_or_else(|| {
        Error::new(
            Status::InvalidArg,
            format!(
                "the gate returned `{answer}`; it returns what the tool output (a string), \
                 or `{{ outcome: \"ran\", output }}`, `{{ outcome: \"refused\", reason }}`, \
                 `{{ outcome: \"pending\", reason }}`"
            ),
        )
    })
}

/// What the reader is called with: the skill, its version, the operation.
type ReaderArguments = FnArgs<(String, String, String)>;

/// The reader as the module receives it.
pub(crate) type ReaderFunction<'f> = Function<'f, ReaderArguments, Option<String>>;

/// The host's reader: `(skill, version, operation) => string | undefined`.
pub(crate) struct JsReader(pub(crate) FunctionRef<ReaderArguments, Option<String>>);

impl Reader for JsReader {
    fn operation(
        &mut self,
        skill: &str,
        version: &semver::Version,
        operation: &str,
    ) -> Option<String> {
        let read = || -> Result<Option<String>> {
            let env = current_env()?;
            let arguments = (
                skill.to_string(),
                version.to_string(),
                operation.to_string(),
            );
            self.0.borrow_back(&env)?.call(arguments.into())
        };
        read().unwrap_or_else(|error| {
            keep_first(error);
            None
        })
    }
}

//! What a bundle can carry exactly: integers within ±(2^53 − 1).
//!
//! Reported at check time, as the language's `limit-exceeded`, so that a
//! manifest that `check` and `preview` accept never becomes a bundle that
//! holds another number, or one that cannot be loaded (and, the loader
//! stopping at the first unloadable bundle, keeps a whole catalog from
//! composing). The bound belongs to the language; it sits here, beside
//! the checker, until lowering reads numbers with it.

use crate::codes::LIMIT_EXCEEDED;
use crate::diagnostic::Diagnostic;
use crate::ir::{ContributorBody, Plugin, Value};
use crate::limits::MAX_SAFE_INTEGER;
use crate::source::Span;

/// Every integer and duration of `plugin` beyond [`MAX_SAFE_INTEGER`].
pub fn check(plugin: &Plugin) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for contributor in &plugin.contributors {
        if let Some(call) = contributor.call() {
            for argument in call.arguments.values() {
                if let Some(number) = first_unsafe(&argument.value.value) {
                    out.push(too_large(
                        argument.value.span,
                        &number.to_string(),
                        "integer",
                    ));
                }
            }
        }
        if let ContributorBody::SystemMessage { condition, .. } = &contributor.body {
            if let Some(idle) = &condition.idle_over {
                if idle.value.seconds > MAX_SAFE_INTEGER {
                    out.push(too_large(
                        idle.span,
                        &idle.value.seconds.to_string(),
                        "duration in seconds",
                    ));
                }
            }
        }
    }
    out
}

/// The first integer in `value` (a list's included) that a bundle would
/// not carry exactly.
fn first_unsafe(value: &Value) -> Option<i64> {
    match value {
        Value::Integer(number) if number.unsigned_abs() > MAX_SAFE_INTEGER => Some(*number),
        Value::List(items) => items.iter().find_map(first_unsafe),
        _ => None,
    }
}

fn too_large(span: Span, number: &str, what: &str) -> Diagnostic {
    Diagnostic::new(
        &LIMIT_EXCEEDED,
        format!("this {what} is `{number}`, beyond ±{MAX_SAFE_INTEGER}, the largest a bundle carries exactly"),
    )
    .primary(span, "too large for a bundle")
    .help(format!(
        "bundles are JSON, whose numbers are exact only up to 2^53 − 1 ({MAX_SAFE_INTEGER}); use a smaller number, or a string if the tool takes one"
    ))
}

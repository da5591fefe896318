//! What the runtime refused, as the plain object the package's entry turns
//! into a `ContribError` subclass: `{ kind, code, message, diagnostics }`.
//!
//! Refusals cross as values rather than exceptions so that they keep their
//! diagnostics; an exception a host callback threw is thrown as it is.

use std::path::Path;

use contrib_core::diagnostic::Diagnostic;
use contrib_core::source::SourceFile;
use contrib_runtime::{Error, OpenError};
use napi::Status;
use serde_json::{json, Value};

/// A refusal of `kind` (the error class: `workspace`, `profile`, `resume`,
/// `session`, `log`) with its stable `code`.
pub(crate) fn failure(kind: &str, code: &str, message: impl Into<String>) -> Value {
    json!({ "kind": kind, "code": code, "message": message.into(), "diagnostics": [] })
}

/// The runtime's error, with the diagnostics of an invalid policy.
pub(crate) fn from_runtime(error: &Error) -> Value {
    let message = error.to_string();
    match error {
        Error::Workspace(open) => {
            let code = match open {
                OpenError::NotAWorkspace { .. } => "not-a-workspace",
                OpenError::Unreadable { .. } => "unreadable",
                OpenError::InvalidPolicy { .. } => "invalid-policy",
                OpenError::RequiredRefused { .. } => "required-refused",
                _ => "workspace",
            };
            let mut value = failure("workspace", code, message);
            if let OpenError::InvalidPolicy { path, diagnostics } = open {
                value["diagnostics"] = Value::Array(described(path, diagnostics));
            }
            value
        }
        Error::UnknownProfile { .. } => failure("profile", "unknown-profile", message),
        Error::Profiles { .. } => failure("profile", "unreadable-profiles", message),
        Error::Resume(_) => failure("resume", "unresumable", message),
        _ => failure("runtime", "runtime", message),
    }
}

/// Each diagnostic's code, name, severity, message, help and location
/// (the file, 1-based line and column, and byte offsets).
fn described(path: &Path, diagnostics: &[Diagnostic]) -> Vec<Value> {
    let source = std::fs::read_to_string(path)
        .ok()
        .map(|text| SourceFile::new(path.display().to_string(), text));
    diagnostics
        .iter()
        .map(|diagnostic| {
            let span = diagnostic.span();
            let position = source.as_ref().map(|source| source.position(span.start));
            json!({
                "code": diagnostic.rule.code,
                "name": diagnostic.rule.name,
                "severity": diagnostic.severity.as_str(),
                "message": diagnostic.message,
                "help": diagnostic.help,
                "location": {
                    "file": path.display().to_string(),
                    "line": position.map(|at| at.line),
                    "column": position.map(|at| at.column),
                    "start": span.start,
                    "end": span.end,
                },
            })
        })
        .collect()
}

/// A value the host passed that does not have the shape it should: thrown,
/// and turned into an `InputError` by the package's entry.
pub(crate) fn invalid(what: &str, error: impl std::fmt::Display) -> napi::Error {
    napi::Error::new(Status::InvalidArg, format!("invalid {what}: {error}"))
}

//! The exceptions: one base class, one subclass per thing that can go
//! wrong, each carrying `diagnostics`, a list of
//! `{code, name, severity, message, help, location}` dicts (`location`:
//! `{path, line, column, start, end}` or `None`).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use contrib_runtime::{Error, OpenError};

create_exception!(
    contrib_runtime,
    ContribError,
    PyException,
    "Anything the runtime refuses; `diagnostics` says what and where."
);
create_exception!(
    contrib_runtime,
    WorkspaceError,
    ContribError,
    "The workspace could not be opened: no `contrib.toml`, an unreadable file, a policy with errors (its diagnostics), or a required plugin refused at load."
);
create_exception!(
    contrib_runtime,
    ProfileError,
    ContribError,
    "No cache profile has this name, or a profiles file could not be read."
);
create_exception!(
    contrib_runtime,
    ResumeError,
    ContribError,
    "A session log could not be resumed: damaged, or from another conversation's versions."
);
create_exception!(
    contrib_runtime,
    SessionError,
    ContribError,
    "The session's TOML could not be read."
);
create_exception!(
    contrib_runtime,
    InputError,
    ContribError,
    "A value handed to the runtime does not have the runtime's shape (an unknown field, a wrong type, a bad time)."
);

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("ContribError", py.get_type::<ContribError>())?;
    module.add("WorkspaceError", py.get_type::<WorkspaceError>())?;
    module.add("ProfileError", py.get_type::<ProfileError>())?;
    module.add("ResumeError", py.get_type::<ResumeError>())?;
    module.add("SessionError", py.get_type::<SessionError>())?;
    module.add("InputError", py.get_type::<InputError>())?;
    Ok(())
}

/// One diagnostic as a dict.
struct Entry {
    code: &'static str,
    name: &'static str,
    severity: String,
    message: String,
    help: Option<String>,
    location: Option<Location>,
}

struct Location {
    path: String,
    start: usize,
    end: usize,
}

impl Entry {
    fn plain(code: &'static str, name: &'static str, message: String) -> Entry {
        Entry {
            code,
            name,
            severity: "error".to_string(),
            message,
            help: None,
            location: None,
        }
    }

    fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("code", self.code)?;
        dict.set_item("name", self.name)?;
        dict.set_item("severity", self.severity)?;
        dict.set_item("message", self.message)?;
        dict.set_item("help", self.help)?;
        match self.location {
            None => dict.set_item("location", py.None())?,
            Some(location) => {
                let text = std::fs::read_to_string(&location.path).unwrap_or_default();
                let (line, column) = line_column(&text, location.start);
                let at = PyDict::new(py);
                at.set_item("path", location.path)?;
                at.set_item("line", line)?;
                at.set_item("column", column)?;
                at.set_item("start", location.start)?;
                at.set_item("end", location.end)?;
                dict.set_item("location", at)?;
            }
        }
        Ok(dict)
    }
}

/// The 1-based line and column (in characters) of byte `offset`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |last| last.chars().count())
        + 1;
    (line, column)
}

/// The exception for a runtime error, with its diagnostics.
pub fn raise(py: Python<'_>, error: &Error) -> PyErr {
    let message = error.to_string();
    let (exception, entries) = match error {
        Error::Workspace(open) => (WorkspaceError::new_err(message.clone()), open_entries(open)),
        Error::UnknownProfile { .. } => (
            ProfileError::new_err(message.clone()),
            vec![Entry::plain("profile", "unknown-profile", message.clone())],
        ),
        Error::Profiles { path, .. } => (
            ProfileError::new_err(message.clone()),
            vec![Entry {
                location: Some(Location {
                    path: path.display().to_string(),
                    start: 0,
                    end: 0,
                }),
                ..Entry::plain("profile", "unreadable-profiles", message.clone())
            }],
        ),
        Error::Resume(_) => (
            ResumeError::new_err(message.clone()),
            vec![Entry::plain("resume", "cannot-resume", message.clone())],
        ),
        _ => (
            ContribError::new_err(message.clone()),
            vec![Entry::plain("runtime", "error", message.clone())],
        ),
    };
    with_diagnostics(py, exception, entries)
}

/// A session whose TOML does not read.
pub fn session(py: Python<'_>, reason: String) -> PyErr {
    let message = format!("cannot read the session: {reason}");
    let entries = vec![Entry::plain("session", "invalid-session", message.clone())];
    with_diagnostics(py, SessionError::new_err(message), entries)
}

fn open_entries(error: &OpenError) -> Vec<Entry> {
    match error {
        OpenError::InvalidPolicy { path, diagnostics } => diagnostics
            .iter()
            .map(|diagnostic| {
                let primary = diagnostic
                    .labels
                    .iter()
                    .find(|label| label.primary)
                    .or(diagnostic.labels.first());
                Entry {
                    code: diagnostic.rule.code,
                    name: diagnostic.rule.name,
                    severity: serde_json::to_value(diagnostic.severity)
                        .ok()
                        .and_then(|value| value.as_str().map(str::to_string))
                        .unwrap_or_else(|| "error".to_string()),
                    message: diagnostic.message.clone(),
                    help: diagnostic.help.clone(),
                    location: primary.map(|label| Location {
                        path: path.display().to_string(),
                        start: label.span.start,
                        end: label.span.end,
                    }),
                }
            })
            .collect(),
        other => vec![Entry::plain("workspace", "cannot-open", other.to_string())],
    }
}

fn with_diagnostics(py: Python<'_>, exception: PyErr, entries: Vec<Entry>) -> PyErr {
    let list: PyResult<Vec<Bound<'_, PyDict>>> =
        entries.into_iter().map(|entry| entry.into_py(py)).collect();
    let set = list.and_then(|list| exception.value(py).setattr("diagnostics", list));
    match set {
        Ok(()) => exception,
        Err(error) => error,
    }
}

//! Why a notification was not applied. A notification has no answer, so
//! the server logs these to the client instead.

use std::fmt;

/// A notification the server could not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotificationError {
    /// Its params are not of the method's shape.
    InvalidParams {
        method: &'static str,
        problem: String,
    },
    /// `textDocument/didChange` for a document never opened.
    NeverOpened { uri: String },
    /// `textDocument/didChange` to a version not newer than the one held.
    NotNewer {
        uri: String,
        version: i32,
        held: i32,
    },
}

impl fmt::Display for NotificationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotificationError::InvalidParams { method, problem } => {
                write!(f, "invalid params for `{method}`: {problem}")
            }
            NotificationError::NeverOpened { uri } => {
                write!(f, "`{uri}` changed but was never opened")
            }
            NotificationError::NotNewer { uri, version, held } => write!(
                f,
                "`{uri}` changed to version {version}, not newer than version {held} held: the change is ignored"
            ),
        }
    }
}

impl std::error::Error for NotificationError {}

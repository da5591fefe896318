//! What can go wrong for a host, as values it can match on.

use std::fmt;
use std::path::PathBuf;

use contrib::runtime::host::OpenError;
use contrib::runtime::{ResumeError, UnknownProfile};

/// Everything the runtime refuses, by what the host was doing.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The workspace could not be opened: no `contrib.toml`, a file that
    /// cannot be read, or a policy with errors (whose diagnostics it
    /// carries).
    Workspace(OpenError),
    /// No cache profile has this name.
    UnknownProfile {
        /// The name asked for.
        name: String,
        /// The names there are.
        known: Vec<String>,
    },
    /// A profiles file could not be read.
    Profiles {
        /// The file.
        path: PathBuf,
        /// Why, in a sentence.
        reason: String,
    },
    /// A session log could not be resumed: damaged, or from another
    /// conversation's versions.
    Resume(ResumeError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Workspace(error) => error.fmt(f),
            Error::UnknownProfile { name, known } => UnknownProfile {
                name: name.clone(),
                known: known.clone(),
            }
            .fmt(f),
            Error::Profiles { path, reason } => {
                write!(
                    f,
                    "cannot read the profiles in `{}`: {reason}",
                    path.display()
                )
            }
            Error::Resume(error) => write!(f, "cannot resume the conversation: {error}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Workspace(error) => Some(error),
            Error::Resume(error) => Some(error),
            Error::UnknownProfile { .. } | Error::Profiles { .. } => None,
        }
    }
}

impl From<OpenError> for Error {
    fn from(error: OpenError) -> Error {
        Error::Workspace(error)
    }
}

impl From<ResumeError> for Error {
    fn from(error: ResumeError) -> Error {
        Error::Resume(error)
    }
}

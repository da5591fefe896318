//! What can go wrong for a host, as values it can match on.

use std::fmt;
use std::path::PathBuf;

use contrib_core::diagnostic::Diagnostic;

use crate::log::ResumeError;
use crate::profiles::UnknownProfile;

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

/// Why a workspace could not be opened for hosting.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum OpenError {
    /// The folder holds no `contrib.toml`.
    NotAWorkspace {
        /// The folder.
        folder: PathBuf,
    },
    /// `contrib.toml` or `contrib.lock` could not be read or parsed.
    Unreadable {
        /// The folder.
        folder: PathBuf,
        /// What went wrong, in a sentence.
        reason: String,
    },
    /// `contrib.toml` has errors: nothing is composed under a policy that
    /// does not say what it means.
    InvalidPolicy {
        /// The file.
        path: PathBuf,
        /// Its error diagnostics.
        diagnostics: Vec<Diagnostic>,
    },
    /// A plugin the workspace requires (`[trust] required`, or installed
    /// as `operator`) was refused at load: no conversation composes
    /// without it.
    RequiredRefused {
        /// `scope/name@version`.
        plugin: String,
        /// Why loading refused it.
        reason: String,
    },
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::NotAWorkspace { folder } => write!(
                f,
                "`{}` is not a workspace: it has no `{}`",
                folder.display(),
                contrib_core::config::FILE_NAME
            ),
            OpenError::Unreadable { reason, .. } => f.write_str(reason),
            OpenError::InvalidPolicy { path, diagnostics } => write!(
                f,
                "`{}` has {} error(s); run `contrib check {}` to see them",
                path.display(),
                diagnostics.len(),
                path.display()
            ),
            OpenError::RequiredRefused { plugin, reason } => write!(
                f,
                "`{plugin}` is required in this workspace and was refused at load, so no conversation composes without it: {reason}. Approve it again with `contrib install`, or list it under `[trust] optional` to go on without it"
            ),
        }
    }
}

impl std::error::Error for OpenError {}

//! Why something a registry holds is not what this format writes: the
//! errors of [`super`], as data. Their messages complete a sentence about
//! the thing read ("… cannot be read: its sequence is not a number"), so
//! the caller names the thing.

use std::fmt;

use super::{BUNDLE_ARTIFACT_TYPE, EVENT_ARTIFACT_TYPE};

/// Text given as a registry catalog (`oci://…`) that is not a valid one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotACatalog {
    /// What was given, as given.
    pub text: String,
}

impl fmt::Display for NotACatalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a registry catalog: write `oci://HOST[:PORT]/NAMESPACE`, the namespace in lowercase (`a-z`, `0-9`, `.`, `_`, `-`, `/`)",
            contrib_core::terminal::visible(&self.text)
        )
    }
}

impl std::error::Error for NotACatalog {}

/// Why a manifest read from a registry is not the one this format writes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ManifestError {
    /// Its bytes are not JSON.
    NotJson,
    /// Its `artifactType` is not a bundle's.
    NotABundle,
    /// Its `artifactType` is not a signature's, `artifact_type`.
    NotASignature { artifact_type: &'static str },
    /// Its `artifactType` is not an index event's.
    NotAnEvent,
    /// A signature whose `subject` is not the version it was read for.
    OtherSubject { subject: String },
    /// It has no layer, or more than one.
    LayerCount,
    /// Its one layer is not of `media_type`, or lacks a digest or a size.
    Layer { media_type: String },
    /// Its annotations are not a map of text.
    AnnotationsNotText,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::NotJson => f.write_str("its manifest is not JSON"),
            ManifestError::NotABundle => write!(
                f,
                "its manifest is not a contrib bundle (`artifactType` is not `{BUNDLE_ARTIFACT_TYPE}`)"
            ),
            ManifestError::NotASignature { artifact_type } => write!(
                f,
                "it is not a contrib signature (`artifactType` is not `{artifact_type}`)"
            ),
            ManifestError::NotAnEvent => write!(f, "it is not a `{EVENT_ARTIFACT_TYPE}`"),
            ManifestError::OtherSubject { subject } => {
                write!(f, "it does not refer to {subject}")
            }
            ManifestError::LayerCount => f.write_str("its manifest has not exactly one layer"),
            ManifestError::Layer { media_type } => write!(
                f,
                "its layer is not a `{media_type}` with a `sha256:` digest and a size"
            ),
            ManifestError::AnnotationsNotText => f.write_str("its annotations are not text"),
        }
    }
}

impl std::error::Error for ManifestError {}

/// Why an index event's annotations are not an event, or an event cannot
/// be written as annotations.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventError {
    /// A required annotation is missing.
    Missing { key: &'static str },
    /// `dev.contrib.event` is none of the kinds.
    UnknownKind,
    /// The sequence is not a number.
    Sequence,
    /// The plugin is not `scope/name`.
    Plugin,
    /// The version is not a semantic version.
    Version,
    /// The catalog facts are not their JSON.
    Facts,
    /// The permissions are not their JSON.
    Permissions,
    /// A digest is not `sha256:` and 64 hex digits.
    Digests,
    /// Its predecessors are not a list of at most
    /// [`super::MAX_PREDECESSORS`] digests.
    Predecessors,
    /// Part of an event (`what`) could not be written as JSON.
    Write { what: &'static str, why: String },
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EventError::Missing { key } => write!(f, "it has no `{key}` annotation"),
            EventError::UnknownKind => {
                f.write_str("its event is none of publish, yank, restore, sign")
            }
            EventError::Sequence => f.write_str("its sequence is not a number"),
            EventError::Plugin => f.write_str("its plugin is not `scope/name`"),
            EventError::Version => f.write_str("its version is not a semantic version"),
            EventError::Facts => f.write_str("its catalog facts are malformed"),
            EventError::Permissions => f.write_str("its permissions are malformed"),
            EventError::Digests => f.write_str("its digests are not `sha256:` and 64 hex digits"),
            EventError::Predecessors => write!(
                f,
                "its predecessors are not at most {} `sha256:` digests, separated by commas",
                super::MAX_PREDECESSORS
            ),
            EventError::Write { what, why } => write!(f, "cannot write {what}: {why}"),
        }
    }
}

impl std::error::Error for EventError {}

into_text!(NotACatalog, ManifestError, EventError);

//! What can go wrong reading or changing a catalog, as data; the wording
//! is here, once, and reads as `contrib` has always said it.

use std::fmt;
use std::path::PathBuf;

use crate::sign;
use crate::{LoadError, WriteError};
use contrib_core::terminal::visible;

/// Why a catalog could not be read, changed or loaded from.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The file system refused a read, a write or the catalog's lock.
    Fs(contrib_core::fs::Error),
    /// `catalog.lock` at `path` is not the lock's shape.
    NotALock {
        path: PathBuf,
        source: toml::de::Error,
    },
    /// A lock entry names `plugin`, which is not `scope/name`.
    NotAPluginName { path: PathBuf, plugin: String },
    /// `catalog.lock` at `path` is not UTF-8.
    LockNotText(PathBuf),
    /// The lock has no TOML form.
    LockNotWritten(toml::ser::Error),
    /// `plugin@version` has no entry in the catalog at `folder`.
    NotPublished {
        plugin: String,
        version: semver::Version,
        folder: PathBuf,
    },
    /// The bundle at `path` does not load.
    Bundle { path: PathBuf, source: LoadError },
    /// The bundle at `path` is not the one the lock records for `bundle`
    /// (`plugin@version`).
    NotLocked { path: PathBuf, bundle: String },
    /// The bundle at `path` carries no valid signature by a trusted key.
    Unsigned { path: PathBuf, why: Unverified },
    /// The catalog's own policy cannot be used.
    Policy(PolicyError),
    /// A bundle could not be written into the catalog.
    Write(WriteError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Fs(error) => error.fmt(f),
            Error::NotALock { path, source } => write!(
                f,
                "`{}` is not a valid lock: {}",
                path.display(),
                source.message()
            ),
            Error::NotAPluginName { path, plugin } => write!(
                f,
                "`{}` is not a valid lock: `{}` is not a plugin name (`scope/name`, each in kebab-case)",
                path.display(),
                visible(plugin)
            ),
            Error::LockNotText(path) => write!(f, "`{}` is not UTF-8 text", path.display()),
            Error::LockNotWritten(error) => write!(f, "cannot write the lock: {error}"),
            Error::NotPublished {
                plugin,
                version,
                folder,
            } => write!(
                f,
                "{plugin}@{version} is not published in `{}`",
                folder.display()
            ),
            Error::Bundle { path, source } => write!(f, "`{}`: {source}", path.display()),
            Error::NotLocked { path, bundle } => write!(
                f,
                "`{}` is not the bundle the catalog's lock records for {bundle}",
                path.display()
            ),
            Error::Unsigned { path, why } => write!(
                f,
                "`{}` is not signed by a trusted key: {why}",
                path.display()
            ),
            Error::Policy(error) => error.fmt(f),
            Error::Write(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Fs(error) => Some(error),
            Error::NotALock { source, .. } => Some(source),
            Error::LockNotWritten(error) => Some(error),
            Error::Bundle { source, .. } => Some(source),
            Error::Unsigned { why, .. } => Some(why),
            Error::Policy(error) => Some(error),
            Error::Write(error) => Some(error),
            _ => None,
        }
    }
}

impl From<contrib_core::fs::Error> for Error {
    fn from(error: contrib_core::fs::Error) -> Error {
        Error::Fs(error)
    }
}

into_text!(Error, PolicyError);

/// Why a bundle's signature does not hold for the keys a lock trusts;
/// verification fails closed, so each is a refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unverified {
    /// No signature file beside the bundle, or not a readable one.
    NoSignatureFile,
    /// The signature file is not a signature's JSON.
    MalformedSignature,
    /// The signature is by `key_id`, which the lock does not trust.
    UntrustedKey(String),
    /// The public key of `key_id` is not in the catalog's `keys/` folder.
    NoPublicKey(String),
    /// The key or the signature is not valid.
    Sign(sign::Error),
}

impl fmt::Display for Unverified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unverified::NoSignatureFile => f.write_str("it has no readable signature file"),
            Unverified::MalformedSignature => f.write_str("its signature file is malformed"),
            Unverified::UntrustedKey(key_id) => write!(
                f,
                "it is signed by {}, which the lock does not trust",
                visible(key_id)
            ),
            Unverified::NoPublicKey(key_id) => write!(
                f,
                "the public key of {key_id} is not in the catalog's `{}/` folder",
                super::KEYS_FOLDER
            ),
            Unverified::Sign(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for Unverified {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Unverified::Sign(error) => Some(error),
            _ => None,
        }
    }
}

/// Why a catalog's own policy cannot be used; publishing and checking
/// stop rather than judge by another.
#[derive(Debug)]
#[non_exhaustive]
pub enum PolicyError {
    /// The catalog or its policy file could not be read.
    Fs(contrib_core::fs::Error),
    /// The policy file `name` is not text.
    NotText { name: String, why: String },
    /// The policy file `name` has errors; `first` is the first.
    HasErrors { name: String, first: String },
}

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PolicyError::Fs(error) => error.fmt(f),
            PolicyError::NotText { name, why } => {
                write!(f, "the catalog's policy `{name}` cannot be read: {why}")
            }
            PolicyError::HasErrors { name, first } => write!(
                f,
                "the catalog's policy `{name}` has errors ({first}); fix it before publishing or checking"
            ),
        }
    }
}

impl std::error::Error for PolicyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PolicyError::Fs(error) => Some(error),
            _ => None,
        }
    }
}

impl From<contrib_core::fs::Error> for PolicyError {
    fn from(error: contrib_core::fs::Error) -> PolicyError {
        PolicyError::Fs(error)
    }
}

//! The keys a catalog trusts: `contrib catalog trust KEY.pub` and
//! `untrust`, so requiring signatures needs no hand edit of `catalog.lock`.
//!
//! A key is trusted by its id, `ed25519:` and the first 16 hex digits of
//! the SHA-256 of the public key (see [`super::sign`]). Trusting a key
//! copies its public key file into the catalog as
//! `keys/ed25519-<16 hex digits>.pub` (the id with `:` written `-`, a name
//! every file system accepts) and adds the id to the lock's
//! `trusted_keys`. Once the list is not empty, every published bundle must
//! carry a valid signature by one of the keys (`BUNDLE.sig`, written by
//! `contrib sign` or `contrib publish --key`): loading and `catalog check`
//! fail closed.

use std::path::{Path, PathBuf};

use super::catalog;
use super::sign;
use super::{bundle_path, Bundle};
use contrib_core::fs::Root;

/// What trusting a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trusted {
    pub id: String,
    /// Where the public key now is, in the catalog.
    pub key_file: PathBuf,
    /// Published versions not signed by a trusted key, which loading now
    /// refuses until they are signed.
    pub unsigned: Vec<String>,
}

/// Why a key could not be trusted or untrusted.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The key file is not a public key.
    Key(sign::Error),
    /// The key file named by `path` could not be read.
    CannotRead {
        path: String,
        source: std::io::Error,
    },
    /// The catalog could not be read or its lock changed.
    Catalog(catalog::Error),
    /// The catalog does not trust the key `id`.
    NotTrusted(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Key(error) => error.fmt(f),
            Error::CannotRead { path, source } => write!(f, "cannot read `{path}`: {source}"),
            Error::Catalog(error) => error.fmt(f),
            Error::NotTrusted(id) => write!(f, "the catalog does not trust {id}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Key(error) => Some(error),
            Error::CannotRead { source, .. } => Some(source),
            Error::Catalog(error) => Some(error),
            Error::NotTrusted(_) => None,
        }
    }
}

impl From<catalog::Error> for Error {
    fn from(error: catalog::Error) -> Error {
        Error::Catalog(error)
    }
}

impl From<contrib_core::fs::Error> for Error {
    fn from(error: contrib_core::fs::Error) -> Error {
        Error::Catalog(catalog::Error::Fs(error))
    }
}

impl From<sign::Error> for Error {
    fn from(error: sign::Error) -> Error {
        Error::Key(error)
    }
}

into_text!(Error);

/// The file a trusted key's public half is kept in, under the catalog.
pub fn key_file(folder: &Path, id: &str) -> PathBuf {
    folder
        .join("keys")
        .join(format!("{}.pub", id.replace(':', "-")))
}

/// Trusts the public key `key_text` in the catalog at `folder`.
pub fn trust(folder: &Path, key_text: &str) -> Result<Trusted, Error> {
    let key = sign::read_public(key_text)?;
    let id = sign::key_id(&key);
    let path = key_file(folder, &id);
    let root = Root::open(folder)?;
    if let Some(parent) = path.parent() {
        root.create_folders(parent)?;
    }
    contrib_core::fs::write_atomically(&path, key_text.as_bytes())?;
    let lock = catalog::change_lock(folder, &|_| {}, |lock| -> Result<_, Error> {
        if !lock.trusted_keys.contains(&id) {
            lock.trusted_keys.push(id.clone());
            lock.trusted_keys.sort();
        }
        Ok(lock.clone())
    })?;
    let unsigned = lock
        .published
        .iter()
        .filter(|entry| {
            let file = bundle_path(folder, &entry.plugin, &entry.version);
            Bundle::load(&file).map_or(true, |bundle| {
                catalog::verify_signature(&root, &file, &bundle, &lock.trusted_keys).is_err()
            })
        })
        .map(|entry| format!("{}@{}", entry.plugin, entry.version))
        .collect();
    Ok(Trusted {
        id,
        key_file: path,
        unsigned,
    })
}

/// Stops trusting a key, named by its id or its public key file; the key
/// file stays, so signatures made with it can still be verified by hand.
pub fn untrust(folder: &Path, key: &str) -> Result<String, Error> {
    let id = if key.starts_with("ed25519:") {
        key.to_string()
    } else {
        let text = std::fs::read_to_string(key).map_err(|source| Error::CannotRead {
            path: key.to_string(),
            source,
        })?;
        sign::key_id(&sign::read_public(&text)?)
    };
    catalog::change_lock(folder, &|_| {}, |lock| {
        if !lock.trusted_keys.contains(&id) {
            return Err(Error::NotTrusted(id.clone()));
        }
        lock.trusted_keys.retain(|trusted| *trusted != id);
        Ok(())
    })?;
    Ok(id)
}

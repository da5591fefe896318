//! Catalogs: a folder of published bundles (`<scope>/<name>/<version>.bundle.json`)
//! and `catalog.lock`, which lists each published `plugin@version` with
//! its digest, whether it is yanked, and the permissions a person approved.
//!
//! Nothing is ever deleted or overwritten: a new version is a new file and
//! a new lock entry; `yank` only marks an entry, and a yanked number is
//! never reused. Versions equal under SemVer precedence are one version:
//! `1.4.0+build.7` is `1.4.0`, so build metadata cannot publish other
//! content under a number already taken. Publishing writes the bundle
//! first and the lock second, each atomically, so an interrupted publish
//! leaves at worst a bundle the lock does not list, which `catalog check`
//! reports.
//!
//! Every read-modify-write of the lock (`publish`, `yank`) holds the
//! catalog's exclusive lock ([`contrib_core::fs::lock`]) from the read to the
//! write, so concurrent publishes and yanks never lose each other's
//! entries; readers that compare bundles with the lock hold a shared one.
//! A catalog's content is untrusted: nothing is read or written through a
//! symbolic link that leads out of it, a lock entry must name a plugin as
//! `scope/name`, and trusted keys are looked up in the catalog's own
//! `keys/` folder only.

pub mod consistency;
mod error;
mod inspect;
mod lock;
mod publish;
mod verify;

use std::path::Path;

use super::Bundle;
use contrib_core::fs::{self, Access, Guard, Root};
use contrib_core::limits::files::{BUNDLE, LOCK};
use contrib_core::source::Span;

pub use error::{Error, PolicyError, Unverified};
pub use inspect::{check, CatalogReport, Delta};
pub use lock::{Lock, LockEntry};
pub use publish::change_lock;
pub use publish::{publish, yank, PublishError, Published, Refusal};
pub use verify::installable;
pub(crate) use verify::verify_signature;

/// The file, at a catalog's root, that lists its published versions.
pub const LOCK_FILE: &str = "catalog.lock";

/// The folder, under a catalog, that holds the public keys its lock
/// trusts (`keys/<key id>.pub`).
pub const KEYS_FOLDER: &str = "keys";

/// A shared lock on a catalog, for readers that compare its bundles with
/// its lock; `None` when the folder cannot hold a lock file (a read-only
/// copy, which no one can be writing through this tool).
fn shared_lock(folder: &Path) -> Option<Guard> {
    fs::lock(folder, Access::Shared, &|_| {}).ok()
}

/// The text of `catalog.lock`, read inside the catalog.
fn read_lock_text(root: &Root) -> Result<String, Error> {
    let path = root.path().join(LOCK_FILE);
    let bytes = root.read(&path, LOCK)?;
    String::from_utf8(bytes).map_err(|_| Error::LockNotText(path))
}

/// Loads a bundle inside the catalog: a link out of it is refused.
fn load_in(root: &Root, path: &Path) -> Result<Bundle, Error> {
    let bytes = root.read(path, BUNDLE)?;
    Bundle::from_bytes(&bytes).map_err(|source| Error::Bundle {
        path: path.to_path_buf(),
        source,
    })
}

/// Every `*.bundle.json` in the catalog, in path order, following no
/// link out of it.
fn bundles_in(root: &Root) -> fs::Walked {
    root.walk(&[], |path| path.to_string_lossy().ends_with(".bundle.json"))
}

/// The span of the first occurrence of `needle` in `text`, or the start.
fn find_span(text: &str, needle: &str) -> Span {
    match (needle.is_empty(), text.find(needle)) {
        (false, Some(start)) => Span::new(start, start + needle.len()),
        _ => Span::point(0),
    }
}

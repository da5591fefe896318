//! The approval is a record, not a pointer: the workspace's own copy of
//! every bundle it approved.
//!
//! A catalog is trusted to say which versions exist, not what they hold
//! once approved: replace an approved bundle in the catalog with a
//! relabelled later version (digests recomputed, `catalog.lock`
//! rewritten), or delete it, and a delta computed against the catalog's
//! copy would compare the new version with itself, or with nothing. So at
//! install the exact bytes approved are kept beside `contrib.lock`, named
//! by their digest:
//!
//! ```text
//! ws/contrib.toml
//! ws/contrib.lock                              # pins each digest
//! ws/.contrib/approved/sha256-<hex>.bundle.json
//! ```
//!
//! `update`, an `install` of another version, `contrib diff --workspace`
//! and every load compare with this copy, never with the catalog's. A copy
//! missing, or not hashing to the digest the lock pins, stops everything
//! that would rely on it until a person approves the plugin again.

use std::path::{Path, PathBuf};

use crate::Bundle;
use contrib_core::codes::NEEDS_APPROVAL;
use contrib_core::diagnostic::Rule;

use super::lock::{Installed, WorkspaceLock};
use super::refused::Refused;

/// The folder, beside `contrib.lock`, holding the approved copies.
pub const FOLDER: &str = ".contrib/approved";

/// How an entry names its copy: `.contrib/approved/sha256-<hex>.bundle.json`,
/// or `None` when `digest` is not `sha256:` and 64 lowercase hex digits
/// (no path is ever made of anything else).
pub fn reference(digest: &str) -> Option<String> {
    let hex = digest.strip_prefix("sha256:")?;
    let valid = hex.len() == 64
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    valid.then(|| format!("{FOLDER}/sha256-{hex}.bundle.json"))
}

/// Why the approved copy of a bundle could not be kept.
#[derive(Debug)]
#[non_exhaustive]
pub enum KeepError {
    /// `bundle` (`plugin@version`) has no digest to name its copy by.
    NoDigest { bundle: String },
    /// The copy could not be written.
    Fs(contrib_core::fs::Error),
}

impl std::fmt::Display for KeepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeepError::NoDigest { bundle } => {
                write!(f, "{bundle} has no digest to keep its approved copy by")
            }
            KeepError::Fs(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for KeepError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KeepError::NoDigest { .. } => None,
            KeepError::Fs(error) => Some(error),
        }
    }
}

impl From<contrib_core::fs::Error> for KeepError {
    fn from(error: contrib_core::fs::Error) -> KeepError {
        KeepError::Fs(error)
    }
}

/// Keeps `bytes`, the bundle approved, in the workspace at `workspace`:
/// written atomically, following the umask. Returns the reference the
/// lock records.
pub fn keep(workspace: &Path, bundle: &Bundle, bytes: &[u8]) -> Result<String, KeepError> {
    let digest = bundle.digest.as_deref().unwrap_or_default();
    let reference = reference(digest).ok_or_else(|| KeepError::NoDigest {
        bundle: bundle.id(),
    })?;
    contrib_core::fs::create_folder(&workspace.join(FOLDER))?;
    contrib_core::fs::write_atomically(&workspace.join(&reference), bytes)?;
    Ok(reference)
}

/// The copy `entry` approved, verified: it exists, is a bundle whose
/// content hashes to its digest, and that digest is the one the lock
/// pins. Anything else is refused with what to do.
pub fn read(workspace: &Path, entry: &Installed) -> Result<Bundle, Refused> {
    let again = approve_again(workspace, entry, &entry.id());
    let refuse = |rule: &'static Rule, why: String| Refused {
        plugin: entry.id(),
        rule,
        reason: format!(
            "{why}; nothing loads or updates from it until a person approves it again with {again}"
        ),
    };
    let Some(recorded) = &entry.approved_copy else {
        return Err(refuse(
            &NEEDS_APPROVAL,
            format!(
                "it was approved before this workspace kept its own copy of what it approves (`{FOLDER}/`), so there is no record to compare with"
            ),
        ));
    };
    let expected = reference(&entry.digest);
    if expected.as_deref() != Some(recorded.as_str()) {
        return Err(refuse(
            &NEEDS_APPROVAL,
            format!(
                "`contrib.lock` names the approved copy `{recorded}`, which is not the copy of the {} it pins",
                entry.digest
            ),
        ));
    }
    let path = workspace.join(recorded);
    if std::fs::symlink_metadata(&path).is_err() {
        return Err(refuse(
            &NEEDS_APPROVAL,
            format!(
                "the workspace's approved copy `{}` is missing",
                path.display()
            ),
        ));
    }
    let bytes = contrib_core::fs::read_limited(&path, contrib_core::limits::files::BUNDLE)
        .map_err(|why| {
            refuse(
                &NEEDS_APPROVAL,
                format!("the workspace's approved copy is unreadable: {why}"),
            )
        })?;
    let bundle = Bundle::from_bytes(&bytes).map_err(|error| {
        refuse(
            &NEEDS_APPROVAL,
            format!(
                "the workspace's approved copy `{}` is not the bundle approved: {error}",
                path.display()
            ),
        )
    })?;
    if bundle.digest.as_deref() != Some(entry.digest.as_str())
        || bundle.plugin != entry.plugin
        || bundle.version != entry.version
    {
        return Err(refuse(
            &NEEDS_APPROVAL,
            format!(
                "the workspace's approved copy `{}` holds {} ({}), not the {} `contrib.lock` pins",
                path.display(),
                bundle.id(),
                bundle.digest.as_deref().unwrap_or("no digest"),
                entry.digest
            ),
        ));
    }
    Ok(bundle)
}

/// The command that approves `version` (`scope/name@version`) of
/// `entry`'s plugin again, from where `contrib` runs.
pub fn approve_again(workspace: &Path, entry: &Installed, version: &str) -> String {
    format!(
        "`contrib install --catalog {} {version} --workspace {} --yes`",
        super::lock::catalog_path(workspace, entry).display(),
        workspace.display()
    )
}

/// Removes the copies that neither `before` nor `after` (the lock before
/// and after a write) names: what an update or uninstall left behind one
/// write ago. The copy just replaced is kept for one more write, so a
/// load that read the lock before this write still finds the copy its
/// entry names. Best effort: a copy left over is never read, since every
/// read goes through an entry.
pub fn prune(workspace: &Path, before: &WorkspaceLock, after: &WorkspaceLock) {
    let folder = workspace.join(FOLDER);
    let Ok(listing) = std::fs::read_dir(&folder) else {
        return;
    };
    let kept: Vec<PathBuf> = before
        .installed
        .iter()
        .chain(&after.installed)
        .filter_map(|entry| entry.approved_copy.as_ref())
        .map(|reference| workspace.join(reference))
        .collect();
    for file in listing.flatten() {
        let path = file.path();
        let ours = path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with("sha256-") && name.ends_with(".bundle.json"));
        if ours && !kept.contains(&path) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_sha256_digest_names_a_copy() {
        let hex = "a".repeat(64);
        assert_eq!(
            reference(&format!("sha256:{hex}")).as_deref(),
            Some(format!(".contrib/approved/sha256-{hex}.bundle.json").as_str())
        );
        assert_eq!(reference("sha256:../../etc/passwd"), None);
        assert_eq!(reference(&format!("sha256:{}", "A".repeat(64))), None);
        assert_eq!(reference(""), None);
    }

    #[test]
    fn a_copy_goes_one_write_after_no_entry_names_it() {
        let folder = tempfile::tempdir().expect("a folder");
        let workspace = folder.path();
        let lock_naming = |digits: &[char]| {
            let mut lock = WorkspaceLock::default();
            for (index, digit) in digits.iter().enumerate() {
                let text = format!(
                    "plugin = \"acme/p{index}\"\nversion = \"1.0.0\"\ndigest = \"sha256:{hex}\"\napproved_copy = \"{copy}\"\ncatalog = \"c\"\nrequested_owner = \"person\"\ngranted_owner = \"person\"\napproved_by = \"person\"\napproved_at = \"now\"\napproval = \"yes\"\n[permissions]\nplacements = []\nbudgets = {{}}\ntools_loaded = []\ntools_run = []\negress_hosts = []\nhighest_priority = \"person\"\nreaches = []\n",
                    hex = digit.to_string().repeat(64),
                    copy = reference(&format!("sha256:{}", digit.to_string().repeat(64))).expect("a reference"),
                );
                lock.put(toml::from_str(&text).expect("an entry"));
            }
            lock
        };
        std::fs::create_dir_all(workspace.join(FOLDER)).expect("a folder");
        for digit in ['a', 'b', 'c'] {
            let copy = reference(&format!("sha256:{}", digit.to_string().repeat(64)))
                .expect("a reference");
            std::fs::write(workspace.join(copy), "{}").expect("written");
        }
        std::fs::write(workspace.join(FOLDER).join("notes.txt"), "mine").expect("written");
        prune(workspace, &lock_naming(&['a']), &lock_naming(&['b']));
        let left: Vec<String> = std::fs::read_dir(workspace.join(FOLDER))
            .expect("listed")
            .flatten()
            .map(|file| file.file_name().to_string_lossy().chars().take(8).collect())
            .collect();
        let mut left = left;
        left.sort();
        assert_eq!(left, ["notes.tx", "sha256-a", "sha256-b"]);
    }
}

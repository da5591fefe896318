//! `contrib.lock`: what a workspace approved.
//!
//! Beside `contrib.toml`, one entry per installed plugin: the version and
//! digest approved, the catalog it came from, the owner its author
//! requested and the authority granted, who approved it and when, the
//! permissions as granted (what the workspace's own tools make of the
//! bundle, not what the bundle claims), and every protective rule the
//! workspace's `[trust]` table relaxed for it, with the reason.
//!
//! The lock is the installer's record, as trusted as `contrib.toml`: the
//! runtime loads exactly what it pins, from the workspace's own copy of
//! the bundle approved ([`super::approved`]), and refuses a version whose
//! bundle asks for more than the entry approved.
//!
//! ```toml
//! # Written by `contrib install`, `update` and `uninstall`; do not edit by hand.
//! format = 2
//!
//! [[installed]]
//! plugin = "acme/clock"
//! version = "2.0.0"
//! digest = "sha256:…"
//! approved_copy = ".contrib/approved/sha256-….bundle.json"
//! catalog = "../catalog"
//! requested_owner = "operator"
//! granted_owner = "workspace"
//! approved_by = "workspace"
//! approved_at = "2026-03-02T09:00:00+00:00"
//! approval = "approved with --yes"
//!
//! [installed.permissions]
//! …
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::Permissions;
use contrib_core::vocabulary::Owner;

/// The workspace lock's file name, beside `contrib.toml`.
pub const LOCK_FILE: &str = "contrib.lock";

/// The lock format this build writes.
///
/// Format 2 entries name the workspace's own copy of the bundle approved
/// (`approved_copy`). Format 1 locks, written before workspaces kept
/// copies, are still read: their entries have no copy and so need a
/// fresh approval before they load or update, and the next write turns
/// the file into format 2.
pub const FORMAT: u32 = 2;

/// The lock formats this build reads.
const READS: [u32; 2] = [1, FORMAT];

/// Why `contrib.lock` could not be read or written.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The lock at `path` could not be read.
    CannotRead {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The lock at `path` is not the lock's shape.
    NotALock {
        path: PathBuf,
        source: toml::de::Error,
    },
    /// The lock at `path` is a `format` this build does not read.
    Format { path: PathBuf, format: u32 },
    /// The lock has no TOML form.
    NotWritten(toml::ser::Error),
    /// The lock could not be written.
    Fs(contrib_core::fs::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::CannotRead { path, source } => {
                write!(f, "cannot read `{}`: {source}", path.display())
            }
            Error::NotALock { path, source } => write!(
                f,
                "`{}` is not a valid workspace lock: {}",
                path.display(),
                source.message()
            ),
            Error::Format { path, format } => write!(
                f,
                "`{}` is format {format}, but this build reads formats 1 and {FORMAT}: use the contrib that wrote it, or a newer one",
                path.display()
            ),
            Error::NotWritten(error) => write!(f, "cannot write the workspace lock: {error}"),
            Error::Fs(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::CannotRead { source, .. } => Some(source),
            Error::NotALock { source, .. } => Some(source),
            Error::Format { .. } => None,
            Error::NotWritten(error) => Some(error),
            Error::Fs(error) => Some(error),
        }
    }
}

into_text!(Error);

/// `contrib.lock`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceLock {
    pub format: u32,
    #[serde(default)]
    pub installed: Vec<Installed>,
}

impl Default for WorkspaceLock {
    fn default() -> Self {
        WorkspaceLock {
            format: FORMAT,
            installed: Vec::new(),
        }
    }
}

/// One approved plugin version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Installed {
    pub plugin: String,
    pub version: semver::Version,
    /// The bundle's digest as approved: a load refuses any other content.
    pub digest: String,
    /// The workspace's own copy of the bundle approved, relative to the
    /// workspace (`.contrib/approved/sha256-<hex>.bundle.json`). Absent in
    /// entries written before workspaces kept copies: those need a fresh
    /// approval before they load or update.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_copy: Option<String>,
    /// The catalog folder, relative to the workspace when it can be.
    pub catalog: String,
    /// What the bundle asked for.
    pub requested_owner: Owner,
    /// What its contributors got: at most the installer's authority.
    pub granted_owner: Owner,
    /// The authority of whoever approved it.
    pub approved_by: Owner,
    /// When, in RFC 3339.
    pub approved_at: String,
    /// How: `--yes`, confirmed at a terminal, or an update that asked for
    /// nothing more.
    pub approval: String,
    /// What was approved, under the workspace's own tools.
    pub permissions: Permissions,
    /// Protective rules the workspace's `[trust]` table relaxed for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relaxed: Vec<Relaxed>,
}

impl Installed {
    /// `scope/name@version`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.plugin, self.version)
    }
}

/// A protective rule relaxed for one contributor, by the workspace's
/// `[trust.plugins."…"]` (no `tool`) or `[trust.tools.NAME]`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Relaxed {
    pub rule: String,
    pub contributor: String,
    /// The tool whose relaxation applied; none for the plugin's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub reason: String,
}

impl WorkspaceLock {
    /// Reads `folder/contrib.lock`; a workspace without one has nothing
    /// installed.
    pub fn read(folder: &Path) -> Result<WorkspaceLock, Error> {
        let path = folder.join(LOCK_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(WorkspaceLock::default())
            }
            Err(source) => return Err(Error::CannotRead { path, source }),
        };
        let lock: WorkspaceLock = match toml::from_str(&text) {
            Ok(lock) => lock,
            Err(source) => return Err(Error::NotALock { path, source }),
        };
        if !READS.contains(&lock.format) {
            return Err(Error::Format {
                path,
                format: lock.format,
            });
        }
        Ok(lock)
    }

    /// Writes `folder/contrib.lock` atomically: the only place this stage
    /// writes a file.
    pub fn write(&self, folder: &Path) -> Result<(), Error> {
        let current = WorkspaceLock {
            format: FORMAT,
            installed: self.installed.clone(),
        };
        let text = toml::to_string_pretty(&current).map_err(Error::NotWritten)?;
        let text = format!(
            "# Written by `contrib install`, `update` and `uninstall`; do not edit by hand.\n{text}"
        );
        contrib_core::fs::write_atomically(&folder.join(LOCK_FILE), text.as_bytes())
            .map_err(Error::Fs)
    }

    /// The entry of `plugin`, if installed.
    pub fn get(&self, plugin: &str) -> Option<&Installed> {
        self.installed.iter().find(|entry| entry.plugin == plugin)
    }

    /// Records `entry`, replacing the plugin's previous one; entries stay
    /// in plugin order so the file diffs well.
    pub fn put(&mut self, entry: Installed) {
        self.installed.retain(|old| old.plugin != entry.plugin);
        self.installed.push(entry);
        self.installed.sort_by(|a, b| a.plugin.cmp(&b.plugin));
    }

    /// Removes `plugin`; whether it was installed.
    pub fn remove(&mut self, plugin: &str) -> bool {
        let before = self.installed.len();
        self.installed.retain(|entry| entry.plugin != plugin);
        self.installed.len() != before
    }
}

/// The catalog an entry came from, as a path: for a registry catalog
/// (`oci://…`), the workspace's mirror of it
/// ([`crate::oci::mirror_folder`]), which the command line
/// refreshes from the registry.
pub fn catalog_path(workspace: &Path, entry: &Installed) -> PathBuf {
    match crate::oci::OciCatalog::parse(&entry.catalog) {
        Some(Ok(catalog)) => crate::oci::mirror_folder(workspace, &catalog),
        _ => workspace.join(&entry.catalog),
    }
}

/// How to write `catalog` in the lock of the workspace at `workspace`:
/// relative to it when both resolve, so a workspace and its catalog can
/// move together; as given otherwise.
pub fn catalog_reference(workspace: &Path, catalog: &Path) -> String {
    if let Some(Ok(registry)) = catalog.to_str().and_then(crate::oci::OciCatalog::parse) {
        return registry.to_string();
    }
    let (Ok(from), Ok(to)) = (workspace.canonicalize(), catalog.canonicalize()) else {
        return catalog.to_string_lossy().replace('\\', "/");
    };
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return to
            .iter()
            .collect::<PathBuf>()
            .to_string_lossy()
            .replace('\\', "/");
    }
    let mut relative = PathBuf::new();
    for _ in common..from.len() {
        relative.push("..");
    }
    for part in &to[common..] {
        relative.push(part);
    }
    let text = relative.to_string_lossy().replace('\\', "/");
    if text.is_empty() {
        ".".to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock_with_format(format: u32) -> tempfile::TempDir {
        let folder = tempfile::tempdir().expect("a temporary folder");
        std::fs::write(
            folder.path().join(LOCK_FILE),
            format!("format = {format}\n"),
        )
        .expect("a lock");
        folder
    }

    #[test]
    fn a_format_1_lock_is_read_and_written_back_as_the_current_format() {
        let folder = lock_with_format(1);
        let lock = WorkspaceLock::read(folder.path()).expect("format 1 is read");
        assert_eq!(lock.format, 1);
        lock.write(folder.path()).expect("written");
        let text = std::fs::read_to_string(folder.path().join(LOCK_FILE)).expect("read");
        assert!(text.contains(&format!("format = {FORMAT}\n")), "{text}");
        assert_eq!(FORMAT, 2);
    }

    #[test]
    fn a_lock_from_a_newer_contrib_is_refused_with_both_formats_named() {
        let folder = lock_with_format(3);
        let error = WorkspaceLock::read(folder.path()).expect_err("format 3 is not read");
        assert!(
            error
                .to_string()
                .contains("is format 3, but this build reads formats 1 and 2"),
            "{error}"
        );
    }
}

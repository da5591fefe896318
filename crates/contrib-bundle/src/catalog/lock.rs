//! `catalog.lock`: its format, and reading and writing it inside the
//! catalog.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{read_lock_text, Error, LOCK_FILE};
use crate::Permissions;
use contrib_core::fs::{self, Root};

/// `catalog.lock`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// Key ids whose signatures the catalog requires; empty: none required.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trusted_keys: Vec<String>,
    #[serde(default)]
    pub published: Vec<LockEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockEntry {
    pub plugin: String,
    pub version: semver::Version,
    pub digest: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub yanked: bool,
    pub permissions: Permissions,
}

impl Lock {
    /// Reads the lock of the catalog at `folder`; a folder without one, or
    /// no folder yet (a first publish creates it), is an empty catalog.
    pub fn read(folder: &Path) -> Result<Lock, Error> {
        if std::fs::symlink_metadata(folder).is_err() {
            return Ok(Lock::default());
        }
        Lock::read_in(&Root::open(folder)?)
    }

    pub(super) fn read_in(root: &Root) -> Result<Lock, Error> {
        let path = root.path().join(LOCK_FILE);
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(Lock::default());
        }
        let text = read_lock_text(root)?;
        Lock::parse(&path, &text)
    }

    /// The lock in `text`, refused when it is not the lock's shape or an
    /// entry names a plugin as anything but `scope/name` (a tampered
    /// `../../etc` would otherwise lead a path out of the catalog).
    pub(super) fn parse(path: &Path, text: &str) -> Result<Lock, Error> {
        let lock: Lock = toml::from_str(text).map_err(|source| Error::NotALock {
            path: path.to_path_buf(),
            source,
        })?;
        if let Some(entry) = lock
            .published
            .iter()
            .find(|entry| !crate::is_plugin_name(&entry.plugin))
        {
            return Err(Error::NotAPluginName {
                path: path.to_path_buf(),
                plugin: entry.plugin.clone(),
            });
        }
        Ok(lock)
    }

    /// Writes the lock atomically.
    pub fn write(&self, root: &Root) -> Result<(), Error> {
        let text = toml::to_string_pretty(self).map_err(Error::LockNotWritten)?;
        let text = format!(
            "# Written by `contrib publish` and `contrib yank`; do not edit by hand.\n{text}"
        );
        Ok(fs::write_atomically(
            &root.path().join(LOCK_FILE),
            text.as_bytes(),
        )?)
    }

    /// The newest version of `plugin` ever published, yanked or not.
    pub fn newest(&self, plugin: &str) -> Option<&LockEntry> {
        self.entries(plugin)
            .max_by(|a, b| a.version.cmp_precedence(&b.version))
    }

    /// The newest version of `plugin` that new installs may pick.
    pub fn newest_installable(&self, plugin: &str) -> Option<&LockEntry> {
        self.entries(plugin)
            .filter(|entry| !entry.yanked)
            .max_by(|a, b| a.version.cmp_precedence(&b.version))
    }

    /// The entry of `plugin@version`, or of a version equal to it under
    /// SemVer precedence (which ignores build metadata).
    pub fn entry(&self, plugin: &str, version: &semver::Version) -> Option<&LockEntry> {
        self.entries(plugin)
            .find(|entry| entry.version.cmp_precedence(version).is_eq())
    }

    fn entries<'a>(&'a self, plugin: &str) -> impl Iterator<Item = &'a LockEntry> {
        let plugin = plugin.to_string();
        self.published
            .iter()
            .filter(move |entry| entry.plugin == plugin)
    }
}

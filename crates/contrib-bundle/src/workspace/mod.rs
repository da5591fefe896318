//! The workspace's side of trust: where a bundle somebody else wrote
//! becomes something this workspace runs.
//!
//! A bundle says what its author claims: its `permissions`, the owner it
//! requests, the suppressions and `[lints]` levels it was built under, even
//! what its tools do, since those came from the author's `contrib.toml`.
//! None of that is believed here. What the workspace approved is a record
//! it keeps, never a pointer into a catalog:
//!
//! - [`lock`]: what was approved (version, digest, the permissions as
//!   granted, by whom, when, under which relaxations) is recorded in
//!   `contrib.lock`, beside `contrib.toml`;
//! - [`approved`]: the workspace's own copy of every bundle it approved,
//!   which updates, diffs and loads compare with, never the catalog's;
//! - [`load`](mod@load): a workspace's runtime loads exactly what its lock
//!   pins, digests checked, each judged on the bundle itself under the
//!   policy as it is now ([`admit`]), and gets [`Approved`] bundles, the
//!   only kind [`policy`] and the runtime's installed path accept;
//! - [`policy`]: the installer's tools, egress and gates as the runtime
//!   applies them to each call, read live each turn.
//!
//! Installing (reading a candidate back as a manifest and checking it for
//! the person who approves it) is the command line's (`contrib::trust`);
//! what it approves is recorded here ([`Workspace::record`]).

pub mod admit;
pub mod approved;
pub mod load;
pub mod lock;
pub mod policy;
mod refused;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use contrib_core::config::{self, Config};
use contrib_core::diagnostic::Diagnostic;
use contrib_core::fs::{Access, Guard};
use contrib_core::vocabulary::Owner;

use crate::catalog;
use crate::{Bundle, Permissions};

pub use load::{fetch, load, Fetched, Loaded};
pub use lock::{catalog_path, catalog_reference, Installed, Relaxed, WorkspaceLock, LOCK_FILE};
pub use policy::{CallDecision, Policy};
pub use refused::Refused;

/// The authority a plugin's contributors get: its requested owner, never
/// more than the installer's. A person installing an operator's plugin
/// does not make it platform text.
pub fn grant(requested: Owner, installer: Owner) -> Owner {
    contrib_core::policy::authority::narrower(requested, installer)
}

/// A plugin version this workspace approved and that passed its judgement
/// at load: the only way a bundle reaches the runtime's installed path.
///
/// Its bundle is the workspace's approved copy, verified by digest, as
/// granted: each contributor's owner narrowed to the granted authority,
/// and the permissions those the workspace's own tools make of it. The
/// digest is the one approved, so records name what was approved.
#[derive(Debug, Clone, PartialEq)]
pub struct Approved {
    bundle: Bundle,
    installed: Installed,
}

impl Approved {
    pub fn bundle(&self) -> &Bundle {
        &self.bundle
    }

    /// Its entry in `contrib.lock`.
    pub fn installed(&self) -> &Installed {
        &self.installed
    }
}

/// A folder holding `contrib.toml`, and its lock.
#[derive(Debug)]
pub struct Workspace {
    pub folder: PathBuf,
    pub config: Config,
    /// What was wrong with `contrib.toml`.
    pub config_diagnostics: Vec<Diagnostic>,
    pub lock: WorkspaceLock,
    /// The workspace's exclusive lock, held by a writer until it is done.
    guard: Option<Guard>,
}

/// What a person approved, to be recorded: a version from a catalog, as
/// the workspace judged it when it was installed.
#[derive(Debug, Clone, Copy)]
pub struct Approval<'a> {
    /// The catalog it came from.
    pub catalog: &'a Path,
    /// As the catalog published it, and its bytes, which the workspace
    /// keeps.
    pub bundle: &'a Bundle,
    pub bytes: &'a [u8],
    /// The authority granted.
    pub granted: Owner,
    /// Its permissions as the workspace's tools make of them.
    pub permissions: &'a Permissions,
    /// What the workspace's `[trust]` table relaxed for it.
    pub relaxed: &'a [Relaxed],
}

/// Why a workspace could not be opened, or an install or uninstall not
/// recorded.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// `folder` has no `contrib.toml`.
    NotAWorkspace(PathBuf),
    /// A file or the workspace's lock could not be read or taken.
    Fs(contrib_core::fs::Error),
    /// `contrib.lock` could not be read or written.
    Lock(lock::Error),
    /// The catalog an installed plugin came from could not be read.
    Catalog(catalog::Error),
    /// The approved copy could not be kept.
    Keep(approved::KeepError),
    /// The workspace was opened for reading; `lock` is its `contrib.lock`.
    OpenedForReading { lock: PathBuf },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotAWorkspace(folder) => write!(
                f,
                "`{}` is not a workspace: it has no `{}`",
                folder.display(),
                config::FILE_NAME
            ),
            Error::Fs(error) => error.fmt(f),
            Error::Lock(error) => error.fmt(f),
            Error::Catalog(error) => error.fmt(f),
            Error::Keep(error) => error.fmt(f),
            Error::OpenedForReading { lock } => write!(
                f,
                "cannot change `{}`: the workspace was opened for reading, without its lock",
                lock.display()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Fs(error) => Some(error),
            Error::Lock(error) => Some(error),
            Error::Catalog(error) => Some(error),
            Error::Keep(error) => Some(error),
            Error::NotAWorkspace(_) | Error::OpenedForReading { .. } => None,
        }
    }
}

impl From<contrib_core::fs::Error> for Error {
    fn from(error: contrib_core::fs::Error) -> Error {
        Error::Fs(error)
    }
}

impl From<lock::Error> for Error {
    fn from(error: lock::Error) -> Error {
        Error::Lock(error)
    }
}

impl Workspace {
    /// The workspace at `folder`, which must hold `contrib.toml`, for
    /// reading.
    pub fn open(folder: &Path) -> Result<Workspace, Error> {
        let path = Self::config_path(folder)?;
        let (config, config_diagnostics) = Config::load(&path)?;
        let lock = WorkspaceLock::read(folder)?;
        Ok(Workspace {
            folder: folder.to_path_buf(),
            config,
            config_diagnostics,
            lock,
            guard: None,
        })
    }

    /// The workspace at `folder` for a writer (install, update,
    /// uninstall): its exclusive lock is taken before `contrib.lock` is
    /// read and held until the workspace is dropped, after the lock is
    /// written. `waiting` hears when another writer holds it.
    pub fn open_for_change(folder: &Path, waiting: &dyn Fn(&str)) -> Result<Workspace, Error> {
        Self::config_path(folder)?;
        let guard = contrib_core::fs::lock(folder, Access::Exclusive, waiting)?;
        let mut workspace = Self::open(folder)?;
        workspace.guard = Some(guard);
        Ok(workspace)
    }

    fn config_path(folder: &Path) -> Result<PathBuf, Error> {
        let path = folder.join(config::FILE_NAME);
        if !path.is_file() {
            return Err(Error::NotAWorkspace(folder.to_path_buf()));
        }
        Ok(path)
    }

    /// The authority an install grants at most: `explicit` (`--as`), else
    /// `[trust] as`, else a person's, the least.
    pub fn authority(&self, explicit: Option<Owner>) -> Owner {
        explicit
            .or(self.config.trust.installs_as)
            .unwrap_or(Owner::Person)
    }

    /// The policy calls are held to, as the files are now.
    pub fn policy(&self) -> Policy {
        Policy::new(self.config.clone(), &self.lock)
    }

    /// What the lock pins, judged under the policy as it is now.
    pub fn load(&self) -> Loaded {
        load(&self.folder, &self.config, &self.lock)
    }

    /// The newest version of an installed plugin its catalog offers, when
    /// it is newer than the one installed.
    pub fn newer(&self, installed: &Installed) -> Result<Option<semver::Version>, Error> {
        let lock =
            catalog::Lock::read(&catalog_path(&self.folder, installed)).map_err(Error::Catalog)?;
        Ok(lock
            .newest_installable(&installed.plugin)
            .map(|entry| entry.version.clone())
            .filter(|version| *version > installed.version))
    }

    /// Records `approval` as approved by `approved_by`, at `at`, `how`:
    /// keeps the workspace's copy of the bundle first, then writes the lock
    /// pinning it, then removes copies no entry has named for a write.
    pub fn record(
        &mut self,
        approval: Approval<'_>,
        approved_by: Owner,
        at: &str,
        how: &str,
    ) -> Result<Installed, Error> {
        self.must_hold_lock()?;
        let bundle = approval.bundle;
        let approved_copy =
            approved::keep(&self.folder, bundle, approval.bytes).map_err(Error::Keep)?;
        let entry = Installed {
            plugin: bundle.plugin.clone(),
            version: bundle.version.clone(),
            digest: bundle.digest.clone().unwrap_or_default(),
            approved_copy: Some(approved_copy),
            catalog: catalog_reference(&self.folder, approval.catalog),
            requested_owner: bundle.requested_owner,
            granted_owner: approval.granted,
            approved_by,
            approved_at: at.to_string(),
            approval: how.to_string(),
            permissions: approval.permissions.clone(),
            relaxed: approval.relaxed.to_vec(),
        };
        let before = self.lock.clone();
        self.lock.put(entry.clone());
        self.lock.write(&self.folder)?;
        approved::prune(&self.folder, &before, &self.lock);
        Ok(entry)
    }

    /// Removes `plugin` (its approved copy goes at the next write); whether
    /// it was installed.
    pub fn uninstall(&mut self, plugin: &str) -> Result<bool, Error> {
        self.must_hold_lock()?;
        let before = self.lock.clone();
        if !self.lock.remove(plugin) {
            return Ok(false);
        }
        self.lock.write(&self.folder)?;
        approved::prune(&self.folder, &before, &self.lock);
        Ok(true)
    }

    /// A writer that did not take the workspace's lock could lose another
    /// writer's record: refused, not risked.
    fn must_hold_lock(&self) -> Result<(), Error> {
        match self.guard {
            Some(_) => Ok(()),
            None => Err(Error::OpenedForReading {
                lock: self.folder.join(LOCK_FILE),
            }),
        }
    }

    /// Which of the versions `running` (`scope/name@version`) this workspace
    /// withdrew, and why: its plugin
    /// uninstalled, or the version yanked from its catalog (or the catalog no
    /// longer readable, which fails closed). A version updated away from keeps
    /// running until the conversation's next compaction, as any edit does.
    pub fn withdrawn(&self, running: &BTreeSet<String>) -> Vec<(String, String)> {
        let mut gone = Vec::new();
        for id in running {
            let Some((plugin, version)) = id.rsplit_once('@') else {
                continue;
            };
            let Some(entry) = self.lock.get(plugin) else {
                gone.push((id.clone(), "uninstalled from this workspace".to_string()));
                continue;
            };
            let Ok(version) = semver::Version::parse(version) else {
                continue;
            };
            let why = match catalog::Lock::read(&catalog_path(&self.folder, entry)) {
                Ok(lock) => match lock.entry(plugin, &version) {
                    Some(published) if !published.yanked => continue,
                    Some(_) => "yanked from its catalog".to_string(),
                    None => "no longer in its catalog".to_string(),
                },
                Err(why) => format!("its catalog cannot be read: {why}"),
            };
            gone.push((id.clone(), why));
        }
        gone
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_writer_holding_the_workspace_lock_changes_it() {
        let folder = tempfile::tempdir().expect("a folder");
        std::fs::write(folder.path().join(config::FILE_NAME), "").expect("written");
        let mut reader = Workspace::open(folder.path()).expect("a workspace");
        let refused = reader.uninstall("acme/x").expect_err("refused");
        assert!(
            matches!(refused, Error::OpenedForReading { .. }),
            "{refused}"
        );
        assert!(
            refused.to_string().contains("without its lock"),
            "{refused}"
        );
        let mut writer = Workspace::open_for_change(folder.path(), &|_| {}).expect("a workspace");
        assert!(matches!(writer.uninstall("acme/x"), Ok(false)));
        // A second writer waits, and says so, until the first is done.
        let said = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let heard = said.clone();
        let path = folder.path().to_path_buf();
        let second = std::thread::spawn(move || {
            Workspace::open_for_change(&path, &|message| {
                *heard.lock().expect("a message") = message.to_string();
            })
            .map(|_| ())
        });
        while said.lock().expect("a message").is_empty() {
            std::thread::yield_now();
        }
        assert!(!second.is_finished());
        drop(writer);
        assert!(matches!(second.join().expect("joined"), Ok(())));
    }
}

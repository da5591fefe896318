//! Installing, updating and uninstalling: what a person approves, decided
//! under the workspace's own policy.
//!
//! [`Workspace::candidate`] takes a version from a catalog and re-checks it
//! for this workspace; the command line shows it, asks for approval when
//! it needs one, and [`Workspace::record`] writes what was approved to
//! `contrib.lock`. A first install always needs approval. An update needs
//! none when the new version asks for nothing beyond what was approved
//! (the delta of [`crate::bundle::diff`], computed on the bundles as this
//! workspace reads them, never as they describe themselves), against the
//! workspace's own copy of what was approved ([`super::approved`]), never
//! the catalog's.
//!
//! Every writer opens the workspace with [`Workspace::open_for_change`],
//! which holds the workspace's exclusive lock ([`crate::fs::lock`], the
//! one catalogs use) from reading `contrib.lock` to writing it: installs,
//! updates and uninstalls running at once in one workspace each see the
//! others' records, and none is lost.

use std::path::{Path, PathBuf};

use crate::bundle::diff::{self, Change};
use crate::bundle::{catalog, Bundle};
use crate::codes::{SYSTEM_PROMPT_OVER_BUDGET, WITHDRAWN_VERSION};
use crate::config::{self, Config};
use crate::diagnostic::{Diagnostic, Severity};
use crate::ir::Owner;
use crate::source::Span;

use super::load::{fetch, Fetched, Loaded};
use super::lock::{catalog_path, catalog_reference, Installed, WorkspaceLock};
use super::policy::Policy;
use super::recheck::{recheck, Recheck, Relaxations};
use super::refused::Refused;

/// A folder holding `contrib.toml`, and its lock.
#[derive(Debug)]
pub struct Workspace {
    pub folder: PathBuf,
    pub config: Config,
    /// What was wrong with `contrib.toml`.
    pub config_diagnostics: Vec<Diagnostic>,
    pub lock: WorkspaceLock,
    /// The workspace's exclusive lock, held by a writer until it is done.
    guard: Option<crate::fs::Guard>,
}

/// A version considered for installing, re-checked.
#[derive(Debug)]
pub struct Candidate {
    pub catalog: PathBuf,
    /// As the catalog published it.
    pub bundle: Bundle,
    /// Its bytes, kept by the workspace when it is approved.
    pub bytes: Vec<u8>,
    pub recheck: Recheck,
    /// The authority of whoever installs.
    pub installer: Owner,
    /// What the workspace approved before, for this plugin.
    pub previous: Option<Installed>,
    /// What changes from what was approved before; empty for a first
    /// install, which needs approval as a whole.
    pub changes: Vec<Change>,
    /// Why what was approved before cannot be compared with: its copy in
    /// the workspace missing or not the one the lock pins. The candidate
    /// then needs a fresh approval.
    pub unrecorded: Option<Refused>,
}

impl Candidate {
    pub fn refused(&self) -> bool {
        self.recheck.refused()
    }

    /// Whether a person must approve it: a first install always, an
    /// update when it asks for more.
    pub fn needs_approval(&self) -> bool {
        self.previous.is_none() || diff::needs_approval(&self.changes)
    }
}

/// Why a workspace could not be opened, or an install or uninstall not
/// recorded.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// `folder` has no `contrib.toml`.
    NotAWorkspace(PathBuf),
    /// A file or the workspace's lock could not be read or taken.
    Fs(crate::fs::Error),
    /// `contrib.lock` could not be read or written.
    Lock(super::lock::Error),
    /// The catalog an installed plugin came from could not be read.
    Catalog(catalog::Error),
    /// The approved copy could not be kept.
    Keep(super::approved::KeepError),
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

impl From<crate::fs::Error> for Error {
    fn from(error: crate::fs::Error) -> Error {
        Error::Fs(error)
    }
}

impl From<super::lock::Error> for Error {
    fn from(error: super::lock::Error) -> Error {
        Error::Lock(error)
    }
}

into_text!(Error);

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
        let guard = crate::fs::lock(folder, crate::fs::Access::Exclusive, waiting)?;
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

    /// What the lock pins, re-checked under the policy as it is now.
    pub fn load(&self) -> Loaded {
        super::load(&self.folder, &self.config, &self.lock)
    }

    /// `plugin@version` from the catalog at `catalog`, re-checked for this
    /// workspace as installed by `installer`.
    pub fn candidate(
        &self,
        catalog: &Path,
        plugin: &str,
        version: &semver::Version,
        installer: Owner,
    ) -> Result<Candidate, Refused> {
        let Fetched {
            bundle,
            bytes,
            entry,
        } = fetch(catalog, plugin, version)?;
        if entry.yanked {
            return Err(Refused {
                plugin: bundle.id(),
                rule: &WITHDRAWN_VERSION,
                reason: "its catalog has withdrawn this version (`contrib yank`)".to_string(),
            });
        }
        let mut checked = recheck(&bundle, &self.config, installer, Relaxations::Configured);
        let previous = self.lock.get(plugin).cloned();
        let (changes, unrecorded) = match &previous {
            Some(previous) => match self.changes_from(previous, &checked.approved) {
                Ok(changes) => (changes, None),
                Err(refused) => (
                    vec![Change::asks_for_more(format!(
                        "what {} was approved for cannot be compared with: its approved copy is missing or altered",
                        previous.id()
                    ))],
                    Some(refused),
                ),
            },
            None => (Vec::new(), None),
        };
        if let Some(warning) = self.kept_prompt_warning(&checked) {
            checked.diagnostics.push(warning);
        }
        Ok(Candidate {
            catalog: catalog.to_path_buf(),
            bundle,
            bytes,
            recheck: checked,
            installer,
            previous,
            changes,
            unrecorded,
        })
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

    /// Records `candidate` as approved by `approved_by`, at `at`, `how`:
    /// keeps the workspace's copy of the bundle first, then writes the lock
    /// pinning it, then removes copies no entry has named for a write.
    pub fn record(
        &mut self,
        candidate: &Candidate,
        approved_by: Owner,
        at: &str,
        how: &str,
    ) -> Result<Installed, Error> {
        self.must_hold_lock()?;
        let bundle = &candidate.bundle;
        let approved_copy =
            super::approved::keep(&self.folder, bundle, &candidate.bytes).map_err(Error::Keep)?;
        let entry = Installed {
            plugin: bundle.plugin.clone(),
            version: bundle.version.clone(),
            digest: bundle.digest.clone().unwrap_or_default(),
            approved_copy: Some(approved_copy),
            catalog: catalog_reference(&self.folder, &candidate.catalog),
            requested_owner: bundle.requested_owner,
            granted_owner: candidate.recheck.granted,
            approved_by,
            approved_at: at.to_string(),
            approval: how.to_string(),
            permissions: candidate.recheck.approved.permissions.clone(),
            relaxed: candidate.recheck.relaxed.clone(),
        };
        let before = self.lock.clone();
        self.lock.put(entry.clone());
        self.lock.write(&self.folder)?;
        super::approved::prune(&self.folder, &before, &self.lock);
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
        super::approved::prune(&self.folder, &before, &self.lock);
        Ok(true)
    }

    /// A writer that did not take the workspace's lock could lose another
    /// writer's record: refused, not risked.
    fn must_hold_lock(&self) -> Result<(), Error> {
        match self.guard {
            Some(_) => Ok(()),
            None => Err(Error::OpenedForReading {
                lock: self.folder.join(super::LOCK_FILE),
            }),
        }
    }

    /// What `approved` asks for beyond the version approved before: the
    /// whole delta between the workspace's copy of what was approved and
    /// `approved`, both as this workspace reads them. The catalog's copy
    /// is never consulted: a catalog that replaced or deleted it must not
    /// decide what the approval was.
    fn changes_from(
        &self,
        previous: &Installed,
        approved: &Bundle,
    ) -> Result<Vec<Change>, Refused> {
        Ok(diff::diff(
            &self.approved_as_read(previous)?.approved,
            approved,
        ))
    }

    /// The workspace's copy of what `previous` approved, re-read under this
    /// workspace's policy with the authority and relaxations it recorded.
    pub fn approved_as_read(&self, previous: &Installed) -> Result<Recheck, Refused> {
        let bundle = super::approved::read(&self.folder, previous)?;
        Ok(recheck(
            &bundle,
            &self.config,
            previous.granted_owner,
            Relaxations::Recorded(&previous.relaxed),
        ))
    }

    /// Which of the versions `running` (`scope/name@version`) this workspace
    /// withdrew, and why: its plugin
    /// uninstalled, or the version yanked from its catalog (or the catalog no
    /// longer readable, which fails closed). A version updated away from keeps
    /// running until the conversation's next compaction, as any edit does.
    pub fn withdrawn(&self, running: &std::collections::BTreeSet<String>) -> Vec<(String, String)> {
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

    /// A warning when this plugin and the others installed here together
    /// put more before every conversation than the workspace's share: at
    /// run time the lowest priority is refused first.
    fn kept_prompt_warning(&self, checked: &Recheck) -> Option<Diagnostic> {
        let others: u64 = self
            .load()
            .approved
            .iter()
            .filter(|other| other.bundle().plugin != checked.approved.plugin)
            .map(|other| other.bundle().kept_share())
            .sum();
        let this = checked.approved.kept_share();
        let limit = self.config.system_prompt_budget();
        if others + this <= limit {
            return None;
        }
        let name = &checked.approved.plugin;
        let at = checked
            .source
            .text
            .find(name.as_str())
            .map_or(Span::point(0), |start| Span::new(start, start + name.len()));
        Some(
            Diagnostic::new(
                &SYSTEM_PROMPT_OVER_BUDGET,
                format!(
                    "with the plugins installed here, what goes before every conversation adds up to {} tokens, over the workspace's {limit}",
                    others + this
                ),
            )
            .with_severity(Severity::Warning)
            .primary(at, format!("{this} tokens of it"))
            .help("at run time what does not fit is refused, lowest priority first; uninstall a plugin or raise `context_budget`"),
        )
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

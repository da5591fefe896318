//! Installing, updating and uninstalling: what a person approves, decided
//! under the workspace's own policy.
//!
//! [`Workspace::candidate`] takes a version from a catalog and re-checks it
//! for this workspace; the command line shows it, asks for approval when
//! it needs one, and [`Workspace::record`] writes what was approved to
//! `contrib.lock`. A first install always needs approval. An update needs
//! none when the new version asks for nothing beyond what was approved
//! (the delta of [`crate::bundle::diff`], computed on the bundles as this
//! workspace reads them, never as they describe themselves).

use std::path::{Path, PathBuf};

use crate::bundle::diff::{self, Change};
use crate::bundle::{catalog, Bundle};
use crate::config::{self, Config};
use crate::diagnostic::{Diagnostic, Severity};
use crate::ir::Owner;
use crate::rules::{SYSTEM_PROMPT_OVER_BUDGET, WITHDRAWN_VERSION};
use crate::source::Span;

use super::load::{fetch, Fetched, Loaded, Refused};
use super::lock::{catalog_path, catalog_reference, Installed, WorkspaceLock};
use super::policy::Policy;
use super::recheck::{recheck, Recheck, Relaxations};

/// A folder holding `contrib.toml`, and its lock.
#[derive(Debug)]
pub struct Workspace {
    pub folder: PathBuf,
    pub config: Config,
    /// What was wrong with `contrib.toml`.
    pub config_diagnostics: Vec<Diagnostic>,
    pub lock: WorkspaceLock,
}

/// A version considered for installing, re-checked.
#[derive(Debug)]
pub struct Candidate {
    pub catalog: PathBuf,
    /// As the catalog published it.
    pub bundle: Bundle,
    pub recheck: Recheck,
    /// The authority of whoever installs.
    pub installer: Owner,
    /// What the workspace approved before, for this plugin.
    pub previous: Option<Installed>,
    /// What changes from what was approved before; empty for a first
    /// install, which needs approval as a whole.
    pub changes: Vec<Change>,
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

impl Workspace {
    /// The workspace at `folder`, which must hold `contrib.toml`.
    pub fn open(folder: &Path) -> Result<Workspace, String> {
        let path = folder.join(config::FILE_NAME);
        if !path.is_file() {
            return Err(format!(
                "`{}` is not a workspace: it has no `{}`",
                folder.display(),
                config::FILE_NAME
            ));
        }
        let (config, config_diagnostics) = Config::load(&path)?;
        let lock = WorkspaceLock::read(folder)?;
        Ok(Workspace {
            folder: folder.to_path_buf(),
            config,
            config_diagnostics,
            lock,
        })
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
        let Fetched { bundle, entry } = fetch(catalog, plugin, version)?;
        if entry.yanked {
            return Err(Refused {
                plugin: bundle.id(),
                rule: &WITHDRAWN_VERSION,
                reason: "its catalog has withdrawn this version (`contrib yank`)".to_string(),
            });
        }
        let mut checked = recheck(&bundle, &self.config, installer, Relaxations::Configured);
        let previous = self.lock.get(plugin).cloned();
        let changes = match &previous {
            Some(previous) => self.changes_from(previous, &checked.approved),
            None => Vec::new(),
        };
        if let Some(warning) = self.kept_prompt_warning(&checked) {
            checked.diagnostics.push(warning);
        }
        Ok(Candidate {
            catalog: catalog.to_path_buf(),
            bundle,
            recheck: checked,
            installer,
            previous,
            changes,
        })
    }

    /// The newest version of an installed plugin its catalog offers, when
    /// it is newer than the one installed.
    pub fn newer(&self, installed: &Installed) -> Result<Option<semver::Version>, String> {
        let lock = catalog::Lock::read(&catalog_path(&self.folder, installed))?;
        Ok(lock
            .newest_installable(&installed.plugin)
            .map(|entry| entry.version.clone())
            .filter(|version| *version > installed.version))
    }

    /// Records `candidate` as approved by `approved_by`, at `at`, `how`.
    pub fn record(
        &mut self,
        candidate: &Candidate,
        approved_by: Owner,
        at: &str,
        how: &str,
    ) -> Result<Installed, String> {
        let bundle = &candidate.bundle;
        let entry = Installed {
            plugin: bundle.plugin.clone(),
            version: bundle.version.clone(),
            digest: bundle.digest.clone().unwrap_or_default(),
            catalog: catalog_reference(&self.folder, &candidate.catalog),
            requested_owner: bundle.requested_owner,
            granted_owner: candidate.recheck.granted,
            approved_by,
            approved_at: at.to_string(),
            approval: how.to_string(),
            permissions: candidate.recheck.approved.permissions.clone(),
            relaxed: candidate.recheck.relaxed.clone(),
        };
        self.lock.put(entry.clone());
        self.lock.write(&self.folder)?;
        Ok(entry)
    }

    /// Removes `plugin`; whether it was installed.
    pub fn uninstall(&mut self, plugin: &str) -> Result<bool, String> {
        if !self.lock.remove(plugin) {
            return Ok(false);
        }
        self.lock.write(&self.folder)?;
        Ok(true)
    }

    /// What `approved` asks for beyond the version installed before: the
    /// whole delta between the two as this workspace reads them, or, when
    /// the old one no longer loads, against the permissions approved.
    fn changes_from(&self, previous: &Installed, approved: &Bundle) -> Vec<Change> {
        let old = fetch(
            &catalog_path(&self.folder, previous),
            &previous.plugin,
            &previous.version,
        )
        .ok()
        .map(|fetched| {
            recheck(
                &fetched.bundle,
                &self.config,
                previous.granted_owner,
                Relaxations::Recorded(&previous.relaxed),
            )
        });
        match old {
            Some(old) => diff::diff(&old.approved, approved),
            None => diff::permissions(&previous.permissions, &approved.permissions),
        }
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

//! Installing, updating and uninstalling: what a person approves, decided
//! under the workspace's own policy.
//!
//! [`Install::candidate`] takes a version from a catalog and re-checks it
//! for this workspace; the command line shows it, asks for approval when
//! it needs one, and [`Install::record_candidate`] writes what was
//! approved to `contrib.lock` ([`Workspace::record`]). A first install always needs approval. An update needs
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
use crate::bundle::Bundle;
use crate::codes::{SYSTEM_PROMPT_OVER_BUDGET, WITHDRAWN_VERSION};
use crate::diagnostic::{Diagnostic, Severity};
use crate::ir::Owner;
use crate::source::Span;
use contrib_bundle::workspace::{fetch, Approval, Fetched, Installed, Refused};

pub use contrib_bundle::workspace::{Error, Workspace};

use super::recheck::{recheck, Recheck, Relaxations};

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

/// Installing, on the workspace that records what was approved: a
/// candidate re-checked for the person who approves it, and what it
/// changes from what was approved before.
pub trait Install {
    /// `plugin@version` from the catalog at `catalog`, re-checked for this
    /// workspace as installed by `installer`.
    fn candidate(
        &self,
        catalog: &Path,
        plugin: &str,
        version: &semver::Version,
        installer: Owner,
    ) -> Result<Candidate, Refused>;

    /// The workspace's copy of what `previous` approved, re-read under this
    /// workspace's policy with the authority and relaxations it recorded.
    fn approved_as_read(&self, previous: &Installed) -> Result<Recheck, Refused>;

    /// Records `candidate` as approved by `approved_by`, at `at`, `how`.
    fn record_candidate(
        &mut self,
        candidate: &Candidate,
        approved_by: Owner,
        at: &str,
        how: &str,
    ) -> Result<Installed, Error>;
}

impl Install for Workspace {
    /// `plugin@version` from the catalog at `catalog`, re-checked for this
    /// workspace as installed by `installer`.
    fn candidate(
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
            Some(previous) => match changes_from(self, previous, &checked.approved) {
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
        if let Some(warning) = kept_prompt_warning(self, &checked) {
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

    /// The workspace's copy of what `previous` approved, re-read under this
    /// workspace's policy with the authority and relaxations it recorded.
    fn approved_as_read(&self, previous: &Installed) -> Result<Recheck, Refused> {
        let bundle = super::approved::read(&self.folder, previous)?;
        Ok(recheck(
            &bundle,
            &self.config,
            previous.granted_owner,
            Relaxations::Recorded(&previous.relaxed),
        ))
    }

    fn record_candidate(
        &mut self,
        candidate: &Candidate,
        approved_by: Owner,
        at: &str,
        how: &str,
    ) -> Result<Installed, Error> {
        let approval = Approval {
            catalog: &candidate.catalog,
            bundle: &candidate.bundle,
            bytes: &candidate.bytes,
            granted: candidate.recheck.granted,
            permissions: &candidate.recheck.approved.permissions,
            relaxed: &candidate.recheck.relaxed,
        };
        self.record(approval, approved_by, at, how)
    }
}

/// What `approved` asks for beyond the version approved before: the
/// whole delta between the workspace's copy of what was approved and
/// `approved`, both as this workspace reads them. The catalog's copy is
/// never consulted: a catalog that replaced or deleted it must not decide
/// what the approval was.
fn changes_from(
    workspace: &Workspace,
    previous: &Installed,
    approved: &Bundle,
) -> Result<Vec<Change>, Refused> {
    Ok(diff::diff(
        &workspace.approved_as_read(previous)?.approved,
        approved,
    ))
}

/// A warning when this plugin and the others installed here together
/// put more before every conversation than the workspace's share: at
/// run time the lowest priority is refused first.
fn kept_prompt_warning(workspace: &Workspace, checked: &Recheck) -> Option<Diagnostic> {
    let others: u64 = workspace
        .load()
        .approved
        .iter()
        .filter(|other| other.bundle().plugin != checked.approved.plugin)
        .map(|other| other.bundle().kept_share())
        .sum();
    let this = checked.approved.kept_share();
    let limit = workspace.config.system_prompt_budget();
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

//! A workspace opened for hosting: what its lock pins, verified and
//! re-checked, and what a host does around every turn with it.
//!
//! This is the one route from bundles to a conversation that a platform
//! should take: [`Workspace::open`] loads only what `contrib.lock`
//! approves, through the trust stage; its conversations call tools through
//! an [`InstalledGate`] that decides from the workspace's policy; and
//! [`Workspace::before_turn`] reads `contrib.toml` and `contrib.lock`
//! again before each turn, so a tightened policy reaches a running
//! conversation at once and a version yanked or uninstalled since is
//! withdrawn from it. A plugin the workspace requires (`[trust]
//! required`, or installed as `operator`) that is refused at load stops it
//! from opening at all: no conversation composes without it.
//! `compose --workspace` and `simulate --workspace` run on it, as any host
//! does.

use std::fmt;
use std::path::{Path, PathBuf};

use super::compose::{Conversation, Start};
use super::gate::Gate;
use super::installed::{Installation, InstalledGate, Live};
use super::profiles::Profile;
use super::session::Session;
use crate::bundle::Bundle;
use crate::diagnostic::Diagnostic;
use crate::trust::install::Workspace as Files;

/// Why a workspace could not be opened for hosting.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum OpenError {
    /// The folder holds no `contrib.toml`.
    NotAWorkspace {
        /// The folder.
        folder: PathBuf,
    },
    /// `contrib.toml` or `contrib.lock` could not be read or parsed.
    Unreadable {
        /// The folder.
        folder: PathBuf,
        /// What went wrong, in a sentence.
        reason: String,
    },
    /// `contrib.toml` has errors: nothing is composed under a policy that
    /// does not say what it means.
    InvalidPolicy {
        /// The file.
        path: PathBuf,
        /// Its error diagnostics.
        diagnostics: Vec<Diagnostic>,
    },
    /// A plugin the workspace requires (`[trust] required`, or installed
    /// as `operator`) was refused at load: no conversation composes
    /// without it.
    RequiredRefused {
        /// `scope/name@version`.
        plugin: String,
        /// Why loading refused it.
        reason: String,
    },
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::NotAWorkspace { folder } => write!(
                f,
                "`{}` is not a workspace: it has no `{}`",
                folder.display(),
                crate::config::FILE_NAME
            ),
            OpenError::Unreadable { reason, .. } => f.write_str(reason),
            OpenError::InvalidPolicy { path, diagnostics } => write!(
                f,
                "`{}` has {} error(s); run `contrib check {}` to see them",
                path.display(),
                diagnostics.len(),
                path.display()
            ),
            OpenError::RequiredRefused { plugin, reason } => write!(
                f,
                "`{plugin}` is required in this workspace and was refused at load, so no conversation composes without it: {reason}. Approve it again with `contrib install`, or list it under `[trust] optional` to go on without it"
            ),
        }
    }
}

impl std::error::Error for OpenError {}

/// A workspace's approved installation, opened for hosting.
pub struct Workspace {
    folder: PathBuf,
    installation: Installation,
    live: Live,
    kept_tokens: u64,
    refused: Vec<String>,
}

impl Workspace {
    /// Opens the workspace at `folder`: reads `contrib.toml` and
    /// `contrib.lock`, loads each pinned version (digest checked,
    /// re-checked under the policy as it is now) and keeps the ones that
    /// pass; the others are in [`Workspace::refused_at_load`].
    pub fn open(folder: &Path) -> Result<Workspace, OpenError> {
        if !folder.join(crate::config::FILE_NAME).is_file() {
            return Err(OpenError::NotAWorkspace {
                folder: folder.to_path_buf(),
            });
        }
        let files = Files::open(folder).map_err(|reason| OpenError::Unreadable {
            folder: folder.to_path_buf(),
            reason: reason.to_string(),
        })?;
        let errors: Vec<Diagnostic> = files
            .config_diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.is_error())
            .cloned()
            .collect();
        if !errors.is_empty() {
            return Err(OpenError::InvalidPolicy {
                path: folder.join(crate::config::FILE_NAME),
                diagnostics: errors,
            });
        }
        let loaded = files.load();
        if let Some(refused) = loaded
            .refused
            .iter()
            .find(|refused| required(&files, refused))
        {
            return Err(OpenError::RequiredRefused {
                plugin: refused.plugin.clone(),
                reason: format!("[{}] {}", refused.rule.name, refused.reason),
            });
        }
        let lock = folder.join(crate::trust::LOCK_FILE);
        Ok(Workspace {
            folder: folder.to_path_buf(),
            installation: Installation::new(&loaded.approved, &lock.display().to_string()),
            live: Live::new(files.policy()),
            kept_tokens: files.config.system_prompt_budget(),
            refused: loaded.refused.iter().map(ToString::to_string).collect(),
        })
    }

    /// The folder it was opened from.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The approved versions it composes.
    pub fn bundles(&self) -> &[Bundle] {
        self.installation.bundles()
    }

    /// What the lock pins but loading refused, and why.
    pub fn refused_at_load(&self) -> &[String] {
        &self.refused
    }

    /// A conversation on the approved versions, whose contributors' calls
    /// go through `gate` only after the workspace's policy allows them;
    /// call [`Workspace::admit`] once it is started or resumed.
    pub fn builder<'a, G: Gate>(
        &'a self,
        session: Session,
        profile: &'a Profile,
        gate: G,
    ) -> Start<'a, InstalledGate<G>> {
        let gate = InstalledGate::new(gate, self.live.clone());
        Conversation::builder(self.bundles(), session, gate, profile)
    }

    /// Holds a conversation to what the workspace allows: its kept part
    /// within the agent's context budget.
    pub fn admit<G: Gate>(&self, conversation: &mut Conversation<'_, G>) {
        self.installation.admit(conversation, self.kept_tokens);
    }

    /// Before a turn: the workspace's files read again. The gate decides
    /// with the policy as it is now (one that cannot be read refuses every
    /// call), and a version yanked or uninstalled since is withdrawn from
    /// the conversation.
    pub fn before_turn<G: Gate>(&self, conversation: &mut Conversation<'_, G>) {
        match Files::open(&self.folder) {
            Ok(files) => {
                for (plugin, why) in files.withdrawn(&conversation.plugins()) {
                    conversation.withdraw(&plugin, why);
                }
                self.live.set_policy(Ok(files.policy()));
            }
            Err(why) => self.live.set_policy(Err(why.to_string())),
        }
    }

    /// A person approved `contributor`'s gated call (`scope/name@version/id`).
    pub fn approve(&self, contributor: &str) {
        self.live.approve(contributor);
    }

    /// A person refused `contributor`'s gated call.
    pub fn deny(&self, contributor: &str) {
        self.live.deny(contributor);
    }
}

/// Whether the workspace requires the plugin loading refused: listed under
/// `[trust] required`, or installed as `operator` and not listed as
/// optional.
fn required(files: &Files, refused: &crate::trust::Refused) -> bool {
    let name = refused.plugin.split('@').next().unwrap_or_default();
    let granted = files
        .lock
        .get(name)
        .map_or(crate::ir::Owner::Person, |entry| entry.granted_owner);
    files.config.trust.requires(name, granted)
}

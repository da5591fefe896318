//! `compose` and `simulate` as a workspace's host runs them: only what the
//! workspace approved, its policy read again before every turn.
//!
//! `--workspace DIR` loads exactly what `DIR/contrib.lock` pins, through
//! the trust stage, and reports what it refuses. Before each turn the host
//! reads `contrib.toml` and `contrib.lock` again, and each pinned
//! version's catalog lock: the gate then decides with the policy as it is
//! now, and a version yanked or uninstalled since is withdrawn from the
//! conversation. `--bundles DIR` composes bundles nobody installed, for a
//! quick look, and says so.
//!
//! A turns file is the host's script (see `compose.rs`), so besides each
//! turn's circumstances it may say what reached the host before the turn:
//!
//! ```toml
//! [[turn]]
//! at = "2026-03-02T09:05:00Z"
//! approve = ["acme/deploy@1.0.0/notify"]   # a person approved its gated call
//! deny = []                                # … or refused it
//! withdraw = ["acme/clock@2.0.0"]          # the operator held this version
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::bundle::catalog;
use crate::runtime::installed::{Installation, InstalledGate, Live};
use crate::runtime::{Conversation, Gate, Profile, ScriptedGate, Session, Start};
use crate::trust::install::Workspace;

/// What `compose` and `simulate` load from.
pub struct Host {
    kind: Kind,
}

enum Kind {
    /// Approved by the workspace at this folder.
    Installed {
        folder: PathBuf,
        installation: Installation,
        live: Live,
        kept_tokens: u64,
        refused: Vec<String>,
    },
    /// A folder of bundles nobody installed.
    Unapproved(Vec<crate::bundle::Bundle>),
}

/// What reached the host before a turn, as a turns file scripts it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Events {
    /// Contributors (`scope/name@version/id`) whose gated call a person
    /// approved.
    #[serde(default)]
    approve: Vec<String>,
    /// … or refused.
    #[serde(default)]
    deny: Vec<String>,
    /// Plugin versions (`scope/name@version`) the host withdraws.
    #[serde(default)]
    withdraw: Vec<String>,
}

const EVENT_KEYS: [&str; 3] = ["approve", "deny", "withdraw"];

impl Host {
    /// Loads from `--workspace` or `--bundles`, whichever was given.
    pub fn open(workspace: Option<&Path>, bundles: Option<&Path>) -> Result<Host, String> {
        match (workspace, bundles) {
            (Some(folder), _) => Host::installed(folder),
            (None, Some(folder)) => Ok(Host {
                kind: Kind::Unapproved(unapproved_bundles(folder)?),
            }),
            (None, None) => Err(
                "give `--workspace DIR` (or `--bundles DIR` for bundles nobody installed)"
                    .to_string(),
            ),
        }
    }

    fn installed(folder: &Path) -> Result<Host, String> {
        let workspace = Workspace::open(folder)?;
        if workspace.config_diagnostics.iter().any(|d| d.is_error()) {
            return Err(format!(
                "`{}` has errors; run `contrib check` on a manifest there to see them",
                folder.join(crate::config::FILE_NAME).display()
            ));
        }
        let loaded = workspace.load();
        let lock = folder.join(crate::trust::LOCK_FILE);
        let installation = Installation::new(&loaded.approved, &lock.display().to_string());
        Ok(Host {
            kind: Kind::Installed {
                folder: folder.to_path_buf(),
                installation,
                live: Live::new(workspace.policy()),
                kept_tokens: workspace.config.system_prompt_budget(),
                refused: loaded.refused.iter().map(ToString::to_string).collect(),
            },
        })
    }

    /// The bundles it composes.
    pub fn bundles(&self) -> &[crate::bundle::Bundle] {
        match &self.kind {
            Kind::Installed { installation, .. } => installation.bundles(),
            Kind::Unapproved(bundles) => bundles,
        }
    }

    /// Whether what it composes was never approved.
    pub fn unapproved(&self) -> bool {
        matches!(self.kind, Kind::Unapproved(_))
    }

    /// What the lock pins but loading refused, and why.
    pub fn refused_at_load(&self) -> &[String] {
        match &self.kind {
            Kind::Installed { refused, .. } => refused,
            Kind::Unapproved(_) => &[],
        }
    }

    /// A conversation on what it loaded, with the gate it decides with;
    /// call [`Host::admit`] once it is started or resumed.
    /// `answers` are what the host's read tools answer, by tool name.
    pub fn builder<'a>(
        &'a self,
        session: Session,
        profile: &'a Profile,
        answers: BTreeMap<String, String>,
    ) -> Start<'a, Box<dyn Gate>> {
        let host = ScriptedGate { answers };
        let gate: Box<dyn Gate> = match &self.kind {
            Kind::Installed { live, .. } => Box::new(InstalledGate::new(host, live.clone())),
            Kind::Unapproved(_) => Box::new(host),
        };
        Conversation::builder(self.bundles(), session, gate, profile)
    }

    /// Holds a conversation to what the workspace allows (its kept part
    /// within the agent's budget); nothing for bundles nobody installed.
    pub fn admit(&self, conversation: &mut Conversation<'_, Box<dyn Gate>>) {
        if let Kind::Installed {
            installation,
            kept_tokens,
            ..
        } = &self.kind
        {
            installation.admit(conversation, *kept_tokens);
        }
    }

    /// Before a turn: the workspace's files read again (the policy the
    /// gate decides with, versions yanked or uninstalled since), then what
    /// the script says reached the host.
    pub fn before_turn(&self, conversation: &mut Conversation<'_, Box<dyn Gate>>, events: &Events) {
        if let Kind::Installed { folder, live, .. } = &self.kind {
            match Workspace::open(folder) {
                Ok(workspace) => {
                    for (plugin, why) in workspace.withdrawn(&conversation.plugins()) {
                        conversation.withdraw(&plugin, why);
                    }
                    live.set_policy(Ok(workspace.policy()));
                }
                Err(why) => live.set_policy(Err(why)),
            }
            for contributor in &events.approve {
                live.approve(contributor);
            }
            for contributor in &events.deny {
                live.deny(contributor);
            }
        }
        for plugin in &events.withdraw {
            conversation.withdraw(plugin, "held by the host");
        }
    }
}

/// The bundles under `folder`, verified, nobody having installed them:
/// the newest installable version of each plugin (see
/// `bundle::catalog::installable`, which applies a catalog's lock and
/// signature policy).
pub fn unapproved_bundles(folder: &Path) -> Result<Vec<crate::bundle::Bundle>, String> {
    let bundles = catalog::installable(folder)?;
    if bundles.is_empty() {
        return Err(format!("no bundles under `{}`", folder.display()));
    }
    Ok(bundles)
}

impl Events {
    /// Takes what reached the host before a turn out of the turn's table
    /// in a turns file (`approve`, `deny`, `withdraw`).
    pub fn take(turn: &mut toml::Table) -> Result<Events, String> {
        let mut events = toml::Table::new();
        for key in EVENT_KEYS {
            if let Some(value) = turn.remove(key) {
                events.insert(key.to_string(), value);
            }
        }
        events
            .try_into()
            .map_err(|error: toml::de::Error| error.message().to_string())
    }
}

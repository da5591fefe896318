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
//! A turns file is the host's script, so besides each turn's
//! circumstances it may say what reached the host before the turn:
//!
//! ```toml
//! [[turn]]
//! at = "2026-03-02T09:05:00Z"
//! approve = ["acme/deploy@1.0.0/notify"]   # a person approved its gated call
//! deny = []                                # … or refused it
//! withdraw = ["acme/clock@2.0.0"]          # the operator held this version
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::bundle::catalog;
use crate::runtime::installed::{Installation, InstalledGate, Live};
use crate::runtime::{CliGate, Conversation, Gate, Profile, Session, TurnInput};
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
            (None, Some(folder)) => {
                let bundles = catalog::installable(folder)?;
                if bundles.is_empty() {
                    return Err(format!("no bundles under `{}`", folder.display()));
                }
                Ok(Host {
                    kind: Kind::Unapproved(bundles),
                })
            }
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

    pub fn start<'a>(
        &'a self,
        session: Session,
        profile: &'a Profile,
    ) -> Conversation<'a, Box<dyn Gate>> {
        match &self.kind {
            Kind::Installed {
                installation,
                live,
                kept_tokens,
                ..
            } => {
                let gate: Box<dyn Gate> = Box::new(InstalledGate::new(CliGate, live.clone()));
                installation.start(session, gate, profile, *kept_tokens)
            }
            Kind::Unapproved(bundles) => {
                Conversation::start(bundles, session, Box::new(CliGate), profile)
            }
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

/// The turns of a turns file, each with what reached the host before it.
pub fn read_turns(path: &Path) -> Result<Vec<(TurnInput, Events)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read `{}`: {error}", path.display()))?;
    let fail = |message: String| format!("`{}`: {message}", path.display());
    let mut document: toml::Table = toml::from_str(&text)
        .map_err(|error: toml::de::Error| fail(error.message().to_string()))?;
    let turns = match document.remove("turn") {
        None => Vec::new(),
        Some(toml::Value::Array(turns)) => turns,
        Some(_) => {
            return Err(fail(
                "`turn` must be an array of tables (`[[turn]]`)".to_string(),
            ))
        }
    };
    if let Some(key) = document.keys().next() {
        return Err(fail(format!(
            "unknown key `{key}`; a turns file holds `[[turn]]` tables"
        )));
    }
    turns
        .into_iter()
        .map(|turn| {
            let toml::Value::Table(mut table) = turn else {
                return Err(fail("each `[[turn]]` must be a table".to_string()));
            };
            let mut events = toml::Table::new();
            for key in EVENT_KEYS {
                if let Some(value) = table.remove(key) {
                    events.insert(key.to_string(), value);
                }
            }
            let input: TurnInput = table
                .try_into()
                .map_err(|error: toml::de::Error| fail(error.message().to_string()))?;
            let events: Events = events
                .try_into()
                .map_err(|error: toml::de::Error| fail(error.message().to_string()))?;
            Ok((input, events))
        })
        .collect()
}

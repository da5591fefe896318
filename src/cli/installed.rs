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
use std::path::Path;

use serde::Deserialize;

use crate::bundle::catalog;
use crate::runtime::Workspace;
use crate::runtime::{Composer, Gate, Profile, ScriptedGate, Session, Start};

/// What `compose` and `simulate` load from.
pub(super) enum Host {
    /// Approved by a workspace.
    Installed(Workspace),
    /// A folder of bundles nobody installed.
    Unapproved(Vec<crate::bundle::Bundle>),
}

/// What reached the host before a turn, as a turns file scripts it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Events {
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
    /// Loads from `--workspace` or `--bundles`, whichever was given. A
    /// workspace's mirrors of registry catalogs are refreshed first, so
    /// that what was yanked there since is withdrawn here.
    pub(super) fn open(workspace: Option<&Path>, bundles: Option<&Path>) -> Result<Host, String> {
        match (workspace, bundles) {
            (Some(folder), _) => {
                super::oci::refresh_workspace(folder, &|message| {
                    super::output::status(format_args!("warning: {message}"))
                });
                Workspace::open(folder)
                    .map(Host::Installed)
                    .map_err(|error| error.to_string())
            }
            (None, Some(folder)) => Ok(Host::Unapproved(unapproved_bundles(folder)?)),
            (None, None) => Err(
                "give `--workspace DIR` (or `--bundles DIR` for bundles nobody installed)"
                    .to_string(),
            ),
        }
    }

    /// The bundles it composes.
    pub(super) fn bundles(&self) -> &[crate::bundle::Bundle] {
        match self {
            Host::Installed(workspace) => workspace.bundles(),
            Host::Unapproved(bundles) => bundles,
        }
    }

    /// Whether what it composes was never approved.
    pub(super) fn unapproved(&self) -> bool {
        matches!(self, Host::Unapproved(_))
    }

    /// What the lock pins but loading refused, and why.
    pub(super) fn refused_at_load(&self) -> &[String] {
        match self {
            Host::Installed(workspace) => workspace.refused_at_load(),
            Host::Unapproved(_) => &[],
        }
    }

    /// A conversation on what it loaded, with the gate it decides with;
    /// call [`Host::admit`] once it is started or resumed.
    /// `answers` are what the host's read tools answer, by tool name.
    pub(super) fn builder<'a>(
        &'a self,
        session: Session,
        profile: &'a Profile,
        answers: BTreeMap<String, String>,
    ) -> Start<'a, Box<dyn Gate + 'a>> {
        let host = ScriptedGate { answers };
        match self {
            Host::Installed(workspace) => {
                let start = workspace.builder(session, profile, host);
                start.boxed()
            }
            Host::Unapproved(bundles) => {
                Composer::builder(bundles, session, Box::new(host) as Box<dyn Gate>, profile)
            }
        }
    }

    /// Holds a conversation's kept part within the agent's budget: the
    /// workspace's, or for bundles nobody installed the default policy's
    /// (there is no `contrib.toml` to read one from), so a preview never
    /// shows a prompt the runtime would refuse.
    pub(super) fn admit<G: Gate>(&self, conversation: &mut Composer<'_, G>) {
        match self {
            Host::Installed(workspace) => workspace.admit(conversation),
            Host::Unapproved(_) => conversation.limit_kept(
                crate::config::Config::default().system_prompt_budget(),
                BTreeMap::new(),
            ),
        }
    }

    /// Before a turn: the workspace's files read again (the policy the
    /// gate decides with, versions yanked or uninstalled since), then what
    /// the script says reached the host.
    pub(super) fn before_turn<G: Gate>(&self, conversation: &mut Composer<'_, G>, events: &Events) {
        if let Host::Installed(workspace) = self {
            workspace.before_turn(conversation);
            for contributor in &events.approve {
                workspace.approve(contributor);
            }
            for contributor in &events.deny {
                workspace.deny(contributor);
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
pub(super) fn unapproved_bundles(folder: &Path) -> Result<Vec<crate::bundle::Bundle>, String> {
    let bundles = catalog::installable(folder)?;
    if bundles.is_empty() {
        return Err(format!("no bundles under `{}`", folder.display()));
    }
    Ok(bundles)
}

impl Events {
    /// Takes what reached the host before a turn out of the turn's table
    /// in a turns file (`approve`, `deny`, `withdraw`).
    pub(super) fn take(turn: &mut toml::Table) -> Result<Events, String> {
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

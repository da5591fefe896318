//! Withdrawing a plugin version from running conversations.
//!
//! An edit reaches a conversation at its next compaction; a withdrawal (a
//! version yanked from its catalog, or uninstalled) must reach it now. The
//! host calls [`Composer::withdraw`] when it learns of one (it reads
//! its locks before each turn); from the next turn nothing of that version
//! reaches the model: the kept system prompt is composed again without it
//! (from the versions the conversation runs on, not those installed since:
//! a withdrawal is not an edit), its tools are no longer preloaded, its
//! notes, facts and retrievals stop, its waiting runs are dropped. What it
//! already put into the conversation stays in the history, as anything
//! said does. The turn's record names the withdrawal and why.

use std::collections::BTreeSet;

use super::Composer;
use crate::gate::Gate;
use crate::record::Withdrawal;
use contrib_bundle::Bundle;

impl<'a, G: Gate> Composer<'a, G> {
    /// Withdraws `plugin` (`scope/name@version`) for `reason`; whether this
    /// conversation had it.
    pub fn withdraw(&mut self, plugin: &str, reason: impl Into<String>) -> bool {
        let before = self.versions.entries.len();
        self.versions
            .entries
            .retain(|entry| entry.bundle.id() != plugin);
        if self.versions.entries.len() == before {
            return false;
        }
        self.versions
            .installed
            .retain(|bundle| bundle.id() != plugin);
        self.state
            .held
            .awaiting
            .retain(|(entry, _)| entry.bundle.id() != plugin);
        let prefix = format!("{plugin}/");
        self.prompt
            .preloaded
            .retain(|item| !item.contributor.starts_with(&prefix));
        self.state.held.withdrawals.push(Withdrawal {
            plugin: plugin.to_string(),
            reason: reason.into(),
        });
        true
    }

    /// The plugin versions this conversation is composed from.
    pub fn plugins(&self) -> BTreeSet<String> {
        self.versions
            .entries
            .iter()
            .map(|entry| entry.bundle.id())
            .collect()
    }

    /// The versions the conversation runs on, less those `withdrawn`.
    pub(crate) fn kept_without(&self, withdrawn: &[Withdrawal]) -> Vec<&'a Bundle> {
        let gone: BTreeSet<&str> = withdrawn.iter().map(|w| w.plugin.as_str()).collect();
        self.versions
            .kept
            .iter()
            .copied()
            .filter(|bundle| !gone.contains(bundle.id().as_str()))
            .collect()
    }
}

/// Why the system prompt is composed again, when versions were withdrawn.
pub(crate) fn why_recomposed(withdrawn: &[Withdrawal]) -> Option<String> {
    if withdrawn.is_empty() {
        return None;
    }
    let names: Vec<String> = withdrawn
        .iter()
        .map(|withdrawal| format!("{} ({})", withdrawal.plugin, withdrawal.reason))
        .collect();
    Some(format!("withdrawn: {}", names.join(", ")))
}

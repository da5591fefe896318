//! Resuming a conversation from its log: the kept prompt as it was when
//! its versions are still installed as they were, else composed again
//! with each version that left withdrawn on the record.

use super::Composer;
use crate::gate::Gate;
use crate::log::{KeptVersion, Restored};
use crate::record::{Named, Withdrawal};
use contrib_bundle::Bundle;

impl<'a, G: Gate> Composer<'a, G> {
    /// Restores a conversation from its log.
    pub(super) fn restore(&mut self, restored: Restored) {
        if let Some(log) = &mut self.log {
            log.continue_after(&restored);
        }
        let kept = restored.compose.as_ref().map(|compose| {
            compose
                .kept
                .iter()
                .map(|kept| {
                    self.versions
                        .installed
                        .iter()
                        .copied()
                        .find(|b| {
                            b.plugin == kept.plugin
                                && b.version == kept.version
                                && b.digest.as_deref() == Some(kept.digest.as_str())
                        })
                        .ok_or_else(|| format!("{}@{}", kept.plugin, kept.version))
                })
                .collect::<Result<Vec<&'a Bundle>, String>>()
        });
        let started_at = self.session.started_at_local();
        match (restored.compose, kept) {
            (Some(compose), Some(Ok(kept))) => {
                self.versions.kept = kept;
                self.versions.entries = self.runnable_entries();
                self.index_sections();
                self.prompt.system = compose.system_prompt;
                self.prompt.preloaded = compose.preloaded;
                self.prompt.opening = compose.opening;
                self.state.progress.compositions = compose.compositions;
            }
            (Some(compose), Some(Err(_))) => {
                // What it was composed from is gone or changed: each such
                // version is withdrawn on the record of the first turn
                // after the resume, with what became of it, and the kept
                // prompt is composed from what is installed, keeping the
                // opening's runs (they are snapshots, credited to the
                // versions that made them).
                let left = self.left_while_closed(&compose.kept);
                self.state.progress.compositions = compose.compositions;
                self.prompt.opening = compose.opening;
                self.versions.kept = compose
                    .kept
                    .iter()
                    .filter_map(|kept| {
                        self.versions
                            .installed
                            .iter()
                            .copied()
                            .find(|b| b.plugin == kept.plugin && b.version == kept.version)
                    })
                    .collect();
                let named: Vec<String> = left
                    .iter()
                    .map(|withdrawal| format!("`{}`", withdrawal.plugin))
                    .collect();
                let why = format!(
                    "the conversation was resumed and {} it was composed with {} no longer installed as it was",
                    named.join(", "),
                    if named.len() == 1 { "is" } else { "are" }
                );
                // Recorded, not withdrawn again: the composition below
                // already leaves them out.
                self.state.pending.withdrawn.extend(left);
                self.recompose(started_at, &why);
                self.refresh_opening(started_at);
                self.log_composition(&why, started_at);
            }
            _ => self.begin(),
        }
        if let Some(turn) = restored.turn {
            self.state.progress.turns = turn.number;
            self.state.progress.last_at = turn.at;
            self.state.told.applied = turn.applied;
            self.state.told.restate = turn.restate;
            self.state.told.history = turn.history;
            self.state.told.seen = turn.seen;
            self.state.held.awaiting = self
                .versions
                .entries
                .iter()
                .filter(|entry| turn.awaiting.contains(&entry.name()))
                .filter_map(|entry| entry.contributor.call.as_ref().map(|call| (*entry, call)))
                .collect();
        }
        self.state.told.memory = restored.memory;
        self.place();
    }

    /// The versions a resumed conversation was composed with that are not
    /// installed now as they were, each with what became of it.
    fn left_while_closed(&self, kept: &[KeptVersion]) -> Vec<Withdrawal> {
        kept.iter()
            .filter_map(|kept| {
                let reason = match self
                    .versions.installed
                    .iter()
                    .find(|b| b.plugin == kept.plugin && b.version == kept.version)
                {
                    Some(b) if b.digest.as_deref() == Some(kept.digest.as_str()) => return None,
                    Some(b) => format!(
                        "its content changed while the conversation was closed: composed with {}, installed now as {}",
                        kept.digest,
                        b.digest.as_deref().unwrap_or("a bundle without a digest")
                    ),
                    None => match self.versions.installed.iter().find(|b| b.plugin == kept.plugin) {
                        Some(now) => format!(
                            "replaced by {} while the conversation was closed",
                            now.version
                        ),
                        None => "uninstalled while the conversation was closed".to_string(),
                    },
                };
                Some(Withdrawal {
                    plugin: format!("{}@{}", kept.plugin, kept.version),
                    reason,
                })
            })
            .collect()
    }
}

//! Which plugin versions the conversation runs on: the newest installed,
//! less those whose requirements the session does not meet, and what
//! changed from one composition to the next.

use std::collections::{BTreeMap, BTreeSet};

use super::{Composer, Entry};
use crate::gate::Gate;
use crate::log::KeptVersion;
use crate::record::{PluginVersion, Refusal, VersionRecord};
use crate::session::Session;
use contrib_bundle::Bundle;

impl<'a, G: Gate> Composer<'a, G> {
    /// The contributors of the versions kept, less those of a plugin whose
    /// `requires` the session does not meet: each such plugin is refused
    /// whole, and the refusal says which skill and version it needs.
    pub(super) fn runnable_entries(&mut self) -> Vec<Entry<'a>> {
        let mut runnable = Vec::new();
        for bundle in self.versions.kept.clone() {
            match unmet_requirement(bundle, &self.session) {
                Some(reason) => self.state.pending.refusals.push(Refusal {
                    contributor: bundle.id(),
                    reason,
                }),
                None => runnable.push(bundle),
            }
        }
        entries(&runnable)
    }

    pub(super) fn kept_versions(&self) -> Vec<KeptVersion> {
        self.versions
            .kept
            .iter()
            .map(|bundle| KeptVersion {
                plugin: bundle.plugin.clone(),
                version: bundle.version.clone(),
                digest: bundle.digest.clone().unwrap_or_default(),
            })
            .collect()
    }

    /// The version records for a turn: each plugin the conversation runs on
    /// or has installed, with what `changed` at this turn or what waits.
    pub(super) fn version_records(&self, changed: &[VersionRecord]) -> Vec<VersionRecord> {
        let mut plugins: BTreeSet<&str> = self
            .versions
            .kept
            .iter()
            .map(|b| b.plugin.as_str())
            .collect();
        plugins.extend(self.versions.installed.iter().map(|b| b.plugin.as_str()));
        plugins.extend(changed.iter().map(|record| record.plugin.as_str()));
        plugins
            .into_iter()
            .map(|plugin| {
                let running = self.versions.kept.iter().find(|b| b.plugin == plugin).map(|b| version(b));
                let installed = self
                    .versions.installed
                    .iter()
                    .find(|b| b.plugin == plugin)
                    .map(|b| version(b))
                    .filter(|installed| Some(installed) != running.as_ref());
                let change = changed
                    .iter()
                    .find(|record| record.plugin == plugin)
                    .and_then(|record| record.change.clone())
                    .or_else(|| {
                        installed.as_ref().map(|installed| match &running {
                            Some(_) => format!(
                                "{} is installed; it reaches this conversation at its next compaction",
                                installed.version
                            ),
                            None => format!(
                                "{} was installed after this conversation was composed; it reaches it at its next compaction",
                                installed.version
                            ),
                        })
                    })
                    .or_else(|| {
                        (running.is_some() && !self.versions.installed.iter().any(|b| b.plugin == plugin))
                            .then(|| "uninstalled; it leaves this conversation at its next compaction".to_string())
                    });
                VersionRecord {
                    plugin: plugin.to_string(),
                    running,
                    installed,
                    change,
                }
            })
            .collect()
    }
}

/// The newest version of each plugin among `bundles`.
pub(super) fn newest(bundles: &[Bundle]) -> Vec<&Bundle> {
    let mut newest: BTreeMap<&str, &Bundle> = BTreeMap::new();
    for bundle in bundles {
        match newest.get(bundle.plugin.as_str()) {
            Some(other) if other.version >= bundle.version => {}
            _ => {
                newest.insert(&bundle.plugin, bundle);
            }
        }
    }
    newest.into_values().collect()
}

/// Why `bundle` cannot run in `session`: a skill it requires is missing,
/// or at a version its requirement does not match.
fn unmet_requirement(bundle: &Bundle, session: &Session) -> Option<String> {
    bundle.requires.iter().find_map(|(skill, requirement)| {
        let refused = |why: String| {
            Some(format!(
                "it requires skill `{skill}` {requirement}, and {why}: none of its contributors is composed"
            ))
        };
        let Ok(wanted) = semver::VersionReq::parse(requirement) else {
            return refused(format!("`{requirement}` is not a version requirement"));
        };
        match session.skills.get(skill) {
            None => refused(format!("the session has no skill `{skill}`")),
            Some(found) if !wanted.matches(&found.version) => {
                refused(format!("the session has {}", found.version))
            }
            Some(_) => None,
        }
    })
}

/// The contributors of `bundles`, in composition order.
pub(super) fn entries<'a>(bundles: &[&'a Bundle]) -> Vec<Entry<'a>> {
    let mut entries: Vec<Entry<'a>> = bundles
        .iter()
        .flat_map(|bundle| {
            bundle.contributors.iter().map(move |contributor| Entry {
                bundle,
                contributor,
            })
        })
        .collect();
    entries.sort_by(|a, b| {
        let key = |entry: &Entry<'a>| {
            (
                entry.contributor.placement,
                entry.contributor.priority,
                &entry.bundle.plugin,
                &entry.bundle.version,
                &entry.contributor.id,
            )
        };
        key(a).cmp(&key(b))
    });
    entries
}

fn version(bundle: &Bundle) -> PluginVersion {
    PluginVersion {
        version: bundle.version.clone(),
        digest: bundle.digest.clone().unwrap_or_default(),
    }
}

/// What a recomposition changed, plugin by plugin.
pub(super) fn version_changes(
    before: &[&Bundle],
    after: &[&Bundle],
    why: &str,
) -> Vec<VersionRecord> {
    let mut plugins: BTreeSet<&str> = before.iter().map(|b| b.plugin.as_str()).collect();
    plugins.extend(after.iter().map(|b| b.plugin.as_str()));
    plugins
        .into_iter()
        .filter_map(|plugin| {
            let old = before.iter().find(|b| b.plugin == plugin);
            let new = after.iter().find(|b| b.plugin == plugin);
            let change = match (old, new) {
                (Some(old), Some(new)) if old.digest == new.digest => return None,
                (Some(old), Some(new)) => {
                    format!("from {} to {}: {why}", old.version, new.version)
                }
                (None, Some(new)) => format!("{} joined: {why}", new.version),
                (Some(old), None) => format!("{} left: {why}", old.version),
                (None, None) => return None,
            };
            Some(VersionRecord {
                plugin: plugin.to_string(),
                running: new.map(|b| version(b)),
                installed: None,
                change: Some(change),
            })
        })
        .collect()
}

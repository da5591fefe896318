//! The catalog-wide rules over a registry catalog, judged from what its
//! index records of each version ([`Facts`]) rather than from the
//! bundles: what `publish` refuses, with no bundle pulled.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use crate::bundle::catalog::consistency::{check_facts, Facts};
use crate::bundle::catalog::{Lock, LockEntry};
use crate::bundle::Bundle;
use crate::config::Config;
use crate::diagnostic::Diagnostic;

/// What each published version's rules read, by plugin and version.
pub type FactsByVersion = HashMap<(String, semver::Version), Facts>;

/// The catalog-wide diagnostics the catalog whose lock is `lock`, and
/// whose versions' facts are `facts`, would gain with `bundle` published,
/// judged by `config` (the catalog's policy). As for a folder catalog, a
/// catalog already inconsistent is `catalog check`'s to report, not a
/// reason to refuse every publish: only what is new counts.
pub fn with_published(
    lock: &Lock,
    facts: &FactsByVersion,
    bundle: &Bundle,
    config: &Config,
) -> Vec<Diagnostic> {
    let before = check_facts(lock, "", facts, config);
    let mut after = lock.clone();
    let mut facts = facts.clone();
    let key = (bundle.plugin.clone(), bundle.version.clone());
    if let Entry::Vacant(slot) = facts.entry(key) {
        slot.insert(Facts::of(bundle));
        after.published.push(LockEntry {
            plugin: bundle.plugin.clone(),
            version: bundle.version.clone(),
            digest: bundle.digest.clone().unwrap_or_default(),
            yanked: false,
            permissions: bundle.permissions.clone(),
        });
    }
    check_facts(&after, "", &facts, config)
        .into_iter()
        .filter(|found| !before.iter().any(|seen| seen.message == found.message))
        .collect()
}

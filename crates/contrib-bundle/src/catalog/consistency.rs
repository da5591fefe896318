//! What no single manifest can see: the rules over a catalog as a whole.
//!
//! `catalog check` runs them over what is published, and `publish` runs
//! them over what would be published with the new version, inside the
//! catalog's lock, refusing a version that would make the catalog fail, so
//! a catalog is consistent by construction. Both judge by the catalog's
//! own [`policy`], never a publisher's configuration.
//!
//! - `duplicate-plugin`: one plugin name, two owners;
//! - `catalog-over-budget`: the newest versions together put more before
//!   every conversation than the system-prompt share, counted as
//!   `system-prompt-over-budget` counts one manifest (every placement of
//!   the kept system prompt, eager loads, listings of texts the model may
//!   ask for);
//! - `ambiguous-contributor`: two plugins' texts the model may ask for by
//!   the same id. Everywhere else a contributor is named with its plugin
//!   and version (`acme/clock@2.0.0/started-at`), so ids need only be
//!   unique within a plugin, as items are within a module; only a request
//!   by the model may name a text by its bare id.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{find_span, Lock, LockEntry, PolicyError};
use crate::{bundle_path, Bundle, BundledActivation};
use contrib_core::codes::{AMBIGUOUS_CONTRIBUTOR, CATALOG_OVER_BUDGET, DUPLICATE_PLUGIN};
use contrib_core::config::Config;
use contrib_core::diagnostic::Diagnostic;
use contrib_core::fs::Root;
use contrib_core::source::Span;

/// What the catalog-wide rules read of one version: all they need, so a
/// registry records it in the version's publish event and `catalog check`
/// judges a registry from its index alone, with no bundle read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    /// The owner the manifest asks to be (`duplicate-plugin`).
    pub owner: String,
    /// What it puts before every conversation, in tokens
    /// (`catalog-over-budget`, [`Bundle::kept_share`]).
    pub share: u64,
    /// The ids of its texts the model may ask for, in the bundle's order
    /// (`ambiguous-contributor`).
    pub requested: Vec<String>,
}

impl Facts {
    pub fn of(bundle: &Bundle) -> Facts {
        Facts {
            owner: bundle.requested_owner.to_string(),
            share: bundle.kept_share(),
            requested: bundle
                .contributors
                .iter()
                .filter(|contributor| {
                    matches!(
                        contributor.activation,
                        Some(BundledActivation::Request { .. })
                    )
                })
                .map(|contributor| contributor.id.clone())
                .collect(),
        }
    }
}

/// What each published version's rules read, by plugin and version.
pub type FactsByVersion = HashMap<(String, semver::Version), Facts>;

/// The catalog-wide diagnostics of the published entries of `lock`, whose
/// bundles are `loaded`; spans point into `lock_text`.
pub fn check(
    lock: &Lock,
    lock_text: &str,
    loaded: &HashMap<(String, semver::Version), Bundle>,
    config: &Config,
) -> Vec<Diagnostic> {
    let facts = loaded
        .iter()
        .map(|(key, bundle)| (key.clone(), Facts::of(bundle)))
        .collect();
    check_facts(lock, lock_text, &facts, config)
}

/// [`check`] over what each version's [`Facts`] say; a version with none
/// known is not judged.
pub fn check_facts(
    lock: &Lock,
    lock_text: &str,
    facts: &FactsByVersion,
    config: &Config,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let mut newest: BTreeMap<&str, (&LockEntry, &Facts)> = BTreeMap::new();
    let mut owners: BTreeMap<&str, (&LockEntry, &Facts)> = BTreeMap::new();
    for entry in &lock.published {
        let Some(found) = facts.get(&(entry.plugin.clone(), entry.version.clone())) else {
            continue;
        };
        match owners.get(entry.plugin.as_str()) {
            Some((first, owned)) if owned.owner != found.owner => diagnostics.push(
                Diagnostic::new(
                    &DUPLICATE_PLUGIN,
                    format!(
                        "`{}` is published by two owners: {} and {}",
                        entry.plugin, owned.owner, found.owner
                    ),
                )
                .primary(
                    find_span(lock_text, &entry.digest),
                    format!("{} by {}", id(entry), found.owner),
                )
                .secondary(
                    find_span(lock_text, &first.digest),
                    format!("{} by {}", id(first), owned.owner),
                )
                .help("one plugin name has one owner; publish the other under its own name"),
            ),
            Some(_) => {}
            None => {
                owners.insert(&entry.plugin, (entry, found));
            }
        }
        if entry.yanked {
            continue;
        }
        let slot = newest.entry(&entry.plugin).or_insert((entry, found));
        if entry.version > slot.0.version {
            *slot = (entry, found);
        }
    }
    let limit = config.system_prompt_budget();
    let total: u64 = newest.values().map(|(_, found)| found.share).sum();
    if total > limit {
        diagnostics.push(
            Diagnostic::new(&CATALOG_OVER_BUDGET, format!("what the newest versions put before every conversation adds up to {total} tokens, over the workspace's {limit}"))
                .primary(Span::point(0), "the catalog as a whole")
                .help("an agent that installs every plugin would exceed its system-prompt share; lower budgets, make texts apply only when needed, or split the catalog"),
        );
    }
    let mut asked_for: HashMap<&str, &LockEntry> = HashMap::new();
    for (entry, found) in newest.values() {
        for contributor in &found.requested {
            match asked_for.get(contributor.as_str()) {
                Some(other) => diagnostics.push(
                    Diagnostic::new(
                        &AMBIGUOUS_CONTRIBUTOR,
                        format!(
                            "`{}` and `{}` both offer a text the model may ask for as `{contributor}`",
                            other.plugin, entry.plugin
                        ),
                    )
                    .primary(find_span(lock_text, &entry.digest), id(entry))
                    .secondary(find_span(lock_text, &other.digest), id(other))
                    .help("rename one of them: a model asking for a text by its id would get both"),
                ),
                None => {
                    asked_for.insert(contributor, entry);
                }
            }
        }
    }
    diagnostics
}

fn id(entry: &LockEntry) -> String {
    format!("{}@{}", entry.plugin, entry.version)
}

/// The catalog-wide diagnostics the catalog in `root`, whose lock is
/// `lock`, would gain with `bundle` published: what `publish` refuses,
/// holding the catalog's lock. Bundles that cannot be loaded are left to
/// `catalog check`.
pub fn with_published(
    root: &Root,
    lock: &Lock,
    bundle: &Bundle,
    config: &Config,
) -> Vec<Diagnostic> {
    let mut facts = FactsByVersion::new();
    for entry in &lock.published {
        let path = bundle_path(root.path(), &entry.plugin, &entry.version);
        let published = root
            .read(&path, contrib_core::limits::files::BUNDLE)
            .ok()
            .and_then(|bytes| Bundle::from_bytes(&bytes).ok());
        if let Some(published) = published {
            facts.insert(
                (entry.plugin.clone(), entry.version.clone()),
                Facts::of(&published),
            );
        }
    }
    with_published_facts(lock, &facts, bundle, config)
}

/// The catalog-wide diagnostics the catalog whose lock is `lock`, and
/// whose versions' rules read `facts`, would gain with `bundle` published
/// (a registry catalog's index records the facts, so its publisher pulls
/// no bundle to judge them). A catalog already inconsistent is `catalog
/// check`'s to report, not a reason to refuse every publish: only what is
/// new counts.
pub fn with_published_facts(
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

/// The file, at a catalog's root, that holds the catalog's own policy.
pub const POLICY_FILE: &str = contrib_core::config::FILE_NAME;

/// The catalog's own policy, which its catalog-wide rules are judged by
/// (the system-prompt share `catalog-over-budget` counts against): its
/// `contrib.toml`, read inside the catalog, else the platform's. Never a
/// publisher's configuration: a publisher does not choose the budget every
/// workspace installing from the catalog shares.
pub fn policy(root: &Root) -> Result<Config, PolicyError> {
    let path = root.path().join(POLICY_FILE);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(Config::platform());
    }
    let bytes = root.read(&path, contrib_core::limits::files::CONFIG)?;
    let name = contrib_core::fs::display_name(&path);
    let source = contrib_core::decode::decode_bytes(&name, &bytes).map_err(|(_, diagnostic)| {
        PolicyError::NotText {
            name: name.clone(),
            why: diagnostic.message,
        }
    })?;
    let (config, diagnostics) = Config::from_source(source);
    if let Some(error) = diagnostics.iter().find(|d| d.is_error()) {
        return Err(PolicyError::HasErrors {
            name,
            first: error.message.clone(),
        });
    }
    Ok(config)
}

/// The policy of the catalog at `folder`; see [`policy`].
pub fn policy_of(folder: &Path) -> Result<Config, PolicyError> {
    policy(&Root::open(folder)?)
}

//! `catalog check`: every bundle against its digest, the lock and the
//! trusted keys, the catalog-wide rules, and the approval delta between
//! consecutive versions.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::{
    bundles_in, consistency, find_span, read_lock_text, shared_lock, verify_signature, Error, Lock,
    LOCK_FILE,
};
use crate::diff::{self, Change};
use crate::{bundle_path, Bundle, LoadError};
use contrib_core::codes::*;
use contrib_core::config::Config;
use contrib_core::diagnostic::Diagnostic;
use contrib_core::fs::{self, Root};
use contrib_core::limits::files::BUNDLE;
use contrib_core::source::{SourceFile, Span};

/// What `catalog check` found: diagnostics per file, and the approval
/// delta between each pair of consecutive versions.
#[derive(Default)]
pub struct CatalogReport {
    pub files: Vec<(SourceFile, Vec<Diagnostic>)>,
    pub deltas: Vec<Delta>,
    /// What the walk of the catalog skipped and why: symbolic links that
    /// lead out of it or loop, unreadable folders.
    pub skipped: Vec<fs::Skipped>,
}

pub struct Delta {
    pub plugin: String,
    pub from: semver::Version,
    pub to: semver::Version,
    pub changes: Vec<Change>,
    /// The newer version, for what its changes cost the cache.
    pub new: Bundle,
}

/// Checks a catalog: every bundle against its own digest and the lock,
/// every lock entry against its bundle, signatures when the lock trusts
/// keys, and what no single manifest can see: one plugin published by two
/// owners, the newest versions' agent budgets against the system-prompt
/// share, contributor ids that collide across plugins.
pub fn check(folder: &Path, config: &Config) -> Result<CatalogReport, Error> {
    let root = Root::open(folder)?;
    let _guard = shared_lock(folder);
    let lock_path = folder.join(LOCK_FILE);
    let lock_text = read_lock_text(&root)?;
    let lock = Lock::parse(&lock_path, &lock_text)?;
    let lock_source = SourceFile::new(fs::display_name(&lock_path), lock_text.clone());
    let mut report = CatalogReport::default();
    let mut lock_diagnostics = Vec::new();
    let mut loaded: HashMap<(String, semver::Version), Bundle> = HashMap::new();

    for entry in &lock.published {
        let path = bundle_path(folder, &entry.plugin, &entry.version);
        let span = find_span(&lock_text, &entry.digest);
        let exists = std::fs::symlink_metadata(&path).is_ok();
        let bytes = match root.read(&path, BUNDLE) {
            Ok(bytes) => bytes,
            Err(why) if exists => {
                lock_diagnostics.push(
                    Diagnostic::new(
                        &INVALID_BUNDLE,
                        format!(
                            "the bundle of {}@{} cannot be read",
                            entry.plugin, entry.version
                        ),
                    )
                    .primary(span, why)
                    .help("restore the published bundle as a regular file inside the catalog"),
                );
                continue;
            }
            Err(_) => Vec::new(),
        };
        if !exists {
            lock_diagnostics.push(
                Diagnostic::new(
                    &MISSING_BUNDLE,
                    format!(
                        "{}@{} is in the lock but its bundle is missing",
                        entry.plugin, entry.version
                    ),
                )
                .primary(span, "published here")
                .help(format!(
                    "restore `{}`; versions are never deleted, only yanked",
                    path.display()
                )),
            );
            continue;
        }
        let source = SourceFile::new(
            fs::display_name(&path),
            String::from_utf8_lossy(&bytes).into_owned(),
        );
        let mut diagnostics = Vec::new();
        match Bundle::from_bytes(&bytes) {
            Err(error) => diagnostics.push(load_diagnostic(&error, &source)),
            Ok(bundle) => {
                let digest = bundle.digest.clone().unwrap_or_default();
                if digest != entry.digest {
                    diagnostics.push(
                        Diagnostic::new(&DIGEST_MISMATCH, format!("{} is not the bundle that was published", bundle.id()))
                            .primary(find_span(&source.text, &digest), format!("the lock records {}", entry.digest))
                            .help("restore the published bundle; to change a plugin, publish a new version"),
                    );
                }
                if !lock.trusted_keys.is_empty() {
                    if let Err(why) = verify_signature(&root, &path, &bundle, &lock.trusted_keys) {
                        diagnostics.push(
                            Diagnostic::new(&UNTRUSTED_SIGNATURE, format!("{} is not signed by a trusted key: {why}", bundle.id()))
                                .primary(Span::point(0), "unverified")
                                .help("sign it with `contrib sign` using a key whose id is in the lock's `trusted_keys`"),
                        );
                    }
                }
                loaded.insert((entry.plugin.clone(), entry.version.clone()), bundle);
            }
        }
        if !diagnostics.is_empty() {
            report.files.push((source, diagnostics));
        }
    }
    let walked = bundles_in(&root);
    report.skipped = walked.skipped;
    for path in walked.files {
        let listed = lock
            .published
            .iter()
            .any(|entry| bundle_path(folder, &entry.plugin, &entry.version) == path);
        if !listed {
            let source = SourceFile::new(fs::display_name(&path), "");
            report.files.push((
                source,
                vec![Diagnostic::new(&MISSING_BUNDLE, "this bundle is not in the catalog's lock")
                    .primary(Span::point(0), "never published")
                    .help("publish bundles with `contrib publish`, which records them in `catalog.lock`")],
            ));
        }
    }
    lock_diagnostics.extend(consistency::check(&lock, &lock_text, &loaded, config));
    if !lock_diagnostics.is_empty() {
        report.files.insert(0, (lock_source, lock_diagnostics));
    }
    report.deltas = deltas(&lock, &loaded);
    Ok(report)
}

fn load_diagnostic(error: &LoadError, source: &SourceFile) -> Diagnostic {
    match error {
        LoadError::DigestMismatch { recorded, .. } => {
            Diagnostic::new(&DIGEST_MISMATCH, error.to_string())
                .primary(
                    find_span(&source.text, recorded),
                    "this digest does not match the content",
                )
                .help("the bundle was edited after it was built: restore the published file")
        }
        _ => Diagnostic::new(&INVALID_BUNDLE, error.to_string())
            .primary(Span::point(0), "not a loadable bundle")
            .help("rebuild and publish it with this version of `contrib`"),
    }
}

fn deltas(lock: &Lock, loaded: &HashMap<(String, semver::Version), Bundle>) -> Vec<Delta> {
    let mut by_plugin: BTreeMap<&str, Vec<&Bundle>> = BTreeMap::new();
    for entry in &lock.published {
        if let Some(bundle) = loaded.get(&(entry.plugin.clone(), entry.version.clone())) {
            by_plugin.entry(&entry.plugin).or_default().push(bundle);
        }
    }
    let mut deltas = Vec::new();
    for (plugin, mut versions) in by_plugin {
        versions.sort_by(|a, b| a.version.cmp(&b.version));
        for pair in versions.windows(2) {
            deltas.push(Delta {
                plugin: plugin.to_string(),
                from: pair[0].version.clone(),
                to: pair[1].version.clone(),
                changes: diff::diff(pair[0], pair[1]),
                new: pair[1].clone(),
            });
        }
    }
    deltas
}

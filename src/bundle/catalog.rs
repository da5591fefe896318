//! Catalogs: a folder of published bundles (`<scope>/<name>/<version>.bundle.json`)
//! and `catalog.lock`, which lists each published `plugin@version` with
//! its digest, whether it is yanked, and the permissions a person approved.
//!
//! Nothing is ever deleted or overwritten: a new version is a new file and
//! a new lock entry; `yank` only marks an entry, and a yanked number is
//! never reused. Publishing writes the bundle first and the lock second,
//! each atomically, so an interrupted publish leaves at worst a bundle the
//! lock does not list, which `catalog check` reports.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::diff::{self, Change};
use super::sign::{self, DetachedSignature};
use super::{bundle_path, write_bundle, Bundle, Permissions, Written};
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::rules::*;
use crate::source::{SourceFile, Span};

pub const LOCK_FILE: &str = "catalog.lock";

/// `catalog.lock`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// Key ids whose signatures the catalog requires; empty: none required.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trusted_keys: Vec<String>,
    #[serde(default)]
    pub published: Vec<LockEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockEntry {
    pub plugin: String,
    pub version: semver::Version,
    pub digest: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub yanked: bool,
    pub permissions: Permissions,
}

impl Lock {
    /// Reads the lock of `folder`; a folder without one is an empty catalog.
    pub fn read(folder: &Path) -> Result<Lock, String> {
        let path = folder.join(LOCK_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text).map_err(|error| {
                format!(
                    "`{}` is not a valid lock: {}",
                    path.display(),
                    error.message()
                )
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Lock::default()),
            Err(error) => Err(format!("cannot read `{}`: {error}", path.display())),
        }
    }

    /// Writes the lock atomically.
    pub fn write(&self, folder: &Path) -> Result<(), String> {
        let text = toml::to_string_pretty(self)
            .map_err(|error| format!("cannot write the lock: {error}"))?;
        let text = format!(
            "# Written by `contrib publish` and `contrib yank`; do not edit by hand.\n{text}"
        );
        crate::cli::files::write_atomically(&folder.join(LOCK_FILE), text.as_bytes())
    }

    /// The newest version of `plugin` ever published, yanked or not.
    pub fn newest(&self, plugin: &str) -> Option<&LockEntry> {
        self.entries(plugin)
            .max_by(|a, b| a.version.cmp(&b.version))
    }

    /// The newest version of `plugin` that new installs may pick.
    pub fn newest_installable(&self, plugin: &str) -> Option<&LockEntry> {
        self.entries(plugin)
            .filter(|entry| !entry.yanked)
            .max_by(|a, b| a.version.cmp(&b.version))
    }

    pub fn entry(&self, plugin: &str, version: &semver::Version) -> Option<&LockEntry> {
        self.entries(plugin).find(|entry| &entry.version == version)
    }

    fn entries<'a>(&'a self, plugin: &str) -> impl Iterator<Item = &'a LockEntry> {
        let plugin = plugin.to_string();
        self.published
            .iter()
            .filter(move |entry| entry.plugin == plugin)
    }
}

/// What a publish did.
#[derive(Debug)]
pub enum Published {
    /// A new version, with what it asks for beyond the previous one.
    New {
        path: PathBuf,
        previous: Option<semver::Version>,
        changes: Vec<Change>,
    },
    /// This exact content was already published under this version.
    AlreadyPublished(PathBuf),
}

/// Why a publish was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Frozen { published: String, built: String },
    NotIncreased { newest: semver::Version },
    Io(String),
}

impl Refusal {
    /// The refusal as a diagnostic on the manifest's version.
    pub fn diagnostic(&self, bundle: &Bundle, version_span: Span) -> Diagnostic {
        match self {
            Refusal::Frozen { published, built } => Diagnostic::new(
                &FROZEN_VERSION_CHANGED,
                format!("{} is already published with other content", bundle.id()),
            )
            .primary(version_span, format!("published as {published}"))
            .help(format!(
                "this build is {built}; published versions never change: bump the version"
            )),
            Refusal::NotIncreased { newest } => Diagnostic::new(
                &VERSION_NOT_INCREASED,
                format!("{} is not newer than the published {newest}", bundle.id()),
            )
            .primary(version_span, format!("not greater than {newest}"))
            .help(format!("publish a version greater than {newest}")),
            Refusal::Io(message) => {
                Diagnostic::new(&INVALID_BUNDLE, message.clone()).primary(version_span, "here")
            }
        }
    }
}

/// Publishes `bundle` into the catalog at `folder`.
pub fn publish(bundle: &Bundle, folder: &Path) -> Result<Published, Refusal> {
    let mut lock = Lock::read(folder).map_err(Refusal::Io)?;
    let built = bundle.digest.clone().unwrap_or_default();
    if let Some(entry) = lock.entry(&bundle.plugin, &bundle.version) {
        if entry.digest == built {
            return Ok(Published::AlreadyPublished(bundle_path(
                folder,
                &bundle.plugin,
                &bundle.version,
            )));
        }
        return Err(Refusal::Frozen {
            published: entry.digest.clone(),
            built,
        });
    }
    if let Some(newest) = lock.newest(&bundle.plugin) {
        if bundle.version <= newest.version {
            return Err(Refusal::NotIncreased {
                newest: newest.version.clone(),
            });
        }
    }
    let previous = lock
        .newest_installable(&bundle.plugin)
        .and_then(|entry| Bundle::load(&bundle_path(folder, &entry.plugin, &entry.version)).ok());
    let path = match write_bundle(folder, bundle).map_err(Refusal::Io)? {
        Written::Created(path) | Written::Unchanged(path) => path,
        Written::Frozen {
            published, built, ..
        } => return Err(Refusal::Frozen { published, built }),
    };
    lock.published.push(LockEntry {
        plugin: bundle.plugin.clone(),
        version: bundle.version.clone(),
        digest: built,
        yanked: false,
        permissions: bundle.permissions.clone(),
    });
    lock.write(folder).map_err(Refusal::Io)?;
    let changes = previous
        .as_ref()
        .map(|old| diff::diff(old, bundle))
        .unwrap_or_default();
    Ok(Published::New {
        path,
        previous: previous.map(|old| old.version),
        changes,
    })
}

/// Marks `plugin@version` yanked (or, with `undo`, not yanked).
pub fn yank(
    folder: &Path,
    plugin: &str,
    version: &semver::Version,
    undo: bool,
) -> Result<(), String> {
    let mut lock = Lock::read(folder)?;
    let entry = lock
        .published
        .iter_mut()
        .find(|entry| entry.plugin == plugin && &entry.version == version)
        .ok_or_else(|| {
            format!(
                "{plugin}@{version} is not published in `{}`",
                folder.display()
            )
        })?;
    entry.yanked = !undo;
    lock.write(folder)
}

/// What `catalog check` found: diagnostics per file, and the approval
/// delta between each pair of consecutive versions.
#[derive(Default)]
pub struct CatalogReport {
    pub files: Vec<(SourceFile, Vec<Diagnostic>)>,
    pub deltas: Vec<Delta>,
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
pub fn check(folder: &Path, config: &Config) -> Result<CatalogReport, String> {
    let lock_path = folder.join(LOCK_FILE);
    let lock_text = std::fs::read_to_string(&lock_path)
        .map_err(|error| format!("cannot read `{}`: {error}", lock_path.display()))?;
    let lock: Lock = toml::from_str(&lock_text).map_err(|error| {
        format!(
            "`{}` is not a valid lock: {}",
            lock_path.display(),
            error.message()
        )
    })?;
    let lock_source = SourceFile::new(
        crate::cli::files::display_name(&lock_path),
        lock_text.clone(),
    );
    let mut report = CatalogReport::default();
    let mut lock_diagnostics = Vec::new();
    let mut loaded: HashMap<(String, semver::Version), Bundle> = HashMap::new();

    for entry in &lock.published {
        let path = bundle_path(folder, &entry.plugin, &entry.version);
        let span = find_span(&lock_text, &entry.digest);
        let Ok(bytes) = std::fs::read(&path) else {
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
        };
        let source = SourceFile::new(
            crate::cli::files::display_name(&path),
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
                    if let Err(why) = verify_signature(&path, &bundle, &lock.trusted_keys) {
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
    for path in bundles_in(folder) {
        let listed = lock
            .published
            .iter()
            .any(|entry| bundle_path(folder, &entry.plugin, &entry.version) == path);
        if !listed {
            let source = SourceFile::new(crate::cli::files::display_name(&path), "");
            report.files.push((
                source,
                vec![Diagnostic::new(&MISSING_BUNDLE, "this bundle is not in the catalog's lock")
                    .primary(Span::point(0), "never published")
                    .help("publish bundles with `contrib publish`, which records them in `catalog.lock`")],
            ));
        }
    }
    lock_diagnostics.extend(super::consistency::check(
        &lock, &lock_text, &loaded, config,
    ));
    if !lock_diagnostics.is_empty() {
        report.files.insert(0, (lock_source, lock_diagnostics));
    }
    report.deltas = deltas(&lock, &loaded);
    Ok(report)
}

fn load_diagnostic(error: &super::LoadError, source: &SourceFile) -> Diagnostic {
    match error {
        super::LoadError::DigestMismatch { recorded, .. } => {
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

/// The bundles a runtime may load from `folder`: the newest version of each
/// plugin, each verified against its own digest. When the folder is a
/// catalog (it has a `catalog.lock`), a bundle must also match its lock
/// entry, yanked versions are not picked, and when the lock trusts keys
/// every bundle must carry a valid signature by one of them: verification
/// fails closed, as `catalog check` does.
pub fn installable(folder: &Path) -> Result<Vec<Bundle>, String> {
    let lock = Lock::read(folder)?;
    let mut chosen: Vec<Bundle> = Vec::new();
    for path in bundles_in(folder) {
        let bundle =
            Bundle::load(&path).map_err(|error| format!("`{}`: {error}", path.display()))?;
        let entry = lock.entry(&bundle.plugin, &bundle.version);
        if let Some(entry) = entry {
            if bundle.digest.as_deref() != Some(entry.digest.as_str()) {
                return Err(format!(
                    "`{}` is not the bundle the catalog's lock records for {}",
                    path.display(),
                    bundle.id()
                ));
            }
            if entry.yanked {
                continue;
            }
        }
        if !lock.trusted_keys.is_empty() {
            verify_signature(&path, &bundle, &lock.trusted_keys).map_err(|why| {
                format!("`{}` is not signed by a trusted key: {why}", path.display())
            })?;
        }
        match chosen.iter_mut().find(|kept| kept.plugin == bundle.plugin) {
            Some(kept) if kept.version < bundle.version => *kept = bundle,
            Some(_) => {}
            None => chosen.push(bundle),
        }
    }
    Ok(chosen)
}

/// Verifies a bundle's detached signature against the keys the lock
/// trusts, failing closed.
pub(crate) fn verify_signature(
    bundle_file: &Path,
    bundle: &Bundle,
    trusted: &[String],
) -> Result<(), String> {
    let path = sign::signature_path(bundle_file);
    let text =
        std::fs::read_to_string(&path).map_err(|_| "it has no signature file".to_string())?;
    let signature: DetachedSignature =
        serde_json::from_str(&text).map_err(|_| "its signature file is malformed".to_string())?;
    if !trusted.contains(&signature.key_id) {
        return Err(format!(
            "it is signed by {}, which the lock does not trust",
            signature.key_id
        ));
    }
    let key_path = bundle_file
        .ancestors()
        .find_map(|folder| {
            let candidate = folder
                .join("keys")
                .join(format!("{}.pub", signature.key_id.replace(':', "-")));
            candidate.exists().then_some(candidate)
        })
        .ok_or_else(|| {
            format!(
                "the public key of {} is not in the catalog's `keys/` folder",
                signature.key_id
            )
        })?;
    let key_text = std::fs::read_to_string(&key_path).map_err(|error| error.to_string())?;
    let key = sign::read_public(&key_text)?;
    sign::verify(
        &key,
        &signature,
        bundle.digest.as_deref().unwrap_or_default(),
    )
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

/// Every `*.bundle.json` under `folder`, in path order.
fn bundles_in(folder: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(".bundle.json") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The span of the first occurrence of `needle` in `text`, or the start.
pub(super) fn find_span(text: &str, needle: &str) -> Span {
    match (needle.is_empty(), text.find(needle)) {
        (false, Some(start)) => Span::new(start, start + needle.len()),
        _ => Span::point(0),
    }
}

//! Catalogs: a folder of published bundles (`<scope>/<name>/<version>.bundle.json`)
//! and `catalog.lock`, which lists each published `plugin@version` with
//! its digest, whether it is yanked, and the permissions a person approved.
//!
//! Nothing is ever deleted or overwritten: a new version is a new file and
//! a new lock entry; `yank` only marks an entry, and a yanked number is
//! never reused. Versions equal under SemVer precedence are one version:
//! `1.4.0+build.7` is `1.4.0`, so build metadata cannot publish other
//! content under a number already taken. Publishing writes the bundle
//! first and the lock second, each atomically, so an interrupted publish
//! leaves at worst a bundle the lock does not list, which `catalog check`
//! reports.
//!
//! Every read-modify-write of the lock (`publish`, `yank`) holds the
//! catalog's exclusive lock ([`crate::fs::lock`]) from the read to the
//! write, so concurrent publishes and yanks never lose each other's
//! entries; readers that compare bundles with the lock hold a shared one.
//! A catalog's content is untrusted: nothing is read or written through a
//! symbolic link that leads out of it, a lock entry must name a plugin as
//! `scope/name`, and trusted keys are looked up in the catalog's own
//! `keys/` folder only.

pub mod consistency;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::diff::{self, Change};
use super::sign::{self, DetachedSignature};
use super::{bundle_path, write_bundle, Bundle, Permissions, Written};
use crate::codes::*;
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::fs::{self, Access, Guard, Root};
use crate::limits::files::{BUNDLE, KEY, LOCK};
use crate::source::{SourceFile, Span};

pub const LOCK_FILE: &str = "catalog.lock";

/// The folder, under a catalog, that holds the public keys its lock
/// trusts (`keys/<key id>.pub`).
pub const KEYS_FOLDER: &str = "keys";

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
    /// Reads the lock of the catalog at `folder`; a folder without one, or
    /// no folder yet (a first publish creates it), is an empty catalog.
    pub fn read(folder: &Path) -> Result<Lock, String> {
        if std::fs::symlink_metadata(folder).is_err() {
            return Ok(Lock::default());
        }
        Lock::read_in(&Root::open(folder)?)
    }

    fn read_in(root: &Root) -> Result<Lock, String> {
        let path = root.path().join(LOCK_FILE);
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(Lock::default());
        }
        let text = read_lock_text(root)?;
        Lock::parse(&path, &text)
    }

    /// The lock in `text`, refused when it is not the lock's shape or an
    /// entry names a plugin as anything but `scope/name` (a tampered
    /// `../../etc` would otherwise lead a path out of the catalog).
    fn parse(path: &Path, text: &str) -> Result<Lock, String> {
        let lock: Lock = toml::from_str(text).map_err(|error| {
            format!(
                "`{}` is not a valid lock: {}",
                path.display(),
                error.message()
            )
        })?;
        if let Some(entry) = lock
            .published
            .iter()
            .find(|entry| !super::is_plugin_name(&entry.plugin))
        {
            return Err(format!(
                "`{}` is not a valid lock: `{}` is not a plugin name (`scope/name`, each in kebab-case)",
                path.display(),
                crate::report::terminal::visible(&entry.plugin)
            ));
        }
        Ok(lock)
    }

    /// Writes the lock atomically.
    pub(crate) fn write(&self, root: &Root) -> Result<(), String> {
        let text = toml::to_string_pretty(self)
            .map_err(|error| format!("cannot write the lock: {error}"))?;
        let text = format!(
            "# Written by `contrib publish` and `contrib yank`; do not edit by hand.\n{text}"
        );
        fs::write_atomically(&root.path().join(LOCK_FILE), text.as_bytes()).map_err(String::from)
    }

    /// The newest version of `plugin` ever published, yanked or not.
    pub fn newest(&self, plugin: &str) -> Option<&LockEntry> {
        self.entries(plugin)
            .max_by(|a, b| a.version.cmp_precedence(&b.version))
    }

    /// The newest version of `plugin` that new installs may pick.
    pub fn newest_installable(&self, plugin: &str) -> Option<&LockEntry> {
        self.entries(plugin)
            .filter(|entry| !entry.yanked)
            .max_by(|a, b| a.version.cmp_precedence(&b.version))
    }

    /// The entry of `plugin@version`, or of a version equal to it under
    /// SemVer precedence (which ignores build metadata).
    pub fn entry(&self, plugin: &str, version: &semver::Version) -> Option<&LockEntry> {
        self.entries(plugin)
            .find(|entry| entry.version.cmp_precedence(version).is_eq())
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
    /// `version` (equal to the bundle's under SemVer precedence) is
    /// published with other content.
    Frozen {
        version: semver::Version,
        published: String,
        built: String,
    },
    NotIncreased {
        newest: semver::Version,
    },
    /// With this version the catalog would break a catalog-wide rule
    /// (`contrib catalog check`), judged by the catalog's own policy.
    Inconsistent(Vec<Diagnostic>),
    /// The version carries build metadata (`1.4.1+a`): a catalog names a
    /// version by its number alone, which `install @1.4.1` asks for.
    BuildMetadata,
}

/// Why a publish did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PublishError {
    /// The catalog refused the bundle: a diagnostic on the manifest.
    Refused(Refusal),
    /// The catalog could not be read or written.
    Io(String),
}

impl From<String> for PublishError {
    fn from(message: String) -> Self {
        PublishError::Io(message)
    }
}

impl Refusal {
    /// The refusal as diagnostics on the manifest's version.
    pub fn diagnostics(&self, bundle: &Bundle, version_span: Span) -> Vec<Diagnostic> {
        match self {
            Refusal::Inconsistent(found) => found
                .iter()
                .map(|diagnostic| {
                    Diagnostic::new(diagnostic.rule, diagnostic.message.clone())
                        .primary(version_span, "publishing this version would break the catalog")
                        .help(format!(
                            "`contrib catalog check` would reject the catalog with this version ({}); {}",
                            diagnostic.rule.name,
                            diagnostic.help.clone().unwrap_or_default()
                        ))
                })
                .collect(),
            Refusal::Frozen {
                version,
                published,
                built,
            } if *version != bundle.version => vec![Diagnostic::new(
                &FROZEN_VERSION_CHANGED,
                format!(
                    "{} is {}@{version}, already published with other content",
                    bundle.id(),
                    bundle.plugin
                ),
            )
            .primary(
                version_span,
                format!("the same version as {version}: build metadata is ignored"),
            )
            .help(format!(
                "{version} is published as {published} and this build is {built}; versions that differ only after `+` are one version: bump it"
            ))],
            Refusal::Frozen {
                published, built, ..
            } => vec![Diagnostic::new(
                &FROZEN_VERSION_CHANGED,
                format!("{} is already published with other content", bundle.id()),
            )
            .primary(version_span, format!("published as {published}"))
            .help(format!(
                "this build is {built}; published versions never change: bump the version"
            ))],
            Refusal::NotIncreased { newest } => vec![Diagnostic::new(
                &VERSION_NOT_INCREASED,
                format!("{} is not newer than the published {newest}", bundle.id()),
            )
            .primary(version_span, format!("not greater than {newest}"))
            .help(format!("publish a version greater than {newest}"))],
            Refusal::BuildMetadata => {
                let number = semver::Version {
                    build: semver::BuildMetadata::EMPTY,
                    ..bundle.version.clone()
                };
                vec![Diagnostic::new(
                    &INVALID_VERSION,
                    format!(
                        "{} cannot be published: `{}` carries build metadata",
                        bundle.id(),
                        bundle.version
                    ),
                )
                .primary(version_span, "build metadata is not published")
                .help(format!(
                    "publish it as `{number}`: versions that differ only after `+` are one version, so a catalog names each by its number alone"
                ))]
            }
        }
    }
}

/// Publishes `bundle` into the catalog at `folder` (created if missing),
/// holding the catalog's exclusive lock from reading `catalog.lock` to
/// writing it back, and refusing it when the catalog with it would break a
/// catalog-wide rule ([`consistency`]) under the catalog's own
/// policy ([`consistency::policy`]): checked inside the lock, so publishes racing into
/// one catalog cannot each pass alone. `waiting` hears when another
/// process holds the lock.
pub fn publish(
    bundle: &Bundle,
    folder: &Path,
    waiting: &dyn Fn(&str),
) -> Result<Published, PublishError> {
    if !bundle.version.build.is_empty() {
        return Err(PublishError::Refused(Refusal::BuildMetadata));
    }
    let root = Root::create(folder).map_err(String::from)?;
    let _guard = fs::lock(folder, Access::Exclusive, waiting).map_err(String::from)?;
    let mut lock = Lock::read_in(&root)?;
    let built = bundle.digest.clone().unwrap_or_default();
    if let Some(entry) = lock.entry(&bundle.plugin, &bundle.version) {
        if entry.digest == built {
            return Ok(Published::AlreadyPublished(bundle_path(
                folder,
                &entry.plugin,
                &entry.version,
            )));
        }
        return Err(PublishError::Refused(Refusal::Frozen {
            version: entry.version.clone(),
            published: entry.digest.clone(),
            built,
        }));
    }
    if let Some(newest) = lock.newest(&bundle.plugin) {
        if bundle.version.cmp_precedence(&newest.version).is_le() {
            return Err(PublishError::Refused(Refusal::NotIncreased {
                newest: newest.version.clone(),
            }));
        }
    }
    let policy = consistency::policy(&root)?;
    let broken = consistency::with_published(&root, &lock, bundle, &policy);
    if !broken.is_empty() {
        return Err(PublishError::Refused(Refusal::Inconsistent(broken)));
    }
    let previous = lock
        .newest_installable(&bundle.plugin)
        .and_then(|entry| load_in(&root, &bundle_path(folder, &entry.plugin, &entry.version)).ok());
    let path = match write_bundle(&root, bundle)? {
        Written::Created(path) | Written::Unchanged(path) => path,
        Written::Frozen {
            version,
            published,
            built,
            ..
        } => {
            return Err(PublishError::Refused(Refusal::Frozen {
                version,
                published,
                built,
            }))
        }
    };
    lock.published.push(LockEntry {
        plugin: bundle.plugin.clone(),
        version: bundle.version.clone(),
        digest: built,
        yanked: false,
        permissions: bundle.permissions.clone(),
    });
    lock.write(&root)?;
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

/// Marks `plugin@version` yanked (or, with `undo`, not yanked), holding
/// the catalog's exclusive lock from the read to the write.
pub fn yank(
    folder: &Path,
    plugin: &str,
    version: &semver::Version,
    undo: bool,
    waiting: &dyn Fn(&str),
) -> Result<semver::Version, String> {
    change_lock(folder, waiting, |lock| {
        let entry = lock
            .published
            .iter_mut()
            .find(|entry| entry.plugin == plugin && entry.version.cmp_precedence(version).is_eq())
            .ok_or_else(|| {
                format!(
                    "{plugin}@{version} is not published in `{}`",
                    folder.display()
                )
            })?;
        entry.yanked = !undo;
        Ok(entry.version.clone())
    })
}

/// Reads, changes and writes the lock of the catalog at `folder` holding
/// the catalog's exclusive lock from the read to the write, so that no
/// concurrent publish, yank or trust is lost; nothing is written when
/// `change` fails.
pub(crate) fn change_lock<T>(
    folder: &Path,
    waiting: &dyn Fn(&str),
    change: impl FnOnce(&mut Lock) -> Result<T, String>,
) -> Result<T, String> {
    let root = Root::open(folder)?;
    let _guard = fs::lock(folder, Access::Exclusive, waiting)?;
    let mut lock = Lock::read_in(&root)?;
    let value = change(&mut lock)?;
    lock.write(&root)?;
    Ok(value)
}

/// A shared lock on a catalog, for readers that compare its bundles with
/// its lock; `None` when the folder cannot hold a lock file (a read-only
/// copy, which no one can be writing through this tool).
fn shared_lock(folder: &Path) -> Option<Guard> {
    fs::lock(folder, Access::Shared, &|_| {}).ok()
}

/// The text of `catalog.lock`, read inside the catalog.
fn read_lock_text(root: &Root) -> Result<String, String> {
    let path = root.path().join(LOCK_FILE);
    let bytes = root.read(&path, LOCK)?;
    String::from_utf8(bytes).map_err(|_| format!("`{}` is not UTF-8 text", path.display()))
}

/// Loads a bundle inside the catalog: a link out of it is refused.
fn load_in(root: &Root, path: &Path) -> Result<Bundle, String> {
    let bytes = root.read(path, BUNDLE)?;
    Bundle::from_bytes(&bytes).map_err(|error| format!("`{}`: {error}", path.display()))
}

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
pub fn check(folder: &Path, config: &Config) -> Result<CatalogReport, String> {
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
    let root = Root::open(folder)?;
    let is_catalog = root.path().join(LOCK_FILE).exists();
    let _guard = is_catalog.then(|| shared_lock(folder));
    let lock = Lock::read_in(&root)?;
    let mut chosen: Vec<Bundle> = Vec::new();
    for path in bundles_in(&root).files {
        let bundle = load_in(&root, &path)?;
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
            verify_signature(&root, &path, &bundle, &lock.trusted_keys).map_err(|why| {
                format!("`{}` is not signed by a trusted key: {why}", path.display())
            })?;
        }
        match chosen.iter_mut().find(|kept| kept.plugin == bundle.plugin) {
            Some(kept) if kept.version.cmp_precedence(&bundle.version).is_lt() => *kept = bundle,
            Some(_) => {}
            None => chosen.push(bundle),
        }
    }
    Ok(chosen)
}

/// Verifies a bundle's detached signature against the keys the lock
/// trusts, failing closed, with the public key read from the catalog's
/// own `keys/` folder (never from a folder above it, which the catalog
/// does not control).
pub(crate) fn verify_signature(
    root: &Root,
    bundle_file: &Path,
    bundle: &Bundle,
    trusted: &[String],
) -> Result<(), String> {
    let path = sign::signature_path(bundle_file);
    let text = root
        .read(&path, KEY)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| "it has no readable signature file".to_string())?;
    let signature: DetachedSignature =
        serde_json::from_str(&text).map_err(|_| "its signature file is malformed".to_string())?;
    if !trusted.contains(&signature.key_id) {
        return Err(format!(
            "it is signed by {}, which the lock does not trust",
            crate::report::terminal::visible(&signature.key_id)
        ));
    }
    let key_path = root
        .path()
        .join(KEYS_FOLDER)
        .join(format!("{}.pub", signature.key_id.replace(':', "-")));
    let key_text = root
        .read(&key_path, KEY)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| {
            format!(
                "the public key of {} is not in the catalog's `{KEYS_FOLDER}/` folder",
                signature.key_id
            )
        })?;
    let key = sign::read_public(&key_text)?;
    sign::verify(
        &key,
        &signature,
        bundle.digest.as_deref().unwrap_or_default(),
    )
    .map_err(String::from)
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

/// Every `*.bundle.json` in the catalog, in path order, following no
/// link out of it.
fn bundles_in(root: &Root) -> fs::Walked {
    root.walk(&[], |path| path.to_string_lossy().ends_with(".bundle.json"))
}

/// The span of the first occurrence of `needle` in `text`, or the start.
pub(super) fn find_span(text: &str, needle: &str) -> Span {
    match (needle.is_empty(), text.find(needle)) {
        (false, Some(start)) => Span::new(start, start + needle.len()),
        _ => Span::point(0),
    }
}

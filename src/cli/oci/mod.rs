//! Catalogs in OCI registries (`oci://HOST[:PORT]/NAMESPACE`), on the
//! command line's side: the format is [`crate::bundle::oci`]'s, the
//! network is here. Every command works through a folder catalog: the
//! registry's index is folded into a `catalog.lock`, the bundles a command
//! needs are pulled by digest beside it, and the folder catalog's own code
//! judges them — so a registry catalog refuses what a folder catalog
//! refuses, by the same rules.

mod auth;
mod cache;
pub(super) mod check;
mod client;
pub(super) mod credentials;
mod facts;
mod http;
mod publish;
pub(super) mod signatures;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::bundle::catalog::{Lock, LockEntry, PublishError, Published};
use crate::bundle::oci::{self, Dispute, Event, EventKind, Index, OciCatalog};
use crate::bundle::{bundle_path, Bundle};
use crate::fs::Root;

pub(super) use client::Registry;
pub(super) use publish::publish;

/// `--plain-http`: plain HTTP to registries that are not on this machine.
static PLAIN_HTTP: OnceLock<bool> = OnceLock::new();

/// Records `--plain-http`, once, before any command runs.
pub(super) fn allow_plain_http(allowed: bool) {
    let _ = PLAIN_HTTP.set(allowed);
}

/// The registry catalog `path` names, if it names one.
pub(super) fn catalog_of(path: &Path) -> Option<Result<OciCatalog, String>> {
    OciCatalog::parse(path.to_str()?).map(|parsed| parsed.map_err(String::from))
}

/// Connects to `catalog`'s registry.
pub(super) fn connect(catalog: &OciCatalog) -> Result<Registry, String> {
    Registry::connect(catalog, PLAIN_HTTP.get().copied().unwrap_or(false))
}

/// Connects to `catalog`'s registry for work that only refreshes what is
/// kept: all of it within one request's time.
fn connect_to_refresh(catalog: &OciCatalog) -> Result<Registry, String> {
    Registry::connect_until(
        catalog,
        PLAIN_HTTP.get().copied().unwrap_or(false),
        http::Deadlines::of_command().within_one_request(),
    )
}

/// Why `plugin@version` is not installed from `catalog`, when its index
/// disputes it.
fn disputed(catalog: &OciCatalog, dispute: &Dispute) -> String {
    let claims: Vec<String> = dispute
        .claims
        .iter()
        .map(|(tag, digest)| format!("`{tag}` ({digest})"))
        .collect();
    format!(
        "{}@{} is disputed in `{catalog}`: the index's events {} publish it with other content, none of them written after reading the others, so no reader can tell which was first and it is installed from none (publish a new version; `contrib catalog check {catalog}` lists them)",
        dispute.plugin,
        dispute.version,
        claims.join(" and ")
    )
}

/// Writes `index` into `folder` as a folder catalog, with the bundles of
/// `wanted` pulled by digest and checked against the index (those already
/// there and matching are kept), each with its signature: bundles first,
/// the lock last, so an interrupted mirror never lists a bundle it does
/// not hold. The folder's trusted keys stay as they were, and so does
/// every version it listed that the index now disputes or names with
/// other content: the first publication this folder saw is the one it
/// keeps. Each version so kept is a note in the result.
pub(super) fn mirror(
    registry: &Registry,
    index: &Index,
    folder: &Path,
    wanted: &[&LockEntry],
) -> Result<Vec<String>, String> {
    let root = Root::create(folder)?;
    let previous = Lock::read(folder)?;
    for entry in wanted {
        let path = pull_into(registry, index, folder, entry)?;
        signatures::pull_beside(registry, index, &path, entry, &previous.trusted_keys)?;
    }
    let (lock, notes) = first_seen(&registry.catalog, index, &previous);
    lock.write(&root)?;
    Ok(notes)
}

/// The lock a mirror holding `previous` writes for `index`: the index's,
/// with the folder's trusted keys, and with each version the folder
/// listed as it listed it where the index now disputes it or names other
/// content for it; a note for each.
fn first_seen(catalog: &OciCatalog, index: &Index, previous: &Lock) -> (Lock, Vec<String>) {
    let mut lock = index.lock.clone();
    lock.trusted_keys = previous.trusted_keys.clone();
    let mut notes = Vec::new();
    for kept in &previous.published {
        let id = format!("{}@{}", kept.plugin, kept.version);
        let now = lock.published.iter().position(|entry| {
            entry.plugin == kept.plugin && entry.version.cmp_precedence(&kept.version).is_eq()
        });
        match (now, index.dispute(&kept.plugin, &kept.version)) {
            (Some(at), _) if lock.published[at].digest == kept.digest => {}
            (Some(at), _) => {
                notes.push(format!(
                    "`{catalog}` now names {} for {id}, which this mirror read as {}: it keeps what it read first",
                    lock.published[at].digest, kept.digest
                ));
                lock.published[at] = LockEntry {
                    yanked: lock.published[at].yanked,
                    ..kept.clone()
                };
            }
            (None, Some(dispute))
                if dispute
                    .claims
                    .iter()
                    .any(|(_, digest)| *digest == kept.digest) =>
            {
                notes.push(format!(
                    "{}; this mirror keeps {}, which it read first",
                    disputed(catalog, dispute),
                    kept.digest
                ));
                lock.published.push(LockEntry {
                    yanked: dispute.yanked,
                    ..kept.clone()
                });
            }
            (None, _) => {}
        }
    }
    (lock, notes)
}

/// Pulls `entry`'s bundle into the folder catalog at `folder`.
fn pull_into(
    registry: &Registry,
    index: &Index,
    folder: &Path,
    entry: &LockEntry,
) -> Result<PathBuf, String> {
    let path = bundle_path(folder, &entry.plugin, &entry.version);
    let kept = crate::fs::read_limited(&path, crate::limits::files::BUNDLE)
        .ok()
        .and_then(|bytes| Bundle::from_bytes(&bytes).ok());
    if kept.is_some_and(|bundle| bundle.digest.as_deref() == Some(entry.digest.as_str())) {
        return Ok(path);
    }
    let cached = cache::cache_folder().map(|folder| {
        folder
            .join("bundles")
            .join(format!("{}.bundle.json", entry.digest.replace(':', "-")))
    });
    let from_cache = cached
        .as_ref()
        .and_then(|file| crate::fs::read_limited(file, crate::limits::files::BUNDLE).ok())
        .filter(|bytes| {
            Bundle::from_bytes(bytes).is_ok_and(|bundle| {
                bundle.digest.as_deref() == Some(entry.digest.as_str())
                    && bundle.plugin == entry.plugin
                    && bundle.version == entry.version
            })
        });
    let bytes = match from_cache {
        Some(bytes) => bytes,
        None => {
            let bytes = pull_bundle(registry, index, &entry.plugin, &entry.version)?.1;
            if let Some(file) = &cached {
                // The cache only saves requests: failing to fill it is not an error.
                let _ = file
                    .parent()
                    .map(crate::fs::create_folder)
                    .map(|_| crate::fs::write_atomically(file, &bytes));
            }
            bytes
        }
    };
    if let Some(parent) = path.parent() {
        crate::fs::create_folder(parent)?;
    }
    crate::fs::write_atomically(&path, &bytes)?;
    Ok(path)
}

/// `plugin@version` pulled by the digest its index records, checked to be
/// the bundle the index published. Its tag is not read: callers that name
/// a version to a person check it with [`tag_not_moved`].
pub(super) fn pull_bundle(
    registry: &Registry,
    index: &Index,
    plugin: &str,
    version: &semver::Version,
) -> Result<(Bundle, Vec<u8>), String> {
    let id = format!("{plugin}@{version}");
    if let Some(dispute) = index.dispute(plugin, version) {
        return Err(disputed(&registry.catalog, dispute));
    }
    let (Some(entry), Some(manifest)) = (
        index.lock.entry(plugin, version),
        index.manifest(plugin, version),
    ) else {
        return Err(format!("{id} is not published in `{}`", registry.catalog));
    };
    let bytes = registry.bundle(plugin, manifest)?;
    let bundle = Bundle::from_bytes(&bytes).map_err(|error| format!("{id}: {error}"))?;
    if bundle.plugin != plugin || bundle.version.cmp_precedence(version).is_ne() {
        return Err(format!(
            "registry `{}`: {id} holds {}",
            registry.catalog,
            bundle.id()
        ));
    }
    if bundle.digest.as_deref() != Some(entry.digest.as_str()) {
        return Err(format!(
            "registry `{}`: {id} is {}, not the {} its index published",
            registry.catalog,
            bundle.digest.as_deref().unwrap_or("undigested"),
            entry.digest
        ));
    }
    Ok((bundle, bytes))
}

/// Refuses a version whose tag names another manifest than the index
/// published: a tag is never followed, and one that moved is named.
pub(super) fn tag_not_moved(
    registry: &Registry,
    plugin: &str,
    version: &semver::Version,
    manifest: &str,
) -> Result<(), String> {
    let repository = registry.catalog.repository(plugin);
    let now = registry.tag_digest(&repository, &version.to_string())?;
    moved(registry, plugin, version, manifest, now)
}

/// The refusal of a version whose tag names `now` rather than the
/// `manifest` its index published; nothing when it names that or nothing.
pub(super) fn moved(
    registry: &Registry,
    plugin: &str,
    version: &semver::Version,
    manifest: &str,
    now: Option<String>,
) -> Result<(), String> {
    match now {
        Some(now) if now != manifest => Err(format!(
            "the tag `{version}` of `{}` moved: it names {now}, but {plugin}@{version} was published as {manifest}; published versions never change, so the tag is not followed (restore it, or publish a new version)",
            registry.catalog.repository(plugin)
        )),
        _ => Ok(()),
    }
}

/// Mirrors the registry's index, and the bundles of every version, into
/// the folder catalog at `folder`; the index, and how many versions.
pub(super) fn pull_catalog(catalog: &OciCatalog, folder: &Path) -> Result<(Index, usize), String> {
    let registry = connect(catalog)?;
    let index = registry.index()?;
    mirror_fits(folder, &index)?;
    let wanted: Vec<&LockEntry> = index.lock.published.iter().collect();
    for note in mirror(&registry, &index, folder, &wanted)? {
        super::output::status(format_args!("note: {note}"));
    }
    Ok((index.clone(), wanted.len()))
}

/// Yanks (or restores) `plugin@version` in the registry catalog, as an
/// event of its index; the version as published.
pub(super) fn yank(
    catalog: &OciCatalog,
    plugin: &str,
    version: &semver::Version,
    undo: bool,
) -> Result<semver::Version, String> {
    let registry = connect(catalog)?;
    let index = registry.index()?;
    let entry = index
        .lock
        .entry(plugin, version)
        .ok_or_else(|| format!("{plugin}@{version} is not published in `{catalog}`"))?;
    let event = Event {
        kind: if undo {
            EventKind::Restore
        } else {
            EventKind::Yank
        },
        sequence: index.next_sequence(),
        plugin: plugin.to_string(),
        version: entry.version.clone(),
        bundle_digest: None,
        manifest: None,
        permissions: None,
        facts: None,
        after: index.heads.clone(),
    };
    registry.append(&event)?;
    Ok(entry.version.clone())
}

/// The workspace's mirror of each registry catalog its lock names,
/// refreshed from the registry, each within one request's time; a
/// registry that cannot be read in that time is a warning, and the last
/// mirror stands.
pub(super) fn refresh_workspace(folder: &Path, warn: &dyn Fn(&str)) {
    let Ok(lock) = crate::trust::lock::WorkspaceLock::read(folder) else {
        return;
    };
    let mut seen: Vec<String> = Vec::new();
    for entry in &lock.installed {
        if seen.contains(&entry.catalog) {
            continue;
        }
        seen.push(entry.catalog.clone());
        let Some(Ok(catalog)) = OciCatalog::parse(&entry.catalog) else {
            continue;
        };
        let refreshed = connect_to_refresh(&catalog).and_then(|registry| {
            let index = registry.index()?;
            mirror(
                &registry,
                &index,
                &oci::mirror_folder(folder, &catalog),
                &[],
            )
        });
        match refreshed {
            Ok(notes) => notes.iter().for_each(|note| warn(note)),
            Err(why) => warn(&format!(
                "cannot refresh `{catalog}`, so its last mirror in this workspace stands: {why}"
            )),
        }
    }
}

/// Refreshes the workspace's mirror of `catalog` with `plugin@version`'s
/// bundle (the newest installable, with `None`); the mirror's folder and
/// the version. A version the index disputes is refused, naming the
/// events that claim it.
pub(super) fn mirror_for_install(
    workspace: &Path,
    catalog: &OciCatalog,
    plugin: &str,
    version: Option<&semver::Version>,
) -> Result<(PathBuf, Option<semver::Version>), String> {
    let registry = connect(catalog)?;
    let index = registry.index()?;
    if let Some(dispute) = version.and_then(|version| index.dispute(plugin, version)) {
        return Err(disputed(catalog, dispute));
    }
    let entry = match version {
        Some(version) => index.lock.entry(plugin, version),
        None => index.lock.newest_installable(plugin),
    };
    let folder = oci::mirror_folder(workspace, catalog);
    let wanted: Vec<&LockEntry> = entry.into_iter().collect();
    for entry in &wanted {
        if let Some(manifest) = index.manifest(&entry.plugin, &entry.version) {
            tag_not_moved(&registry, &entry.plugin, &entry.version, manifest)?;
        }
    }
    for note in mirror(&registry, &index, &folder, &wanted)? {
        super::output::status(format_args!("note: {note}"));
    }
    Ok((folder, entry.map(|entry| entry.version.clone())))
}

/// A bundle named `oci://HOST/NAMESPACE/SCOPE/NAME@VERSION` (for
/// `preview` and `diff`), pulled by digest; `None` when `text` is not a
/// registry reference.
pub(super) fn bundle_at(text: &str) -> Option<Result<Bundle, String>> {
    let rest = text.strip_prefix(oci::SCHEME)?;
    Some((|| {
        let wrong = || {
            format!(
                "`{}` is not a published version: write `oci://HOST[:PORT]/NAMESPACE/SCOPE/NAME@VERSION`",
                crate::report::terminal::visible(text)
            )
        };
        let (path, version) = rest.rsplit_once('@').ok_or_else(wrong)?;
        let version = semver::Version::parse(version).map_err(|_| wrong())?;
        let mut parts: Vec<&str> = path.rsplitn(3, '/').collect();
        parts.reverse();
        let [catalog, scope, name] = parts.as_slice() else {
            return Err(wrong());
        };
        let catalog =
            OciCatalog::parse(&format!("{}{catalog}", oci::SCHEME)).ok_or_else(wrong)??;
        let registry = connect(&catalog)?;
        let index = registry.index()?;
        let plugin = format!("{scope}/{name}");
        if let Some(manifest) = index.manifest(&plugin, &version) {
            tag_not_moved(&registry, &plugin, &version, manifest)?;
        }
        Ok(pull_bundle(&registry, &index, &plugin, &version)?.0)
    })())
}

/// Publishes every version of the folder catalog at `folder` into the
/// registry catalog, oldest first, each judged as `publish` judges it and
/// with its signature, and yanks there what it yanked; how many versions were new, and how many
/// were there already.
pub(super) fn push_catalog(folder: &Path, catalog: &OciCatalog) -> Result<(usize, usize), String> {
    let lock = Lock::read(folder)?;
    let root = Root::open(folder)?;
    let mut entries: Vec<&LockEntry> = lock.published.iter().collect();
    entries.sort_by(|a, b| {
        a.plugin
            .cmp(&b.plugin)
            .then_with(|| a.version.cmp_precedence(&b.version))
    });
    let registry = connect(catalog)?;
    let (mut new, mut kept) = (0, 0);
    for entry in &entries {
        let path = bundle_path(folder, &entry.plugin, &entry.version);
        let bytes = root.read(&path, crate::limits::files::BUNDLE)?;
        let bundle =
            Bundle::from_bytes(&bytes).map_err(|error| format!("`{}`: {error}", path.display()))?;
        if bundle.digest.as_deref() != Some(entry.digest.as_str()) {
            return Err(format!(
                "`{}` is not the bundle the catalog's lock records for {}@{}",
                path.display(),
                entry.plugin,
                entry.version
            ));
        }
        match publish(&bundle, catalog) {
            Ok(Published::New { .. }) => new += 1,
            Ok(Published::AlreadyPublished(_)) => kept += 1,
            Err(PublishError::Io(message)) => return Err(message),
            Err(PublishError::Refused(refusal)) => {
                let why: Vec<String> = refusal
                    .diagnostics(&bundle, crate::source::Span::point(0))
                    .into_iter()
                    .map(|diagnostic| diagnostic.message)
                    .collect();
                return Err(format!(
                    "`{catalog}` refused {}: {}",
                    bundle.id(),
                    why.join("; ")
                ));
            }
        }
        let signature = crate::bundle::sign::signature_path(&path);
        if let Ok(bytes) = root.read(&signature, crate::limits::files::KEY) {
            signatures::push(&registry, &entry.plugin, &entry.version, &bytes)?;
        }
    }
    let index = registry.index()?;
    for entry in entries {
        let there = index.lock.entry(&entry.plugin, &entry.version);
        if there.is_some_and(|there| there.yanked != entry.yanked) {
            yank(catalog, &entry.plugin, &entry.version, !entry.yanked)?;
        }
    }
    Ok((new, kept))
}

/// Refuses to mirror over a folder catalog that lists what the registry
/// does not: a mirror may add to a folder, never take from it.
pub(super) fn mirror_fits(folder: &Path, index: &Index) -> Result<(), String> {
    let lock = Lock::read(folder)?;
    for entry in &lock.published {
        let there = index.lock.entry(&entry.plugin, &entry.version);
        if there.is_none_or(|there| there.digest != entry.digest) {
            return Err(format!(
                "`{}` lists {}@{} as {}, which the registry does not publish: mirror into another folder",
                folder.display(),
                entry.plugin,
                entry.version,
                entry.digest
            ));
        }
    }
    Ok(())
}

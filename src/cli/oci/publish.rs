//! `publish` into a registry catalog: judged as a folder catalog judges a
//! version, the catalog-wide rules from the facts the index records, then
//! pushed as an event of the index.

use std::path::{Path, PathBuf};

use super::{connect, facts, mirror, Registry};
use crate::bundle::catalog::consistency::{self, Facts};
use crate::bundle::catalog::{self, PublishError, Published, Refusal};
use crate::bundle::oci::{self, Event, EventKind, Index, OciCatalog};
use crate::bundle::Bundle;

/// Publishes `bundle` to the registry catalog: judged first as a folder
/// catalog judges it ([`judge`]), then pushed (the bundle, its manifest
/// under its version's tag, an event in the index), then read back: a
/// version another publisher got into the index first is refused, naming
/// both.
pub(crate) fn publish(bundle: &Bundle, catalog: &OciCatalog) -> Result<Published, PublishError> {
    let registry = connect(catalog)?;
    let index = registry.index()?;
    let scratch = tempfile::tempdir().map_err(|error| format!("cannot make a folder: {error}"))?;
    let folder = scratch.path().join("catalog");
    let (path, previous, changes) = match judge(&registry, &index, bundle, &folder)? {
        Published::AlreadyPublished(_) => {
            return Ok(Published::AlreadyPublished(PathBuf::from(
                version_reference(catalog, bundle),
            )))
        }
        Published::New {
            path,
            previous,
            changes,
        } => (path, previous, changes),
    };
    let bytes =
        crate::fs::read_limited(&path, crate::limits::files::BUNDLE).map_err(String::from)?;
    let manifest = push_version(&registry, bundle, &bytes)?;
    let event = Event {
        kind: EventKind::Publish,
        sequence: index.sequence + 1,
        plugin: bundle.plugin.clone(),
        version: bundle.version.clone(),
        bundle_digest: bundle.digest.clone(),
        manifest: Some(manifest),
        permissions: Some(bundle.permissions.clone()),
        facts: Some(Facts::of(bundle)),
    };
    registry.append(&event)?;
    let after = registry.index()?;
    let built = bundle.digest.clone().unwrap_or_default();
    match after.lock.entry(&bundle.plugin, &bundle.version) {
        Some(entry) if entry.digest == built => Ok(Published::New {
            path: PathBuf::from(version_reference(catalog, bundle)),
            previous,
            changes,
        }),
        Some(entry) => Err(PublishError::Refused(Refusal::Frozen {
            version: entry.version.clone(),
            published: entry.digest.clone(),
            built,
        })),
        None => Err(PublishError::Io(format!(
            "registry `{catalog}`: {} was pushed but its index does not list it",
            bundle.id()
        ))),
    }
}

/// Judges `bundle` as [`catalog::publish`] judges it for a folder, in a
/// mirror of the index at `folder`, but with the catalog-wide rules judged
/// over every version from the facts the index records
/// ([`consistency::with_published_facts`]): the mirror holds only the bundles the
/// folder's code reads beyond those rules — the plugin's newest version,
/// whose changes the publish prints — and the versions published before
/// events recorded their facts. So a publish into a catalog whose events
/// all record them pulls at most one bundle, however large the catalog.
///
/// The folder's own catalog-wide judgement, over the few bundles in the
/// mirror, sees part of what the facts show; its refusal gives way to the
/// verdict over every version, and stands alone only where the catalog
/// was already inconsistent in a way the part hides.
fn judge(
    registry: &Registry,
    index: &Index,
    bundle: &Bundle,
    folder: &Path,
) -> Result<Published, PublishError> {
    let mut wanted = facts::unrecorded(index);
    if let Some(newest) = index.lock.newest_installable(&bundle.plugin) {
        if !wanted.contains(&newest) {
            wanted.push(newest);
        }
    }
    mirror(registry, index, folder, &wanted)?;
    let facts = facts::of_every_version(index, folder)?;
    let policy = consistency::policy_of(folder).map_err(catalog::Error::Policy)?;
    let broken = consistency::with_published_facts(&index.lock, &facts, bundle, &policy);
    match catalog::publish(bundle, folder, &|_| {}) {
        Err(PublishError::Refused(Refusal::Inconsistent(_))) | Ok(Published::New { .. })
            if !broken.is_empty() =>
        {
            Err(PublishError::Refused(Refusal::Inconsistent(broken)))
        }
        published => published,
    }
}

/// `oci://HOST/NAMESPACE/SCOPE/NAME:VERSION`, for messages.
fn version_reference(catalog: &OciCatalog, bundle: &Bundle) -> String {
    format!("{catalog}/{}:{}", bundle.plugin, bundle.version)
}

/// Pushes the bundle and its manifest under its version's tag; the
/// manifest's digest. A tag that already names other content is refused
/// before anything is written over it, and the tag is read back after.
fn push_version(
    registry: &Registry,
    bundle: &Bundle,
    bytes: &[u8],
) -> Result<String, PublishError> {
    let repository = registry.catalog.repository(&bundle.plugin);
    let tag = bundle.version.to_string();
    let built = bundle.digest.clone().unwrap_or_default();
    if let Some(existing) = registry.tag_digest(&repository, &tag)? {
        let annotations = registry.annotations_of(&repository, &existing)?;
        let held = annotations
            .get(oci::annotation::BUNDLE_DIGEST)
            .cloned()
            .unwrap_or_else(|| existing.clone());
        if held == built {
            return Ok(existing);
        }
        return Err(PublishError::Refused(Refusal::Frozen {
            version: bundle.version.clone(),
            published: held,
            built,
        }));
    }
    registry.push_blob(&repository, oci::EMPTY_CONTENT)?;
    let layer = registry.push_blob(&repository, bytes)?;
    let manifest = oci::bundle_manifest(bundle, &layer, bytes.len(), &super::super::clock::now());
    let digest = registry.push_manifest(&repository, Some(&tag), &manifest)?;
    match registry.tag_digest(&repository, &tag)? {
        Some(now) if now == digest => Ok(digest),
        now => Err(PublishError::Io(format!(
            "registry `{}`: another publisher wrote the tag `{tag}` of `{repository}` at the same time ({}; this publish was {digest}); read the catalog with `contrib catalog check`",
            registry.catalog,
            now.unwrap_or_else(|| "now gone".to_string())
        ))),
    }
}

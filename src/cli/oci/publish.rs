//! `publish` into a registry catalog: judged as a folder catalog judges a
//! version, the catalog-wide rules from the facts the index records, then
//! pushed as an event of the index.

use std::path::{Path, PathBuf};

use super::super::output::status;
use super::{connect, facts, mirror, Registry};
use crate::bundle::catalog::consistency::{self, Facts};
use crate::bundle::catalog::{self, PublishError, Published, Refusal};
use crate::bundle::oci::{self, Event, EventKind, Index, OciCatalog};
use crate::bundle::Bundle;

/// Publishes `bundle` to the registry catalog: judged first as a folder
/// catalog judges it ([`judge`]), then pushed — the bundle and its
/// manifest by digest, then the event that publishes it, then the
/// version's tag — and read back: a version another publisher got into the
/// index first, or published at the same time with other content, is
/// refused, naming both. The index is what publishes a version, so a
/// publish that fails before its event leaves no tag behind, and one whose
/// event the registry stored is published whatever the registry answered.
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
        sequence: index.next_sequence(),
        plugin: bundle.plugin.clone(),
        version: bundle.version.clone(),
        bundle_digest: bundle.digest.clone(),
        manifest: Some(manifest.digest.clone()),
        permissions: Some(bundle.permissions.clone()),
        facts: Some(Facts::of(bundle)),
        after: index.heads.clone(),
    };
    let appended = registry.append(&event);
    let after = registry.index()?;
    let built = bundle.digest.clone().unwrap_or_default();
    if let Some(dispute) = after.dispute(&bundle.plugin, &bundle.version) {
        let other = dispute
            .claims
            .iter()
            .find(|(_, digest)| *digest != built)
            .map(|(_, digest)| digest.clone())
            .unwrap_or_default();
        return Err(PublishError::Refused(Refusal::Frozen {
            version: bundle.version.clone(),
            published: other,
            built,
        }));
    }
    match (after.lock.entry(&bundle.plugin, &bundle.version), appended) {
        (Some(entry), appended) if entry.digest == built => {
            if let Err(why) = appended {
                status(format_args!(
                    "note: the registry answered the publish event with an error, but its index lists it, so {} is published ({why})",
                    bundle.id()
                ));
            }
            tag_version(&registry, bundle, &manifest);
            Ok(Published::New {
                path: PathBuf::from(version_reference(catalog, bundle)),
                previous,
                changes,
            })
        }
        (Some(entry), _) => Err(PublishError::Refused(Refusal::Frozen {
            version: entry.version.clone(),
            published: entry.digest.clone(),
            built,
        })),
        (None, Err(why)) => Err(PublishError::Io(format!(
            "{} is not published: its bundle is in the registry, but the event that publishes it was not written ({why}); run the publish again",
            bundle.id()
        ))),
        (None, Ok(_)) => Err(PublishError::Io(format!(
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

/// A version's manifest as pushed: its digest, and the JSON pushed.
struct Pushed {
    digest: String,
    manifest: serde_json::Value,
}

/// Pushes the bundle and its manifest, by digest: nothing names it yet,
/// so a publish that stops here leaves nothing any reader follows.
fn push_version(
    registry: &Registry,
    bundle: &Bundle,
    bytes: &[u8],
) -> Result<Pushed, PublishError> {
    let repository = registry.catalog.repository(&bundle.plugin);
    registry.push_blob(&repository, oci::EMPTY_CONTENT)?;
    let layer = registry.push_blob(&repository, bytes)?;
    let manifest = oci::bundle_manifest(bundle, &layer, bytes.len(), &super::super::clock::now());
    let digest = registry.push_manifest(&repository, None, &manifest)?;
    Ok(Pushed { digest, manifest })
}

/// Writes the version's tag, for OCI tools that list versions by tag
/// (contrib pulls by the digest its index records). A tag another tool or
/// a failed publish of an older contrib left there, naming content no
/// publish event names, is replaced, and said; a tag that cannot be
/// written is a warning: the version is published all the same.
fn tag_version(registry: &Registry, bundle: &Bundle, pushed: &Pushed) {
    let repository = registry.catalog.repository(&bundle.plugin);
    let tag = bundle.version.to_string();
    let tagged = (|| {
        if let Some(held) = registry.tag_digest(&repository, &tag)? {
            if held != pushed.digest {
                status(format_args!(
                    "note: the tag `{tag}` of `{repository}` named {held}, which no publish event names (a publish that failed before its event, or another tool's push), so it now names {}",
                    pushed.digest
                ));
            }
        }
        registry.push_manifest(&repository, Some(&tag), &pushed.manifest)?;
        match registry.tag_digest(&repository, &tag)? {
            Some(now) if now == pushed.digest => Ok(()),
            now => Err(format!(
                "another publisher wrote it at the same time ({})",
                now.unwrap_or_else(|| "now gone".to_string())
            )),
        }
    })();
    if let Err(why) = tagged {
        status(format_args!(
            "warning: {} is published, but its tag `{tag}` of `{repository}` could not be written: {why}; contrib installs it by digest, other OCI tools list it by tag",
            bundle.id()
        ));
    }
}

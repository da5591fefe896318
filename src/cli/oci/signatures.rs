//! Signatures of a registry catalog's versions, on the network's side
//! (the format is [`crate::bundle::oci::referrer`]'s): pushed as a
//! referrer of the version's manifest and recorded by a `sign` event in
//! the index, pulled by the digests the index records and written beside
//! the bundle as `BUNDLE.sig`, where the folder catalog's own code
//! verifies them under the keys the folder trusts — a workspace's mirror,
//! or a catalog pulled for air-gapped use.

use std::path::Path;
use std::time::Duration;

use crate::bundle::oci::{self, referrer, Event, EventKind, Index, OciCatalog};
use crate::bundle::sign::{self, DetachedSignature};
use crate::bundle::Bundle;
use crate::limits::files::KEY;

use super::client::{sha256, Registry};

/// How many times a signer writes the referrers tag before giving up.
const ATTEMPTS: u64 = 8;

/// How long a signer waits before reading the referrers tag back a
/// second time: a concurrent signer that read the tag before this one
/// wrote it has written by then, and its loss is repaired.
const SETTLE: Duration = Duration::from_millis(300);

/// Signs `bundle`, published in `catalog`, with `key`; the key's id.
pub(crate) fn sign_published(
    catalog: &OciCatalog,
    bundle: &Bundle,
    key: &crate::bundle::sign::SigningKey,
) -> Result<String, String> {
    let signature = sign::sign(key, bundle.digest.as_deref().unwrap_or_default());
    let text = serde_json::to_string_pretty(&signature).unwrap_or_default() + "\n";
    push(
        &super::connect(catalog)?,
        &bundle.plugin,
        &bundle.version,
        text.as_bytes(),
    )?;
    Ok(signature.key_id)
}

/// Adds the signature file `bytes` to `plugin@version` in the registry,
/// refused unless it signs the digest the index published; whether it was
/// new. The referrer is pushed first, the event second (so the index
/// never names a signature that is not there), the referrers tag last.
pub(crate) fn push(
    registry: &Registry,
    plugin: &str,
    version: &semver::Version,
    bytes: &[u8],
) -> Result<bool, String> {
    let index = registry.index()?;
    let id = format!("{plugin}@{version}");
    let (Some(entry), Some(subject)) = (
        index.lock.entry(plugin, version),
        index.manifest(plugin, version),
    ) else {
        return Err(format!("{id} is not published in `{}`", registry.catalog));
    };
    let signature: DetachedSignature =
        serde_json::from_slice(bytes).map_err(|_| format!("the signature of {id} is malformed"))?;
    if signature.digest != entry.digest {
        return Err(format!(
            "the signature is over {}, but {id} was published as {}",
            signature.digest, entry.digest
        ));
    }
    let repository = registry.catalog.repository(plugin);
    let subject_size = registry.manifest(&repository, subject)?.len();
    let manifest = referrer::signature_manifest(
        subject,
        subject_size,
        &sha256(bytes),
        bytes.len(),
        &signature.key_id,
    );
    let digest = sha256(&serde_json::to_vec(&manifest).unwrap_or_default());
    let new = !index.signatures(plugin, version).contains(&digest);
    if new {
        registry.push_blob(&repository, oci::EMPTY_CONTENT)?;
        registry.push_blob(&repository, bytes)?;
        registry.push_manifest(&repository, None, &manifest)?;
        registry.append(&Event {
            kind: EventKind::Sign,
            sequence: index.next_sequence(),
            plugin: plugin.to_string(),
            version: entry.version.clone(),
            bundle_digest: Some(entry.digest.clone()),
            manifest: Some(digest),
            permissions: None,
            facts: None,
            after: index.heads.clone(),
        })?;
    }
    list_as_referrers(registry, plugin, version, subject)?;
    Ok(new)
}

/// Makes the registry list every signature of `plugin@version` the index
/// records as a referrer of `subject`: nothing to do where the registry
/// has the referrers API, else the referrers tag rewritten by
/// compare-and-retry until it lists them all twice, [`SETTLE`] apart.
fn list_as_referrers(
    registry: &Registry,
    plugin: &str,
    version: &semver::Version,
    subject: &str,
) -> Result<(), String> {
    let repository = registry.catalog.repository(plugin);
    let tag = referrer::fallback_tag(subject);
    let mut confirmed = false;
    for attempt in 0..ATTEMPTS {
        let index = registry.index()?;
        let wanted = descriptors(registry, &repository, &index, plugin, version)?;
        let listed = registry.signature_referrers(&repository, subject)?;
        let missing = wanted
            .iter()
            .any(|entry| !listed.iter().any(|digest| entry["digest"] == **digest));
        if !missing && confirmed {
            return Ok(());
        }
        if missing {
            let existing = registry.image_index(&repository, &tag)?;
            let merged = referrer::merged_index(existing.as_deref(), &wanted);
            registry.push_manifest_as(&repository, Some(&tag), &merged, referrer::INDEX_TYPE)?;
        }
        confirmed = !missing;
        std::thread::sleep(SETTLE + backoff(attempt));
    }
    Err(format!(
        "registry `{}`: the referrers tag `{tag}` of `{repository}` kept changing under other signers; the signature is in the catalog's index, which contrib reads, but other OCI tools may not list it until the next signer writes the tag",
        registry.catalog
    ))
}

/// A random wait, growing with the attempt, so racing signers fall apart.
fn backoff(attempt: u64) -> Duration {
    let mut random = [0u8; 2];
    let _ = getrandom::fill(&mut random);
    Duration::from_millis(u64::from(u16::from_le_bytes(random)) % (100 * (attempt + 1)))
}

/// The referrers-index entries of the signatures of `plugin@version` the
/// index records.
fn descriptors(
    registry: &Registry,
    repository: &str,
    index: &Index,
    plugin: &str,
    version: &semver::Version,
) -> Result<Vec<serde_json::Value>, String> {
    let mut found = Vec::new();
    for digest in index.signatures(plugin, version) {
        let manifest = registry.manifest(repository, digest)?;
        let key = oci_annotation(&manifest, referrer::KEY_ANNOTATION);
        found.push(referrer::descriptor(digest, manifest.len(), &key));
    }
    Ok(found)
}

fn oci_annotation(manifest: &[u8], key: &str) -> String {
    serde_json::from_slice::<serde_json::Value>(manifest)
        .ok()
        .and_then(|value| value["annotations"][key].as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Writes beside the bundle at `bundle_file` the signature of
/// `plugin@version` to keep: one by a key the folder trusts when there is
/// one, else the first over the bundle's digest. A signature the registry
/// does not serve as recorded is passed over: whether one is required is
/// the folder's to judge, and it fails closed.
pub(crate) fn pull_beside(
    registry: &Registry,
    index: &Index,
    bundle_file: &Path,
    entry: &crate::bundle::catalog::LockEntry,
    trusted: &[String],
) -> Result<(), String> {
    let (plugin, version) = (&entry.plugin, &entry.version);
    let Some(subject) = index.manifest(plugin, version) else {
        return Ok(());
    };
    let repository = registry.catalog.repository(plugin);
    let mut signatures: Vec<(DetachedSignature, Vec<u8>)> = Vec::new();
    for digest in index.signatures(plugin, version) {
        let Ok(bytes) = pull_one(registry, &repository, digest, subject) else {
            continue;
        };
        if let Ok(signature) = serde_json::from_slice::<DetachedSignature>(&bytes) {
            if signature.digest == entry.digest {
                signatures.push((signature, bytes));
            }
        }
    }
    let chosen = signatures
        .iter()
        .find(|(signature, _)| trusted.contains(&signature.key_id))
        .or(signatures.first());
    match chosen {
        Some((_, bytes)) => crate::fs::write_atomically(&sign::signature_path(bundle_file), bytes)
            .map_err(String::from),
        None => Ok(()),
    }
}

/// The signature file the manifest `digest` holds, checked to refer to
/// `subject`.
fn pull_one(
    registry: &Registry,
    repository: &str,
    digest: &str,
    subject: &str,
) -> Result<Vec<u8>, String> {
    let manifest = registry.manifest(repository, digest)?;
    let (layer, size) = referrer::signature_layer(&manifest, subject)?;
    registry.blob(repository, &layer, size, KEY.bytes)
}

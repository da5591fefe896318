//! Signatures in a registry, as OCI 1.1 referrers (format version 1).
//!
//! A signature of a version is an image manifest in the plugin's
//! repository whose `subject` is the version's bundle manifest, whose
//! `artifactType` is [`SIGNATURE_ARTIFACT_TYPE`] and whose one layer is
//! the signature file's bytes exactly as a folder catalog keeps them
//! (`BUNDLE.sig`, [`crate::sign::DetachedSignature`] as JSON), so
//! a signature moved between a folder and a registry keeps its digest.
//!
//! A registry with the referrers API lists it by its subject; for one
//! without (`distribution` 2.8), the referrers tag schema's image index
//! at the tag `sha256-<hex of the subject>` lists it too. That tag is
//! rewritten by every signer, so it can lose an entry to a race; the
//! catalog's own index records every signature as an event as well, and
//! that is what contrib reads. The tag is for other OCI tools, and each
//! signer writes into it every signature the index knows.

use super::{empty_descriptor, is_digest, one_layer, ManifestError, MANIFEST_TYPE};

/// A signature manifest's `artifactType`.
pub const SIGNATURE_ARTIFACT_TYPE: &str = "application/vnd.contrib.signature.v1";
/// The media type of its one layer: the signature file's JSON.
pub const SIGNATURE_LAYER_TYPE: &str = "application/vnd.contrib.signature.v1+json";
/// An image index's media type: the referrers tag schema's index.
pub const INDEX_TYPE: &str = "application/vnd.oci.image.index.v1+json";
/// The annotation naming the key that signed.
pub const KEY_ANNOTATION: &str = "dev.contrib.signature.key";

/// The manifest of a signature by `key_id` whose bytes are the blob
/// `layer` (`layer_size` bytes), referring to the bundle manifest
/// `subject` (`subject_size` bytes). It holds no time, so the same
/// signature of the same version is always the same manifest.
pub fn signature_manifest(
    subject: &str,
    subject_size: usize,
    layer: &str,
    layer_size: usize,
    key_id: &str,
) -> serde_json::Value {
    serde_json::json!({
        "schemaVersion": 2,
        "mediaType": MANIFEST_TYPE,
        "artifactType": SIGNATURE_ARTIFACT_TYPE,
        "config": empty_descriptor(),
        "layers": [{ "mediaType": SIGNATURE_LAYER_TYPE, "digest": layer, "size": layer_size }],
        "subject": { "mediaType": MANIFEST_TYPE, "digest": subject, "size": subject_size },
        "annotations": { KEY_ANNOTATION: key_id },
    })
}

/// The signature layer of a signature manifest's bytes, checked to be
/// this format's and to refer to `subject`: its digest and size.
pub fn signature_layer(manifest: &[u8], subject: &str) -> Result<(String, u64), ManifestError> {
    let value: serde_json::Value =
        serde_json::from_slice(manifest).map_err(|_| ManifestError::NotJson)?;
    if value["artifactType"] != SIGNATURE_ARTIFACT_TYPE {
        return Err(ManifestError::NotASignature {
            artifact_type: SIGNATURE_ARTIFACT_TYPE,
        });
    }
    if value["subject"]["digest"] != subject {
        return Err(ManifestError::OtherSubject {
            subject: subject.to_string(),
        });
    }
    one_layer(&value, SIGNATURE_LAYER_TYPE)
}

/// The referrers tag schema's tag for `subject`: `sha256-<hex>`.
pub fn fallback_tag(subject: &str) -> String {
    subject.replacen(':', "-", 1)
}

/// The descriptor an index lists a signature manifest by.
pub fn descriptor(digest: &str, size: usize, key_id: &str) -> serde_json::Value {
    serde_json::json!({
        "mediaType": MANIFEST_TYPE,
        "digest": digest,
        "size": size,
        "artifactType": SIGNATURE_ARTIFACT_TYPE,
        "annotations": { KEY_ANNOTATION: key_id },
    })
}

/// The digests an image index's bytes lists; nothing for bytes that are
/// not one (a tag holding something else is replaced, as the schema says).
pub fn listed(index: &[u8]) -> Vec<String> {
    listed_where(index, |_| true)
}

/// The digests an image index's bytes lists with the `artifactType`
/// `artifact_type`: a referrers listing filtered as the referrers API
/// filters it.
pub fn listed_of_type(index: &[u8], artifact_type: &str) -> Vec<String> {
    listed_where(index, |entry| entry["artifactType"] == artifact_type)
}

fn listed_where(index: &[u8], keep: impl Fn(&serde_json::Value) -> bool) -> Vec<String> {
    let value: serde_json::Value = serde_json::from_slice(index).unwrap_or_default();
    value["manifests"]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .filter(|entry| keep(entry))
                .filter_map(|entry| entry["digest"].as_str())
                .filter(|digest| is_digest(digest))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The referrers index `existing` (its bytes, when the tag holds one)
/// with `wanted` added where missing: every entry it had stays, whatever
/// its type, since other tools' referrers share the tag.
pub fn merged_index(existing: Option<&[u8]>, wanted: &[serde_json::Value]) -> serde_json::Value {
    let value: serde_json::Value = existing
        .and_then(|bytes| serde_json::from_slice(bytes).ok())
        .unwrap_or_default();
    let mut entries = value["manifests"].as_array().cloned().unwrap_or_default();
    for entry in wanted {
        if !entries.iter().any(|kept| kept["digest"] == entry["digest"]) {
            entries.push(entry.clone());
        }
    }
    serde_json::json!({ "schemaVersion": 2, "mediaType": INDEX_TYPE, "manifests": entries })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUBJECT: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
    const LAYER: &str = "sha256:2222222222222222222222222222222222222222222222222222222222222222";
    const OTHER: &str = "sha256:3333333333333333333333333333333333333333333333333333333333333333";

    #[test]
    fn a_signature_manifest_names_its_subject_and_one_layer() {
        let bytes = serde_json::to_vec(&signature_manifest(SUBJECT, 512, LAYER, 200, "ed25519:ab"))
            .expect("json");
        assert_eq!(
            signature_layer(&bytes, SUBJECT),
            Ok((LAYER.to_string(), 200))
        );
        assert!(signature_layer(&bytes, OTHER).is_err());
        assert!(signature_layer(b"{}", SUBJECT).is_err());
        assert_eq!(fallback_tag(SUBJECT), SUBJECT.replace(':', "-"));
    }

    #[test]
    fn merging_keeps_every_entry_and_adds_each_once() {
        let first = descriptor(LAYER, 10, "ed25519:aa");
        let second = descriptor(OTHER, 10, "ed25519:bb");
        let one =
            serde_json::to_vec(&merged_index(None, std::slice::from_ref(&first))).expect("json");
        assert_eq!(listed(&one), vec![LAYER.to_string()]);
        let both = merged_index(Some(&one), &[second, first]);
        let bytes = serde_json::to_vec(&both).expect("json");
        assert_eq!(listed(&bytes), vec![LAYER.to_string(), OTHER.to_string()]);
        assert!(listed(b"not json").is_empty());
        let other_tool = serde_json::json!({"mediaType": MANIFEST_TYPE, "digest": SUBJECT, "size": 1, "artifactType": "application/x-other"});
        let mixed = serde_json::to_vec(&merged_index(Some(&bytes), &[other_tool])).expect("json");
        assert_eq!(listed(&mixed).len(), 3);
        assert_eq!(
            listed_of_type(&mixed, SIGNATURE_ARTIFACT_TYPE),
            vec![LAYER.to_string(), OTHER.to_string()]
        );
    }
}

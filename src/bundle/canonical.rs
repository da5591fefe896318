//! Canonical bytes and digests (RFC 8785, JSON Canonicalization Scheme).

use sha2::{Digest, Sha256};

use super::Bundle;

/// The canonical JSON of a bundle, as written to disk.
pub fn canonical_bytes(bundle: &Bundle) -> Vec<u8> {
    // Serialising plain data with string keys cannot fail.
    serde_jcs::to_vec(bundle).unwrap_or_default()
}

/// `sha256:<hex>` of the canonical bytes of `bundle` without its digest.
pub fn digest_of(bundle: &Bundle) -> String {
    let unsigned = Bundle {
        digest: None,
        ..bundle.clone()
    };
    digest_of_bytes(&canonical_bytes(&unsigned))
}

/// `sha256:<hex>` of canonical bytes.
pub(super) fn digest_of_bytes(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut hex = String::with_capacity(7 + 64);
    hex.push_str("sha256:");
    for byte in hash {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

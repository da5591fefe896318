//! Canonical bytes and digests (RFC 8785, JSON Canonicalization Scheme).

use sha2::{Digest, Sha256};

use super::Bundle;

/// A value RFC 8785 cannot write (a number that is not finite, a map not
/// keyed by strings): it has no canonical bytes and so no digest.
#[derive(Debug)]
pub struct NoCanonicalForm {
    /// What was written: a bundle's `plugin@version`, or a part of one.
    pub what: String,
    pub source: serde_json::Error,
}

impl std::fmt::Display for NoCanonicalForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} has no canonical JSON form: {}",
            self.what, self.source
        )
    }
}

impl std::error::Error for NoCanonicalForm {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

into_text!(NoCanonicalForm);

/// The canonical JSON of a bundle, as written to disk. A bundle JCS cannot
/// write (a number that is not finite) is an error: hashing an empty or
/// partial text instead would give every such bundle the same digest.
pub fn canonical_bytes(bundle: &Bundle) -> Result<Vec<u8>, NoCanonicalForm> {
    canonical(bundle, &bundle.id())
}

fn canonical(value: &impl serde::Serialize, what: &str) -> Result<Vec<u8>, NoCanonicalForm> {
    serde_jcs::to_vec(value).map_err(|source| NoCanonicalForm {
        what: what.to_string(),
        source,
    })
}

/// `sha256:<hex>` of the canonical bytes of `bundle` without its digest.
pub fn digest_of(bundle: &Bundle) -> Result<String, NoCanonicalForm> {
    let unsigned = Bundle {
        digest: None,
        ..bundle.clone()
    };
    Ok(digest_of_bytes(&canonical_bytes(&unsigned)?))
}

/// The canonical JSON of any serialisable value, or why it has none.
pub(super) fn canonical_value(
    value: &impl serde::Serialize,
    what: &str,
) -> Result<Vec<u8>, NoCanonicalForm> {
    canonical(value, what)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_jcs_cannot_write_is_an_error_not_an_empty_text() {
        // A map keyed by something other than strings has no JSON form.
        let mut by_pair = std::collections::BTreeMap::new();
        by_pair.insert((1, 2), "x");
        let error = canonical(&by_pair, "acme/x@1.0.0").unwrap_err().to_string();
        assert!(
            error.starts_with("acme/x@1.0.0 has no canonical JSON form"),
            "{error}"
        );
    }
}

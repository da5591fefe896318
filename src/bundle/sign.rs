//! Detached ed25519 signatures over a bundle's digest.
//!
//! A key pair is two small text files; a key's id is `ed25519:` and the
//! first 16 hex digits of the SHA-256 of its public key. A signature file
//! sits beside its bundle (`<version>.bundle.json.sig`) and names the key,
//! the digest it signs and the signature. Verification fails closed: a
//! missing, unknown or invalid signature is an error.

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

const SECRET_HEADER: &str = "contrib ed25519 secret key v1";
const PUBLIC_HEADER: &str = "contrib ed25519 public key v1";

/// A signature file's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetachedSignature {
    pub algorithm: String,
    pub key_id: String,
    pub digest: String,
    pub signature: String,
}

/// Where a bundle's signature goes.
pub fn signature_path(bundle: &Path) -> PathBuf {
    let mut name = bundle.as_os_str().to_owned();
    name.push(".sig");
    PathBuf::from(name)
}

pub fn key_id(key: &VerifyingKey) -> String {
    let hash = Sha256::digest(key.as_bytes());
    let hex: String = hash
        .iter()
        .take(8)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("ed25519:{hex}")
}

/// A new key pair, as the texts of the secret and public key files and
/// the key's id; an error when the system has no randomness to give.
pub fn generate() -> Result<(String, String, String), String> {
    let key = SigningKey::from_bytes(&secret_seed()?);
    let public = key.verifying_key();
    Ok((
        format!("{SECRET_HEADER}\n{}\n", STANDARD.encode(key.to_bytes())),
        format!("{PUBLIC_HEADER}\n{}\n", STANDARD.encode(public.as_bytes())),
        key_id(&public),
    ))
}

/// 32 bytes from the operating system's random source.
fn secret_seed() -> Result<[u8; 32], String> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|error| format!("the system gave no randomness for a key: {error}"))?;
    Ok(seed)
}

fn key_bytes(text: &str, header: &str) -> Result<[u8; 32], String> {
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some(header) {
        return Err(format!("not a {header} file"));
    }
    let encoded = lines.next().unwrap_or_default().trim();
    let bytes = STANDARD
        .decode(encoded)
        .map_err(|_| "the key is not valid base64".to_string())?;
    bytes
        .try_into()
        .map_err(|_| "the key is not 32 bytes".to_string())
}

pub fn read_secret(text: &str) -> Result<SigningKey, String> {
    key_bytes(text, SECRET_HEADER).map(|bytes| SigningKey::from_bytes(&bytes))
}

pub fn read_public(text: &str) -> Result<VerifyingKey, String> {
    let bytes = key_bytes(text, PUBLIC_HEADER)?;
    VerifyingKey::from_bytes(&bytes)
        .map_err(|_| "the public key is not a valid ed25519 point".to_string())
}

/// Signs a digest.
pub fn sign(key: &SigningKey, digest: &str) -> DetachedSignature {
    DetachedSignature {
        algorithm: "ed25519".into(),
        key_id: key_id(&key.verifying_key()),
        digest: digest.to_string(),
        signature: STANDARD.encode(key.sign(digest.as_bytes()).to_bytes()),
    }
}

/// Checks that `signature` signs `digest` with `key`.
pub fn verify(
    key: &VerifyingKey,
    signature: &DetachedSignature,
    digest: &str,
) -> Result<(), String> {
    if signature.algorithm != "ed25519" {
        return Err(format!(
            "the signature uses `{}`, not ed25519",
            signature.algorithm
        ));
    }
    if signature.key_id != key_id(key) {
        return Err(format!(
            "the signature is by {}, not by {}",
            signature.key_id,
            key_id(key)
        ));
    }
    if signature.digest != digest {
        return Err(format!(
            "the signature is over {}, but the bundle is {digest}",
            signature.digest
        ));
    }
    let bytes = STANDARD
        .decode(&signature.signature)
        .map_err(|_| "the signature is not valid base64".to_string())?;
    let bytes: [u8; 64] = bytes
        .try_into()
        .map_err(|_| "the signature is not 64 bytes".to_string())?;
    key.verify(digest.as_bytes(), &Signature::from_bytes(&bytes))
        .map_err(|_| "the signature does not verify".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_and_verify_round_trip() {
        let (secret, public, id) = generate().unwrap();
        let key = read_secret(&secret).unwrap();
        let public = read_public(&public).unwrap();
        assert_eq!(key_id(&public), id);
        let signature = sign(&key, "sha256:abc");
        assert!(verify(&public, &signature, "sha256:abc").is_ok());
        assert!(verify(&public, &signature, "sha256:abd").is_err());
        let mut forged = signature.clone();
        forged.signature = STANDARD.encode([0u8; 64]);
        assert!(verify(&public, &forged, "sha256:abc").is_err());
    }

    #[test]
    fn refuses_malformed_keys() {
        assert!(read_secret("nope").is_err());
        assert!(read_public(&format!("{PUBLIC_HEADER}\n!!!\n")).is_err());
    }
}

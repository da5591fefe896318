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

/// Why a key could not be made or read, or a signature does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The operating system gave no randomness for a new key.
    NoRandomness(String),
    /// A key file does not start with `header`.
    NotAKeyFile { header: &'static str },
    /// A key file's key is not base64.
    KeyNotBase64,
    /// A key file's key is not 32 bytes long.
    KeyLength,
    /// A public key is not a point on the curve.
    NotAPoint,
    /// The signature names an algorithm other than ed25519.
    Algorithm(String),
    /// The signature is by another key.
    OtherKey { signed_by: String, expected: String },
    /// The signature signs another digest.
    OtherDigest { signed: String, bundle: String },
    /// The signature is not base64.
    SignatureNotBase64,
    /// The signature is not 64 bytes long.
    SignatureLength,
    /// The signature is well formed and wrong.
    DoesNotVerify,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NoRandomness(why) => {
                write!(f, "the system gave no randomness for a key: {why}")
            }
            Error::NotAKeyFile { header } => write!(f, "not a {header} file"),
            Error::KeyNotBase64 => f.write_str("the key is not valid base64"),
            Error::KeyLength => f.write_str("the key is not 32 bytes"),
            Error::NotAPoint => f.write_str("the public key is not a valid ed25519 point"),
            Error::Algorithm(algorithm) => {
                write!(f, "the signature uses `{algorithm}`, not ed25519")
            }
            Error::OtherKey {
                signed_by,
                expected,
            } => write!(f, "the signature is by {signed_by}, not by {expected}"),
            Error::OtherDigest { signed, bundle } => {
                write!(
                    f,
                    "the signature is over {signed}, but the bundle is {bundle}"
                )
            }
            Error::SignatureNotBase64 => f.write_str("the signature is not valid base64"),
            Error::SignatureLength => f.write_str("the signature is not 64 bytes"),
            Error::DoesNotVerify => f.write_str("the signature does not verify"),
        }
    }
}

impl std::error::Error for Error {}

into_text!(Error);

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
pub fn generate() -> Result<(String, String, String), Error> {
    let key = SigningKey::from_bytes(&secret_seed()?);
    let public = key.verifying_key();
    Ok((
        format!("{SECRET_HEADER}\n{}\n", STANDARD.encode(key.to_bytes())),
        format!("{PUBLIC_HEADER}\n{}\n", STANDARD.encode(public.as_bytes())),
        key_id(&public),
    ))
}

/// 32 bytes from the operating system's random source.
fn secret_seed() -> Result<[u8; 32], Error> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|error| Error::NoRandomness(error.to_string()))?;
    Ok(seed)
}

fn key_bytes(text: &str, header: &'static str) -> Result<[u8; 32], Error> {
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some(header) {
        return Err(Error::NotAKeyFile { header });
    }
    let encoded = lines.next().unwrap_or_default().trim();
    let bytes = STANDARD.decode(encoded).map_err(|_| Error::KeyNotBase64)?;
    bytes.try_into().map_err(|_| Error::KeyLength)
}

pub fn read_secret(text: &str) -> Result<SigningKey, Error> {
    key_bytes(text, SECRET_HEADER).map(|bytes| SigningKey::from_bytes(&bytes))
}

pub fn read_public(text: &str) -> Result<VerifyingKey, Error> {
    let bytes = key_bytes(text, PUBLIC_HEADER)?;
    VerifyingKey::from_bytes(&bytes).map_err(|_| Error::NotAPoint)
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
) -> Result<(), Error> {
    if signature.algorithm != "ed25519" {
        return Err(Error::Algorithm(signature.algorithm.clone()));
    }
    if signature.key_id != key_id(key) {
        return Err(Error::OtherKey {
            signed_by: signature.key_id.clone(),
            expected: key_id(key),
        });
    }
    if signature.digest != digest {
        return Err(Error::OtherDigest {
            signed: signature.digest.clone(),
            bundle: digest.to_string(),
        });
    }
    let bytes = STANDARD
        .decode(&signature.signature)
        .map_err(|_| Error::SignatureNotBase64)?;
    let bytes: [u8; 64] = bytes.try_into().map_err(|_| Error::SignatureLength)?;
    key.verify(digest.as_bytes(), &Signature::from_bytes(&bytes))
        .map_err(|_| Error::DoesNotVerify)
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
        assert!(matches!(
            verify(&public, &signature, "sha256:abd"),
            Err(Error::OtherDigest { .. })
        ));
        let mut forged = signature.clone();
        forged.signature = STANDARD.encode([0u8; 64]);
        assert_eq!(
            verify(&public, &forged, "sha256:abc"),
            Err(Error::DoesNotVerify)
        );
    }

    #[test]
    fn refuses_malformed_keys() {
        assert!(matches!(
            read_secret("nope"),
            Err(Error::NotAKeyFile { .. })
        ));
        assert_eq!(
            read_public(&format!("{PUBLIC_HEADER}\n!!!\n")).err(),
            Some(Error::KeyNotBase64)
        );
    }
}

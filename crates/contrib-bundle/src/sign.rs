//! Detached ed25519 signatures over a bundle's digest.
//!
//! A key pair is two small text files; a key's id is `ed25519:` and the
//! first 16 hex digits of the SHA-256 of its public key. A signature file
//! sits beside its bundle (`<version>.bundle.json.sig`) and names the key,
//! the digest it signs and the signature. Verification fails closed: a
//! missing, unknown or invalid signature is an error.

use std::path::{Path, PathBuf};

use ed25519_compact::{KeyPair, PublicKey, SecretKey, Seed, Signature};
use serde::{Deserialize, Serialize};

use crate::base64;
use sha2::{Digest, Sha256};

const SECRET_HEADER: &str = "contrib ed25519 secret key v1";
const PUBLIC_HEADER: &str = "contrib ed25519 public key v1";

/// A secret key: it signs digests.
#[derive(Clone)]
pub struct SigningKey(SecretKey);

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret itself, not even in a panic message.
        write!(f, "SigningKey({})", key_id(&self.verifying_key()))
    }
}

impl SigningKey {
    /// The key pair grown from a 32-byte seed, as RFC 8032 derives it.
    fn from_seed(seed: [u8; 32]) -> Self {
        SigningKey(KeyPair::from_seed(Seed::new(seed)).sk)
    }

    /// The public half, which verifies what this key signs.
    pub fn verifying_key(&self) -> VerifyingKey {
        VerifyingKey(self.0.public_key())
    }
}

/// A public key: it verifies signatures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyingKey(PublicKey);

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

/// A key's id: `ed25519:` and the first 16 hex digits of the SHA-256 of
/// the public key.
pub fn key_id(key: &VerifyingKey) -> String {
    let hash = Sha256::digest(key.0.as_slice());
    let hex: String = hash
        .iter()
        .take(8)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("ed25519:{hex}")
}

/// A new key pair, as the texts of the secret and public key files and
/// the key's id; an error when the system has no randomness to give.
/// The secret key file holds the 32-byte seed.
#[cfg(feature = "keygen")]
pub fn generate() -> Result<(String, String, String), Error> {
    Ok(key_files(secret_seed()?))
}

/// The key files' texts and the key's id for `seed`.
#[cfg(any(feature = "keygen", test))]
fn key_files(seed: [u8; 32]) -> (String, String, String) {
    let public = SigningKey::from_seed(seed).verifying_key();
    (
        format!("{SECRET_HEADER}\n{}\n", base64::encode(seed)),
        format!("{PUBLIC_HEADER}\n{}\n", base64::encode(public.0.as_slice())),
        key_id(&public),
    )
}

/// 32 bytes from the operating system's random source.
#[cfg(feature = "keygen")]
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
    let bytes = base64::decode(encoded).ok_or(Error::KeyNotBase64)?;
    bytes.try_into().map_err(|_| Error::KeyLength)
}

/// The secret key of a secret key file's text.
pub fn read_secret(text: &str) -> Result<SigningKey, Error> {
    key_bytes(text, SECRET_HEADER).map(SigningKey::from_seed)
}

/// The public key of a public key file's text, refused unless it is a
/// point of the curve that can verify something.
pub fn read_public(text: &str) -> Result<VerifyingKey, Error> {
    let key = PublicKey::new(key_bytes(text, PUBLIC_HEADER)?);
    key.validate().map_err(|_| Error::NotAPoint)?;
    Ok(VerifyingKey(key))
}

/// Signs a digest.
pub fn sign(key: &SigningKey, digest: &str) -> DetachedSignature {
    DetachedSignature {
        algorithm: "ed25519".into(),
        key_id: key_id(&key.verifying_key()),
        digest: digest.to_string(),
        // No noise: RFC 8032's deterministic signature, so one key signs
        // one digest one way.
        signature: base64::encode(key.0.sign(digest.as_bytes(), None).as_slice()),
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
    let bytes = base64::decode(&signature.signature).ok_or(Error::SignatureNotBase64)?;
    let bytes: [u8; 64] = bytes.try_into().map_err(|_| Error::SignatureLength)?;
    key.0
        .verify(digest.as_bytes(), &Signature::new(bytes))
        .map_err(|_| Error::DoesNotVerify)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8032 §7.1's first two test vectors: the seed gives the public
    /// key, and the signature is the RFC's, byte for byte.
    #[test]
    fn the_rfcs_vectors() {
        let vectors = [
            (
                "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
                "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
                "",
                "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
            ),
            (
                "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
                "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
                "72",
                "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
            ),
        ];
        let bytes = |hex: &str| -> Vec<u8> {
            (0..hex.len())
                .step_by(2)
                .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).unwrap())
                .collect()
        };
        for (seed, public, message, signature) in vectors {
            let key = SigningKey::from_seed(bytes(seed).try_into().unwrap());
            assert_eq!(key.verifying_key().0.as_slice(), bytes(public));
            let signed = key.0.sign(bytes(message), None);
            assert_eq!(signed.as_slice(), bytes(signature));
            let key = key.verifying_key();
            assert!(key.0.verify(bytes(message), &signed).is_ok());
        }
    }

    /// The secret key file holds the seed in base64, and both files name
    /// the same key.
    #[test]
    fn key_files_hold_the_seed_and_its_public_key() {
        let (secret, public, id) = key_files([7; 32]);
        assert_eq!(
            secret,
            format!("{SECRET_HEADER}\nBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\n")
        );
        let key = read_secret(&secret).unwrap();
        assert_eq!(key_id(&read_public(&public).unwrap()), id);
        assert_eq!(key_id(&key.verifying_key()), id);
    }

    #[test]
    fn a_public_key_off_the_curve_is_refused() {
        // The y-coordinate 2 has no x on the curve.
        let mut y = [0u8; 32];
        y[0] = 2;
        let text = format!("{PUBLIC_HEADER}\n{}\n", base64::encode(y));
        assert_eq!(read_public(&text).err(), Some(Error::NotAPoint));
    }

    #[test]
    fn sign_and_verify_round_trip() {
        let (secret, public, id) = key_files([42; 32]);
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
        forged.signature = base64::encode([0u8; 64]);
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

//! Standard base64 (RFC 4648 §4, with padding), for the key and signature
//! files: a few dozen bytes each, so a table and a loop are all it takes,
//! and a host that only verifies does not compile a codec crate for them.
//!
//! Decoding is strict, as the signature files are written by `contrib`
//! alone: whitespace, missing padding and non-zero trailing bits are
//! refused, so one key or signature has exactly one spelling.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in standard base64 with padding.
pub(crate) fn encode(bytes: impl AsRef<[u8]>) -> String {
    let bytes = bytes.as_ref();
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let word = chunk.iter().enumerate().fold(0u32, |word, (at, &byte)| {
            word | u32::from(byte) << (16 - 8 * at)
        });
        for at in 0..4 {
            if at <= chunk.len() {
                let sextet = (word >> (18 - 6 * at)) & 0x3f;
                text.push(char::from(ALPHABET[sextet as usize]));
            } else {
                text.push('=');
            }
        }
    }
    text
}

/// The bytes `text` encodes, or `None` when it is not canonical standard
/// base64 with padding.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    let quads = text.chunks(4);
    let last = quads.len().saturating_sub(1);
    for (index, quad) in quads.enumerate() {
        let padding = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if padding > 2 || (padding > 0 && index != last) {
            return None;
        }
        let mut word = 0u32;
        for &c in &quad[..4 - padding] {
            word = word << 6 | u32::from(sextet(c)?);
        }
        word <<= 6 * padding as u32;
        let kept = 3 - padding;
        // The bits a padded quad leaves unused must be zero.
        if word & ((1 << (8 * padding)) - 1) != 0 {
            return None;
        }
        bytes.extend_from_slice(&word.to_be_bytes()[1..1 + kept]);
    }
    Some(bytes)
}

fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::base64::engine::general_purpose::STANDARD;
    use ::base64::Engine;

    /// RFC 4648 §10's test vectors.
    #[test]
    fn the_rfcs_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain), encoded);
            assert_eq!(decode(encoded).as_deref(), Some(plain.as_bytes()));
        }
    }

    /// Against the `base64` crate, on every length up to 70 and every
    /// byte value, and on strings it refuses.
    #[test]
    fn agrees_with_the_base64_crate() {
        for length in 0..70u8 {
            let bytes: Vec<u8> = (0..length).map(|at| at.wrapping_mul(37) ^ 0xa5).collect();
            let ours = encode(&bytes);
            assert_eq!(ours, STANDARD.encode(&bytes));
            assert_eq!(decode(&ours), Some(bytes));
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(encode(&all), STANDARD.encode(&all));
        for text in [
            "Zg", "Zg=", "Zh==", "Zm9=", "Z===", "Zg==Zg==", "Zm 9v", "Zm9v\n", "Zm-v", "=Zm9",
        ] {
            assert_eq!(decode(text), None, "{text:?}");
            assert!(STANDARD.decode(text).is_err(), "{text:?}");
        }
    }
}

//! A fingerprint of text: 32 bytes that change whenever it does, so that
//! what was computed from a configuration or a manifest is reused only for
//! the same text.

/// The BLAKE3 hash of `text`.
pub fn of(text: &str) -> [u8; 32] {
    *blake3::hash(text.as_bytes()).as_bytes()
}

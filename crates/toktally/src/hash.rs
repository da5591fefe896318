//! One fast hash for byte strings, shared by the vocabulary and the memo so
//! that a piece is hashed once for both.
//!
//! Pieces are short (most under 16 bytes): short keys are read in at most
//! two overlapping words and mixed with one wide multiplication (the
//! construction of wyhash and foldhash). The hash only has to spread keys
//! over in-memory tables; it is not meant to resist chosen collisions, and
//! a collision only costs a longer probe, never a wrong count.

const SEED: u64 = 0x243F_6A88_85A3_08D3;
const K1: u64 = 0x9E37_79B9_7F4A_7C15;
const K2: u64 = 0xD6E8_FEB8_6659_FD93;

/// The high and low halves of a 128-bit product, folded together.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

#[inline(always)]
fn half(bytes: &[u8], at: usize) -> u64 {
    let mut half = [0u8; 4];
    half.copy_from_slice(&bytes[at..at + 4]);
    u64::from(u32::from_le_bytes(half))
}

/// The first eight bytes of `bytes` (fewer when it is shorter, the rest
/// zero) as a little-endian word, read with at most two loads.
#[inline(always)]
pub(crate) fn head(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    match len {
        0 => 0,
        1..=3 => {
            u64::from(bytes[0])
                | (u64::from(bytes[len / 2]) << (8 * (len / 2)))
                | (u64::from(bytes[len - 1]) << (8 * (len - 1)))
        }
        4..=7 => half(bytes, 0) | (half(bytes, len - 4) << (8 * (len - 4))),
        _ => word(bytes, 0),
    }
}

/// The hash of `bytes`.
#[inline]
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let mut seed = SEED ^ (len as u64).wrapping_mul(K1);
    let (a, b) = if len <= 16 {
        if len >= 8 {
            (word(bytes, 0), word(bytes, len - 8))
        } else if len >= 4 {
            (half(bytes, 0), half(bytes, len - 4))
        } else if len > 0 {
            let spread = (u64::from(bytes[0]) << 16)
                | (u64::from(bytes[len / 2]) << 8)
                | u64::from(bytes[len - 1]);
            (spread, 0)
        } else {
            (0, 0)
        }
    } else {
        let mut at = 0;
        while at + 16 < len {
            seed = fold(word(bytes, at) ^ K1, word(bytes, at + 8) ^ seed);
            at += 16;
        }
        (word(bytes, len - 16), word(bytes, len - 8))
    };
    fold(a ^ K2, b ^ seed) ^ seed.rotate_left(23)
}

#[cfg(test)]
mod tests {
    use super::hash;
    use std::collections::HashSet;

    #[test]
    fn distinguishes_lengths_and_contents() {
        let keys: Vec<Vec<u8>> = (0..=40)
            .flat_map(|len| {
                [0u8, 1, b'a'].map(|fill| {
                    let mut key = vec![fill; len];
                    if len > 0 {
                        key[len / 3] ^= 0x55;
                    }
                    key
                })
            })
            .collect();
        let hashes: HashSet<u64> = keys.iter().map(|key| hash(key)).collect();
        let distinct: HashSet<&Vec<u8>> = keys.iter().collect();
        assert_eq!(hashes.len(), distinct.len());
    }

    #[test]
    fn heads_are_the_first_eight_bytes() {
        let bytes: Vec<u8> = (1..=12).collect();
        for len in 0..=12 {
            let mut expected = [0u8; 8];
            let n = len.min(8);
            expected[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(
                super::head(&bytes[..len]),
                u64::from_le_bytes(expected),
                "{len}"
            );
        }
    }

    #[test]
    fn low_bits_spread_over_a_table() {
        // Words differing in one letter must not pile into a few slots.
        let mut slots = HashSet::new();
        for a in b'a'..=b'z' {
            for b in b'a'..=b'z' {
                slots.insert(hash(&[b' ', a, b, b'e']) & 1023);
            }
        }
        assert!(
            slots.len() > 400,
            "{} of 676 keys in distinct slots",
            slots.len()
        );
    }
}

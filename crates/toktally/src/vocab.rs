//! A vocabulary: every token's bytes, found by its bytes in a hash table.
//!
//! The binary carries each vocabulary as a token list (`data/*.tokens`: the
//! token count, one length byte per token, then the tokens' bytes in rank
//! order, 1.8 MB for o200k), generated from the reference and checked by
//! `tests/generated.rs`. The hash table is built when the vocabulary is
//! first used, which takes a few milliseconds; storing it too would add
//! 3 MB to the binary to save them.

use crate::hash::hash;

/// Token ids take the low bits of a table slot; the rest hold bits of the
/// key's hash, so most mismatches are rejected without touching the token.
const ID_BITS: u32 = 18;
const ID_MASK: u32 = (1 << ID_BITS) - 1;
/// The largest vocabulary the slots can hold (ids are stored plus one, so
/// that zero marks an empty slot).
const MAX_TOKENS: usize = ID_MASK as usize - 1;

pub struct Vocab {
    /// Every token's bytes, in rank order.
    bytes: &'static [u8],
    /// Where token `id` starts in `bytes`; it ends where `id + 1` starts.
    starts: Vec<u32>,
    /// Open addressing with linear probing: `tag << ID_BITS | (id + 1)`.
    table: Vec<u32>,
    mask: usize,
}

impl Vocab {
    /// Reads a token list. Data that stops short (never the case for the
    /// lists compiled in, which the tests read in full) yields the tokens
    /// that are whole.
    pub fn parse(data: &'static [u8]) -> Vocab {
        let declared = data
            .get(..4)
            .map_or(0, |n| u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize);
        let lengths = data.get(4..4 + declared).unwrap_or(&[]);
        let bytes = data.get(4 + lengths.len()..).unwrap_or(&[]);
        let mut starts = Vec::with_capacity(lengths.len() + 1);
        let mut end = 0usize;
        starts.push(0);
        for &len in lengths.iter().take(MAX_TOKENS) {
            if end + usize::from(len) > bytes.len() {
                break;
            }
            end += usize::from(len);
            starts.push(end as u32);
        }
        let tokens = starts.len() - 1;
        let size = (tokens * 5 / 2).next_power_of_two().max(16);
        let mut vocab = Vocab {
            bytes,
            starts,
            table: vec![0; size],
            mask: size - 1,
        };
        for id in 0..tokens as u32 {
            vocab.insert(id);
        }
        vocab
    }

    fn insert(&mut self, id: u32) {
        let hash = hash(self.token(id));
        let mut slot = hash as usize & self.mask;
        while self.table[slot] != 0 {
            slot = (slot + 1) & self.mask;
        }
        self.table[slot] = (tag(hash) << ID_BITS) | (id + 1);
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// The bytes of token `id` (empty for an id out of range).
    #[inline]
    pub fn token(&self, id: u32) -> &[u8] {
        let id = id as usize;
        match (self.starts.get(id), self.starts.get(id + 1)) {
            (Some(&start), Some(&end)) => {
                self.bytes.get(start as usize..end as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// The length of token `id` in bytes.
    #[inline]
    pub fn token_len(&self, id: u32) -> usize {
        self.token(id).len()
    }

    /// The rank (id) of the token whose bytes are `key`, given `hash(key)`.
    #[inline]
    pub fn rank_hashed(&self, key: &[u8], hash: u64) -> Option<u32> {
        let tag = tag(hash);
        let mut slot = hash as usize & self.mask;
        loop {
            let entry = *self.table.get(slot)?;
            if entry == 0 {
                return None;
            }
            if entry >> ID_BITS == tag {
                let id = (entry & ID_MASK) - 1;
                if self.token(id) == key {
                    return Some(id);
                }
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// The rank (id) of the token whose bytes are `key`.
    #[inline]
    pub fn rank(&self, key: &[u8]) -> Option<u32> {
        self.rank_hashed(key, hash(key))
    }
}

/// The hash bits a slot keeps beside the id: the top ones, which the slot
/// index (the low bits) does not use.
#[inline(always)]
fn tag(hash: u64) -> u32 {
    (hash >> (64 - (32 - ID_BITS))) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(tokens: &[&[u8]]) -> &'static [u8] {
        let mut data = (tokens.len() as u32).to_le_bytes().to_vec();
        data.extend(tokens.iter().map(|token| token.len() as u8));
        for token in tokens {
            data.extend_from_slice(token);
        }
        Vec::leak(data)
    }

    #[test]
    fn finds_every_token_by_its_bytes() {
        let vocab = Vocab::parse(list(&[b"a", b"b", b"ab", b" the", b""]));
        assert_eq!(vocab.len(), 5);
        assert_eq!(vocab.rank(b"ab"), Some(2));
        assert_eq!(vocab.rank(b" the"), Some(3));
        assert_eq!(vocab.rank(b"ba"), None);
        assert_eq!(vocab.token(3), b" the");
        assert_eq!(vocab.token(99), b"");
    }

    #[test]
    fn truncated_data_keeps_the_whole_tokens() {
        let data = list(&[b"a", b"bc", b"def"]);
        let vocab = Vocab::parse(&data[..data.len() - 1]);
        assert_eq!(vocab.len(), 2);
        assert_eq!(vocab.rank(b"bc"), Some(1));
        assert_eq!(Vocab::parse(&[]).len(), 0);
    }
}

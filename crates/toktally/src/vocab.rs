//! A vocabulary: every token's bytes, found by its bytes in a hash table.
//!
//! The binary carries each vocabulary as a token list (`data/*.tokens`: the
//! token count, one length byte per token, then the tokens' bytes in rank
//! order, 1.8 MB for o200k), generated from the reference and checked by
//! `tests/generated.rs`. The hash table is built when the vocabulary is
//! first used, which takes a few milliseconds; storing it too would add
//! 3 MB to the binary to save them.

use crate::hash::{hash, head};

/// A slot's `meta` word: the token's id plus one (zero marks an empty
/// slot), its length, where its bytes start, and bits of its hash, so that
/// most mismatches are rejected from the slot alone.
const ID_BITS: u32 = 18;
const LEN_SHIFT: u32 = ID_BITS;
const OFFSET_SHIFT: u32 = LEN_SHIFT + 8;
const TAG_SHIFT: u32 = OFFSET_SHIFT + 24;
const ID_MASK: u64 = (1 << ID_BITS) - 1;
/// The largest vocabulary the slots can hold.
const MAX_TOKENS: usize = ID_MASK as usize - 1;
/// The most bytes of tokens the slots can point into.
const MAX_BYTES: usize = 1 << 24;

/// A token in the hash table: its first eight bytes (the whole of three
/// tokens in four), so that finding most tokens touches nothing else.
#[derive(Clone, Copy, Default)]
struct Slot {
    head: u64,
    meta: u64,
}

pub struct Vocab {
    /// Every token's bytes, in rank order.
    bytes: &'static [u8],
    /// Where token `id` starts in `bytes`; it ends where `id + 1` starts.
    starts: Vec<u32>,
    /// Open addressing with linear probing.
    table: Vec<Slot>,
    mask: usize,
    /// The rank of every two-byte token, by its bytes as a big-endian
    /// `u16`, [`NONE`] for the others: merging starts with these lookups.
    pairs: Vec<u32>,
}

/// No rank: not a token.
pub const NONE: u32 = u32::MAX;

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
        let bytes = bytes.get(..MAX_BYTES).unwrap_or(bytes);
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
            table: vec![Slot::default(); size],
            mask: size - 1,
            pairs: vec![NONE; 1 << 16],
        };
        for id in 0..tokens as u32 {
            vocab.insert(id);
            if let &[first, second] = vocab.token(id) {
                vocab.pairs[usize::from(u16::from_be_bytes([first, second]))] = id;
            }
        }
        vocab
    }

    fn insert(&mut self, id: u32) {
        let token = self.token(id);
        let hash = hash(token);
        let start = self.starts[id as usize];
        let slot = Slot {
            head: head(token),
            meta: (u64::from(id) + 1)
                | ((token.len() as u64) << LEN_SHIFT)
                | (u64::from(start) << OFFSET_SHIFT)
                | (tag(hash) << TAG_SHIFT),
        };
        let mut at = hash as usize & self.mask;
        while self.table[at].meta != 0 {
            at = (at + 1) & self.mask;
        }
        self.table[at] = slot;
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
        if key.len() > usize::from(u8::MAX) {
            // Longer than any token (lengths are stored in a byte).
            return None;
        }
        // The slot's tag and length, and the key's first eight bytes.
        let expected = (tag(hash) << TAG_SHIFT) | ((key.len() as u64) << LEN_SHIFT);
        const CHECKED: u64 = !0 << TAG_SHIFT | 0xFF << LEN_SHIFT;
        let key_head = head(key);
        let mut at = hash as usize & self.mask;
        loop {
            let slot = *self.table.get(at)?;
            if slot.meta == 0 {
                return None;
            }
            if slot.meta & CHECKED == expected
                && slot.head == key_head
                && self.rest_matches(slot, key)
            {
                return Some(((slot.meta & ID_MASK) - 1) as u32);
            }
            at = (at + 1) & self.mask;
        }
    }

    /// Whether the bytes of the slot's token past its first eight are the
    /// key's (the first eight and the length already agree).
    #[inline(always)]
    fn rest_matches(&self, slot: Slot, key: &[u8]) -> bool {
        if key.len() <= 8 {
            return true;
        }
        let start = ((slot.meta >> OFFSET_SHIFT) & (MAX_BYTES as u64 - 1)) as usize;
        self.bytes.get(start + 8..start + key.len()) == key.get(8..)
    }

    /// The rank (id) of the token whose bytes are `key`.
    #[inline]
    pub fn rank(&self, key: &[u8]) -> Option<u32> {
        self.rank_hashed(key, hash(key))
    }

    /// The rank of the two-byte token `first second`, or [`NONE`].
    #[inline(always)]
    pub fn pair_rank(&self, first: u8, second: u8) -> u32 {
        self.pairs
            .get(usize::from(u16::from_be_bytes([first, second])))
            .map_or(NONE, |&rank| rank)
    }
}

/// The hash bits a slot keeps beside the id: the top ones, which the slot
/// index (the low bits) does not use.
#[inline(always)]
fn tag(hash: u64) -> u64 {
    hash >> TAG_SHIFT
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
        assert_eq!(vocab.pair_rank(b'a', b'b'), 2);
        assert_eq!(vocab.pair_rank(b'b', b'a'), NONE);
    }

    #[test]
    fn long_tokens_are_compared_past_their_head() {
        let vocab = Vocab::parse(list(&[
            b"internationalization",
            b"internationalisation",
            b"internat",
        ]));
        assert_eq!(vocab.rank(b"internationalisation"), Some(1));
        assert_eq!(vocab.rank(b"internationalization"), Some(0));
        assert_eq!(vocab.rank(b"internat"), Some(2));
        assert_eq!(vocab.rank(b"internationalizatio"), None);
        assert_eq!(vocab.rank(b"internationalizatiom"), None);
        // A key longer than any token never matches the tokens after one.
        let long = [b"internationalization".as_slice(); 13].concat();
        assert_eq!(vocab.rank(&long), None);
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

//! A vocabulary: every token's bytes, found by its bytes in a hash table.
//!
//! The repository carries each vocabulary as a token list
//! (`data/*.tokens`, generated from the reference and checked by
//! `tests/generated.rs`); the build script lays out its tables
//! ([`layout`]) and the binary carries them ready to use, so loading a
//! vocabulary costs nothing but the pages a count touches. Building the
//! hash table at start-up instead would save 6 MB of binary for 12 ms of
//! every run that counts (`docs/tokenizer.md`).

pub(crate) mod layout;

use crate::hash::{self, head};
use layout::{home, tag, ID_MASK, LEN_SHIFT, MAX_BYTES, NONE, OFFSET_SHIFT, SLOT_BYTES, TAG_SHIFT};

pub(crate) struct Vocab {
    bytes: &'static [u8],
    starts: &'static [u8],
    pairs: &'static [u8],
    table: &'static [u8],
    slots: usize,
}

#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    bytes.get(at..at + 8).map_or(0, |w| {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        u64::from_le_bytes(word)
    })
}

#[inline(always)]
fn half(bytes: &[u8], at: usize) -> u32 {
    bytes.get(at..at + 4).map_or(NONE, |w| {
        let mut half = [0u8; 4];
        half.copy_from_slice(w);
        u32::from_le_bytes(half)
    })
}

impl Vocab {
    /// A vocabulary over tables laid out by [`layout::build`].
    pub(crate) fn new(
        bytes: &'static [u8],
        starts: &'static [u8],
        pairs: &'static [u8],
        table: &'static [u8],
    ) -> Vocab {
        Vocab {
            bytes,
            starts,
            pairs,
            table,
            slots: table.len() / SLOT_BYTES,
        }
    }

    /// A vocabulary built from a token list now (the tests' small ones).
    #[cfg(test)]
    pub(crate) fn from_list(list: &[u8]) -> Vocab {
        let tables = layout::build(list);
        Vocab::new(
            Vec::leak(tables.bytes),
            Vec::leak(tables.starts),
            Vec::leak(tables.pairs),
            Vec::leak(tables.table),
        )
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.starts.len() / 4 - 1
    }

    /// The bytes of token `id` (empty for an id out of range).
    #[inline]
    pub(crate) fn token(&self, id: u32) -> &[u8] {
        let id = id as usize;
        let (start, end) = (half(self.starts, 4 * id), half(self.starts, 4 * id + 4));
        self.bytes.get(start as usize..end as usize).unwrap_or(&[])
    }

    /// The length of token `id` in bytes.
    #[inline]
    pub(crate) fn token_len(&self, id: u32) -> usize {
        self.token(id).len()
    }

    /// The rank (id) of the token whose bytes are `key`.
    #[inline]
    pub(crate) fn rank(&self, key: &[u8]) -> Option<u32> {
        if key.len() > usize::from(u8::MAX) || self.slots == 0 {
            // Longer than any token (lengths are stored in a byte).
            return None;
        }
        let hash = hash::hash(key);
        // The slot's tag and length, and the key's first eight bytes.
        const CHECKED: u64 = (!0 << TAG_SHIFT) | (0xFF << LEN_SHIFT);
        let expected = (tag(hash) << TAG_SHIFT) | ((key.len() as u64) << LEN_SHIFT);
        let key_head = head(key);
        let mut at = home(hash, self.slots);
        loop {
            let meta = word(self.table, at * SLOT_BYTES + 8);
            if meta == 0 {
                return None;
            }
            if meta & CHECKED == expected
                && word(self.table, at * SLOT_BYTES) == key_head
                && self.rest_matches(meta, key)
            {
                return Some(((meta & ID_MASK) - 1) as u32);
            }
            at = if at + 1 == self.slots { 0 } else { at + 1 };
        }
    }

    /// Whether the bytes of the slot's token past its first eight are the
    /// key's (the first eight and the length already agree).
    #[inline(always)]
    fn rest_matches(&self, meta: u64, key: &[u8]) -> bool {
        if key.len() <= 8 {
            return true;
        }
        let start = ((meta >> OFFSET_SHIFT) & (MAX_BYTES as u64 - 1)) as usize;
        self.bytes.get(start + 8..start + key.len()) == key.get(8..)
    }

    /// The rank of the two-byte token `first second`, or [`NONE`].
    #[inline(always)]
    pub(crate) fn pair_rank(&self, first: u8, second: u8) -> u32 {
        half(
            self.pairs,
            4 * usize::from(u16::from_be_bytes([first, second])),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(tokens: &[&[u8]]) -> Vec<u8> {
        let mut data = (tokens.len() as u32).to_le_bytes().to_vec();
        data.extend(tokens.iter().map(|token| token.len() as u8));
        for token in tokens {
            data.extend_from_slice(token);
        }
        data
    }

    #[test]
    fn finds_every_token_by_its_bytes() {
        let vocab = Vocab::from_list(&list(&[b"a", b"b", b"ab", b" the", b""]));
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
        let vocab = Vocab::from_list(&list(&[
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
        let vocab = Vocab::from_list(&data[..data.len() - 1]);
        assert_eq!(vocab.len(), 2);
        assert_eq!(vocab.rank(b"bc"), Some(1));
        assert_eq!(Vocab::from_list(&[]).len(), 0);
        assert_eq!(Vocab::from_list(&[]).rank(b"a"), None);
    }
}

//! The layout of a vocabulary's tables, shared by the build script (which
//! computes them from a token list) and the crate (which reads them).
//!
//! A token list (`data/*.tokens`) is the token count (`u32`), one length
//! byte per token, then every token's bytes, in rank order. From it the
//! build computes, all little-endian:
//!
//! - `bytes`: every token's bytes;
//! - `starts`: where each token starts in `bytes` (`u32`, one more than
//!   there are tokens);
//! - `pairs`: the rank of each two-byte token by its bytes as a big-endian
//!   `u16` (`u32`, [`NONE`] for the others);
//! - `table`: open addressing with linear probing, twice as many 16-byte
//!   slots as tokens. A slot holds the token's first eight bytes (the whole
//!   of three tokens in four), then a word with its id plus one (zero marks
//!   an empty slot), its length, where its bytes start, and bits of its
//!   hash, so that a lookup reads the slot and, for tokens longer than
//!   eight bytes, the rest of the token.

use super::hash::{hash, head};

pub(crate) const ID_BITS: u32 = 18;
pub(crate) const LEN_SHIFT: u32 = ID_BITS;
pub(crate) const OFFSET_SHIFT: u32 = LEN_SHIFT + 8;
pub(crate) const TAG_SHIFT: u32 = OFFSET_SHIFT + 24;
pub(crate) const ID_MASK: u64 = (1 << ID_BITS) - 1;
pub(crate) const TAG_MASK: u64 = (1 << (64 - TAG_SHIFT)) - 1;
/// The most bytes of tokens the slots can point into.
pub(crate) const MAX_BYTES: usize = 1 << 24;
pub(crate) const SLOT_BYTES: usize = 16;
/// No rank: not a token.
pub(crate) const NONE: u32 = u32::MAX;

/// The slot a key with this hash starts probing at, in a table of `slots`
/// slots: the hash's high bits scaled to the table (Lemire's reduction).
#[inline(always)]
pub(crate) fn home(hash: u64, slots: usize) -> usize {
    ((u128::from(hash) * slots as u128) >> 64) as usize
}

/// The hash bits a slot keeps: the low ones, which [`home`] does not use.
#[inline(always)]
pub(crate) fn tag(hash: u64) -> u64 {
    hash & TAG_MASK
}

/// A vocabulary's tables, computed from its token list.
// Built by build.rs and the tests; the crate itself only reads them.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Tables {
    pub bytes: Vec<u8>,
    pub starts: Vec<u8>,
    pub pairs: Vec<u8>,
    pub table: Vec<u8>,
}

/// Computes the tables of a token list. Data that stops short yields the
/// tokens that are whole; ids past [`ID_MASK`] and bytes past
/// [`MAX_BYTES`] are left out (the lists have 200k tokens and 1.4 MB).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn build(list: &[u8]) -> Tables {
    let declared = list
        .get(..4)
        .map_or(0, |n| u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize);
    let lengths = list.get(4..4 + declared).unwrap_or(&[]);
    let all = list.get(4 + lengths.len()..).unwrap_or(&[]);
    let mut starts = vec![0u32];
    let mut end = 0usize;
    for &len in lengths.iter().take(ID_MASK as usize - 1) {
        if end + usize::from(len) > all.len().min(MAX_BYTES) {
            break;
        }
        end += usize::from(len);
        starts.push(end as u32);
    }
    let bytes = all[..end].to_vec();
    let tokens = starts.len() - 1;
    let slots = (tokens * 2).max(16);
    let mut table = vec![0u8; slots * SLOT_BYTES];
    let mut pairs = vec![NONE; 1 << 16];
    for id in 0..tokens {
        let (start, end) = (starts[id] as usize, starts[id + 1] as usize);
        let token = &bytes[start..end];
        if let &[first, second] = token {
            pairs[usize::from(u16::from_be_bytes([first, second]))] = id as u32;
        }
        let hash = hash(token);
        let meta = (id as u64 + 1)
            | ((token.len() as u64) << LEN_SHIFT)
            | ((start as u64) << OFFSET_SHIFT)
            | (tag(hash) << TAG_SHIFT);
        let mut at = home(hash, slots);
        while table[at * SLOT_BYTES + 8..at * SLOT_BYTES + 16] != [0; 8] {
            at = if at + 1 == slots { 0 } else { at + 1 };
        }
        table[at * SLOT_BYTES..at * SLOT_BYTES + 8].copy_from_slice(&head(token).to_le_bytes());
        table[at * SLOT_BYTES + 8..at * SLOT_BYTES + 16].copy_from_slice(&meta.to_le_bytes());
    }
    Tables {
        bytes,
        starts: starts
            .iter()
            .flat_map(|start| start.to_le_bytes())
            .collect(),
        pairs: pairs.iter().flat_map(|rank| rank.to_le_bytes()).collect(),
        table,
    }
}

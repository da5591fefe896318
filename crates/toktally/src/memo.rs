//! A memo of piece counts.
//!
//! Pieces follow Zipf's law: in the corpus of real instruction files, 510k
//! pieces have 29k distinct values, so almost every piece has been counted
//! before. The memo keeps each distinct piece's count in an open addressing
//! table of 16-byte slots. A piece of up to 14 bytes (nearly all of them)
//! is stored in its slot, so a hit reads one slot and nothing else; a
//! longer one is stored in a byte arena and found by its hash. Nothing is
//! allocated per piece, and the memo is bounded: when full it starts over,
//! so a stream of never-repeated pieces costs memory once.

use crate::hash::{hash, head};
use crate::merge::Scratch;

/// Pieces longer than this are rare and not kept.
pub(crate) const MAX_PIECE: usize = 64;
/// Pieces up to this length live in their slot.
const INLINE: usize = 14;
/// The table never grows past this many slots (2 MB).
const MAX_SLOTS: usize = 1 << 17;
const MIN_SLOTS: usize = 1 << 12;
/// The length byte of a slot whose piece is in the arena.
const IN_ARENA: u64 = 0xFF;
const COUNT_SHIFT: u32 = 56;
const LEN_SHIFT: u32 = 48;
const KEY_MASK: u64 = (1 << COUNT_SHIFT) - 1;

/// An inline slot holds the piece's bytes 0..8 in `low` and 8..14 in the
/// low six bytes of `high`; an arena slot holds the piece's hash in `low`
/// and its place in the arena in `high`. Byte 6 of `high` is the length
/// (zero for an empty slot, [`IN_ARENA`] for an arena slot), byte 7 the
/// count.
#[derive(Clone, Copy, Default)]
struct Slot {
    low: u64,
    high: u64,
}

/// Counts of pieces already seen, for one encoding, and what merging
/// keeps between pieces.
#[derive(Default)]
pub struct Memo {
    slots: Vec<Slot>,
    arena: Vec<u8>,
    used: usize,
    pub(crate) scratch: Scratch,
}

/// How a piece is looked up: its key words and the slot to start from.
#[derive(Clone, Copy)]
pub(crate) struct Key {
    low: u64,
    high: u64,
    hash: u64,
}

/// The hash of an inline key: one wide multiplication of its two words.
#[inline(always)]
fn inline_hash(low: u64, high: u64) -> u64 {
    let product =
        u128::from(low ^ 0x9E37_79B9_7F4A_7C15) * u128::from(high ^ 0xD6E8_FEB8_6659_FD93);
    (product as u64) ^ ((product >> 64) as u64)
}

impl Key {
    /// The key of `piece`.
    #[inline(always)]
    pub(crate) fn of(piece: &[u8]) -> Key {
        let len = piece.len();
        if len > INLINE {
            let hash = hash(piece);
            return Key {
                low: hash,
                high: IN_ARENA << LEN_SHIFT,
                hash,
            };
        }
        let low = head(piece);
        let high = if len > 8 { head(&piece[8..]) } else { 0 };
        let high = high | ((len as u64) << LEN_SHIFT);
        Key {
            low,
            high,
            hash: inline_hash(low, high),
        }
    }

    fn in_arena(&self) -> bool {
        self.high >> LEN_SHIFT == IN_ARENA
    }
}

impl Memo {
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of pieces remembered.
    pub fn len(&self) -> usize {
        self.used
    }

    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// Forgets every piece.
    pub fn clear(&mut self) {
        self.slots.fill(Slot::default());
        self.arena.clear();
        self.used = 0;
    }

    /// The count remembered for `piece`, whose key is `key`.
    #[inline]
    pub(crate) fn get(&self, piece: &[u8], key: Key) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut at = key.hash as usize & mask;
        loop {
            let slot = self.slots[at];
            if slot.high == 0 {
                return None;
            }
            if slot.low == key.low {
                let hit = if key.in_arena() {
                    slot.high >> LEN_SHIFT & 0xFF == IN_ARENA
                        && self.arena_piece(slot) == Some(piece)
                } else {
                    slot.high & KEY_MASK == key.high
                };
                if hit {
                    return Some((slot.high >> COUNT_SHIFT) as usize);
                }
            }
            at = (at + 1) & mask;
        }
    }

    fn arena_piece(&self, slot: Slot) -> Option<&[u8]> {
        let start = (slot.high & 0xFFFF_FFFF) as usize;
        let len = ((slot.high >> 32) & 0xFF) as usize;
        self.arena.get(start..start + len)
    }

    /// Remembers `count` for `piece` (not already remembered), when it is
    /// short enough and the count fits.
    pub(crate) fn insert(&mut self, piece: &[u8], key: Key, count: usize) {
        let Ok(count) = u8::try_from(count) else {
            return;
        };
        if piece.len() > MAX_PIECE {
            return;
        }
        if (self.used + 1) * 2 > self.slots.len() {
            if self.slots.len() >= MAX_SLOTS {
                self.clear();
            } else {
                self.grow();
            }
        }
        let mut slot = Slot {
            low: key.low,
            high: key.high | (u64::from(count) << COUNT_SHIFT),
        };
        if key.in_arena() {
            let Ok(start) = u32::try_from(self.arena.len()) else {
                return;
            };
            self.arena.extend_from_slice(piece);
            slot.high |= u64::from(start) | ((piece.len() as u64) << 32);
        }
        self.place(slot, key.hash);
        self.used += 1;
    }

    fn place(&mut self, slot: Slot, hash: u64) {
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        while self.slots[at].high != 0 {
            at = (at + 1) & mask;
        }
        self.slots[at] = slot;
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        for slot in old.into_iter().filter(|slot| slot.high != 0) {
            let hash = if slot.high >> LEN_SHIFT & 0xFF == IN_ARENA {
                slot.low
            } else {
                inline_hash(slot.low, slot.high & KEY_MASK)
            };
            self.place(slot, hash);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(memo: &Memo, piece: &[u8]) -> Option<usize> {
        memo.get(piece, Key::of(piece))
    }

    fn insert(memo: &mut Memo, piece: &[u8], count: usize) {
        memo.insert(piece, Key::of(piece), count);
    }

    #[test]
    fn keys_of_every_length_are_distinct() {
        // Pieces that differ in one byte, or only in length, get other keys.
        let pieces: Vec<Vec<u8>> = (1..=20)
            .flat_map(|len| {
                (0..len).map(move |flip| {
                    let mut piece = vec![b'a'; len];
                    piece[flip] = b'b';
                    piece
                })
            })
            .collect();
        let mut memo = Memo::new();
        for (i, piece) in pieces.iter().enumerate() {
            insert(&mut memo, piece, i % 200);
        }
        for (i, piece) in pieces.iter().enumerate() {
            assert_eq!(get(&memo, piece), Some(i % 200), "{piece:?}");
        }
        assert_eq!(get(&memo, b"aaaaaaaaaaaaaaaaaaaaa"), None);
        assert_eq!(get(&memo, b"ab\0"), None);
    }

    #[test]
    fn remembers_and_forgets() {
        let mut memo = Memo::new();
        assert_eq!(get(&memo, b" hello"), None);
        insert(&mut memo, b" hello", 1);
        insert(&mut memo, b" internationalization", 4);
        assert_eq!(get(&memo, b" hello"), Some(1));
        assert_eq!(get(&memo, b" internationalization"), Some(4));
        assert_eq!(get(&memo, b" internationalisation"), None);
        memo.clear();
        assert_eq!(get(&memo, b" hello"), None);
        assert!(memo.is_empty());
    }

    #[test]
    fn stays_bounded() {
        let mut memo = Memo::new();
        for i in 0..(MAX_SLOTS as u32 * 2) {
            let piece = format!("{i:>20}");
            insert(&mut memo, piece.as_bytes(), 3);
            insert(&mut memo, &i.to_le_bytes(), 2);
            assert!(memo.len() * 2 <= MAX_SLOTS);
        }
        let last = MAX_SLOTS as u32 * 2 - 1;
        assert_eq!(get(&memo, format!("{last:>20}").as_bytes()), Some(3));
        assert_eq!(get(&memo, &last.to_le_bytes()), Some(2));
        let long = [b'x'; MAX_PIECE + 1];
        insert(&mut memo, &long, 9);
        assert_eq!(get(&memo, &long), None);
    }
}

//! A memo of piece counts.
//!
//! Pieces follow Zipf's law: in the corpus of real instruction files, 510k
//! pieces have 29k distinct values, so almost every piece has been counted
//! before. The memo keeps each distinct piece's count in a small open
//! addressing table whose keys live in one byte arena: a hit costs one
//! hash (shared with the vocabulary lookup on a miss) and one comparison,
//! and nothing is allocated per piece. It is bounded: when full it starts
//! over, so a stream of never-repeated pieces costs memory once.

/// Pieces longer than this are rare and not kept.
pub const MAX_PIECE: usize = 64;
/// The table never grows past this many slots (16 bytes each).
const MAX_SLOTS: usize = 1 << 17;
const MIN_SLOTS: usize = 1 << 10;

#[derive(Clone, Copy, Default)]
struct Slot {
    /// The key's hash; zero marks an empty slot.
    hash: u64,
    /// The key's place in the arena.
    start: u32,
    len: u16,
    count: u16,
}

/// Counts of pieces already seen, for one encoding.
#[derive(Default)]
pub struct Memo {
    slots: Vec<Slot>,
    arena: Vec<u8>,
    used: usize,
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
        self.slots
            .iter_mut()
            .for_each(|slot| *slot = Slot::default());
        self.arena.clear();
        self.used = 0;
    }

    /// The count remembered for `piece`, whose hash is `hash`.
    #[inline]
    pub(crate) fn get(&self, piece: &[u8], hash: u64) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let hash = hash | 1;
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        loop {
            let slot = self.slots[at];
            if slot.hash == 0 {
                return None;
            }
            if slot.hash == hash {
                let start = slot.start as usize;
                if self.arena.get(start..start + usize::from(slot.len)) == Some(piece) {
                    return Some(usize::from(slot.count));
                }
            }
            at = (at + 1) & mask;
        }
    }

    /// Remembers `count` for `piece` (not already remembered), when it is
    /// short enough and the count fits.
    pub(crate) fn insert(&mut self, piece: &[u8], hash: u64, count: usize) {
        let (Ok(len), Ok(count)) = (u16::try_from(piece.len()), u16::try_from(count)) else {
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
        let Ok(start) = u32::try_from(self.arena.len()) else {
            return;
        };
        self.arena.extend_from_slice(piece);
        let slot = Slot {
            hash: hash | 1,
            start,
            len,
            count,
        };
        self.place(slot);
        self.used += 1;
    }

    fn place(&mut self, slot: Slot) {
        let mask = self.slots.len() - 1;
        let mut at = slot.hash as usize & mask;
        while self.slots[at].hash != 0 {
            at = (at + 1) & mask;
        }
        self.slots[at] = slot;
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        for slot in old.into_iter().filter(|slot| slot.hash != 0) {
            self.place(slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash;

    #[test]
    fn remembers_and_forgets() {
        let mut memo = Memo::new();
        assert_eq!(memo.get(b" hello", hash(b" hello")), None);
        memo.insert(b" hello", hash(b" hello"), 1);
        memo.insert(b"ation", hash(b"ation"), 2);
        assert_eq!(memo.get(b" hello", hash(b" hello")), Some(1));
        assert_eq!(memo.get(b"ation", hash(b"ation")), Some(2));
        // Same hash, other bytes: not a hit.
        assert_eq!(memo.get(b"other", hash(b" hello")), None);
        memo.clear();
        assert_eq!(memo.get(b" hello", hash(b" hello")), None);
        assert!(memo.is_empty());
    }

    #[test]
    fn stays_bounded() {
        let mut memo = Memo::new();
        for i in 0..(MAX_SLOTS as u32 * 2) {
            let key = i.to_le_bytes();
            memo.insert(&key, hash(&key), 3);
            assert!(memo.len() * 2 <= MAX_SLOTS);
        }
        let last = (MAX_SLOTS as u32 * 2 - 1).to_le_bytes();
        assert_eq!(memo.get(&last, hash(&last)), Some(3));
        let long = [b'x'; MAX_PIECE + 1];
        memo.insert(&long, hash(&long), 9);
        assert_eq!(memo.get(&long, hash(&long)), None);
    }
}

//! Byte-pair encoding of one piece, counted.
//!
//! The encoding is the one tiktoken defines: start from single bytes and
//! repeatedly merge the adjacent pair whose concatenation is the token of
//! lowest rank, the leftmost on ties, until no pair is a token. The number
//! of parts left is the count.
//!
//! Short pieces (nearly all of them) run tiktoken's own loop over an array
//! on the stack: quadratic, but with no allocation and a few dozen lookups.
//! Longer ones (runs of spaces or symbols) use a heap of candidate merges
//! and a linked list of parts, `O(n log n)`, in buffers reused from piece
//! to piece.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::hash::head;
use crate::vocab::layout::NONE;
use crate::vocab::Vocab;

/// The longest piece merged on the stack.
const SHORT: usize = 96;

/// What merging keeps between pieces, for one encoding: the ranks of
/// short strings looked up lately, and buffers for long pieces.
#[derive(Default)]
pub(crate) struct Scratch {
    ranks: Ranks,
    next: Vec<u32>,
    prev: Vec<u32>,
    removed: Vec<bool>,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
}

/// A direct-mapped cache of the ranks of strings of up to seven bytes,
/// found or not. Merging distinct pieces looks up the same short strings
/// again and again (`ing`, `tion`, ` the`); each lookup in the vocabulary
/// is a cache miss in a table of megabytes, while this one fits in 64 kB.
#[derive(Default)]
struct Ranks {
    /// The key (the string's bytes and its length in the top byte; zero
    /// for none) and its rank.
    entries: Vec<(u64, u32)>,
}

const RANKS_BITS: u32 = 12;

impl Ranks {
    #[inline]
    fn rank(&mut self, vocab: &Vocab, bytes: &[u8]) -> u32 {
        if bytes.len() > 7 {
            return vocab.rank(bytes).unwrap_or(NONE);
        }
        if self.entries.is_empty() {
            self.entries = vec![(0, NONE); 1 << RANKS_BITS];
        }
        let key = head(bytes) | ((bytes.len() as u64) << 56);
        let at = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - RANKS_BITS)) as usize;
        match self.entries.get_mut(at) {
            Some(entry) if entry.0 == key => entry.1,
            Some(entry) => {
                let rank = vocab.rank(bytes).unwrap_or(NONE);
                *entry = (key, rank);
                rank
            }
            None => vocab.rank(bytes).unwrap_or(NONE),
        }
    }
}

/// The number of tokens in `piece`.
pub(crate) fn count(vocab: &Vocab, piece: &[u8], scratch: &mut Scratch) -> usize {
    if piece.len() <= 1 {
        return piece.len();
    }
    if scratch.ranks.rank(vocab, piece) != NONE {
        return 1;
    }
    count_parts(vocab, piece, scratch)
}

/// [`count`] for a piece known not to be a single token.
pub(crate) fn count_parts(vocab: &Vocab, piece: &[u8], scratch: &mut Scratch) -> usize {
    if piece.len() <= SHORT {
        count_short(vocab, piece, &mut scratch.ranks)
    } else {
        count_long(vocab, piece, scratch)
    }
}

/// tiktoken's merge loop: `parts[i]` is where part `i` starts and the rank
/// of part `i` merged with part `i + 1`.
fn count_short(vocab: &Vocab, piece: &[u8], cache: &mut Ranks) -> usize {
    let n = piece.len();
    let mut starts = [0u8; SHORT + 1];
    let mut ranks = [NONE; SHORT + 1];
    for (i, start) in starts.iter_mut().enumerate().take(n + 1) {
        *start = i as u8;
    }
    for i in 0..n - 1 {
        ranks[i] = vocab.pair_rank(piece[i], piece[i + 1]);
    }
    let mut parts = n + 1;
    loop {
        let mut best = NONE;
        let mut at = 0;
        for (i, &rank) in ranks[..parts - 1].iter().enumerate() {
            if rank < best {
                best = rank;
                at = i;
            }
        }
        if best == NONE {
            break;
        }
        // Merge part `at` with part `at + 1`: the pairs either side change.
        let span =
            |from: usize, to: usize| &piece[usize::from(starts[from])..usize::from(starts[to])];
        ranks[at] = if at + 3 < parts {
            cache.rank(vocab, span(at, at + 3))
        } else {
            NONE
        };
        if at > 0 {
            ranks[at - 1] = cache.rank(vocab, span(at - 1, at + 2));
        }
        starts.copy_within(at + 2..parts, at + 1);
        ranks.copy_within(at + 2..parts, at + 1);
        parts -= 1;
    }
    parts - 1
}

/// The same merges with a heap of `(rank, start)` candidates. A candidate
/// is stale when its start was merged away or its pair no longer spans the
/// token's length; the heap orders by rank, then by start, as tiktoken does.
fn count_long(vocab: &Vocab, piece: &[u8], scratch: &mut Scratch) -> usize {
    let n = piece.len();
    let Scratch {
        ranks: cache,
        next,
        prev,
        removed,
        heap,
    } = scratch;
    next.clear();
    next.extend(1..=n as u32 + 1);
    prev.clear();
    prev.extend((0..=n as u32).map(|i| i.wrapping_sub(1)));
    removed.clear();
    removed.resize(n + 1, false);
    heap.clear();
    for i in 0..n - 1 {
        let rank = vocab.pair_rank(piece[i], piece[i + 1]);
        if rank != NONE {
            heap.push(Reverse((rank, i as u32)));
        }
    }
    let mut parts = n;
    while let Some(Reverse((rank, start))) = heap.pop() {
        let start = start as usize;
        if removed[start] {
            continue;
        }
        let mid = next[start] as usize;
        if mid >= n {
            continue;
        }
        let end = next[mid] as usize;
        if end - start != vocab.token_len(rank) {
            continue;
        }
        removed[mid] = true;
        next[start] = end as u32;
        prev[end] = start as u32;
        parts -= 1;
        if end < n {
            let after = next[end] as usize;
            let rank = cache.rank(vocab, &piece[start..after]);
            if rank != NONE {
                heap.push(Reverse((rank, start as u32)));
            }
        }
        if start > 0 {
            let before = prev[start] as usize;
            let rank = cache.rank(vocab, &piece[before..end]);
            if rank != NONE {
                heap.push(Reverse((rank, before as u32)));
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vocabulary where every byte is a token, then the given merges.
    fn vocab(merges: &[&[u8]]) -> Vocab {
        let tokens: Vec<Vec<u8>> = (0..=255u8)
            .map(|b| vec![b])
            .chain(merges.iter().map(|m| m.to_vec()))
            .collect();
        let mut data = (tokens.len() as u32).to_le_bytes().to_vec();
        data.extend(tokens.iter().map(|t| t.len() as u8));
        for token in &tokens {
            data.extend_from_slice(token);
        }
        Vocab::from_list(&data)
    }

    #[test]
    fn merges_by_rank_then_leftmost() {
        // "ab" outranks "bc": "abc" is "ab" + "c", never "a" + "bc".
        let v = vocab(&[b"ab", b"bc", b"cd"]);
        let mut scratch = Scratch::default();
        assert_eq!(count(&v, b"abc", &mut scratch), 2);
        assert_eq!(count(&v, b"abcd", &mut scratch), 2);
        assert_eq!(count(&v, b"bcd", &mut scratch), 2);
        assert_eq!(count(&v, b"xyz", &mut scratch), 3);
        assert_eq!(count(&v, b"", &mut scratch), 0);
    }

    #[test]
    fn long_pieces_agree_with_short_ones() {
        let v = vocab(&[b"  ", b"    ", b"ab", b"  ab", b"aa", b"aaaa", b"ba"]);
        let mut scratch = Scratch::default();
        let mut state = 12345u32;
        for len in 2..=SHORT {
            for _ in 0..20 {
                let piece: Vec<u8> = (0..len)
                    .map(|_| {
                        state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                        [b' ', b'a', b'b'][(state >> 16) as usize % 3]
                    })
                    .collect();
                assert_eq!(
                    count_short(&v, &piece, &mut Ranks::default()),
                    count_long(&v, &piece, &mut scratch),
                    "{:?}",
                    String::from_utf8_lossy(&piece)
                );
            }
        }
    }
}

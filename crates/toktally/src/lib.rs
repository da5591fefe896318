//! Exact token counts for OpenAI's o200k and cl100k encodings.
//!
//! The count is the number of tokens the encoding produces, the same as
//! [`bpe-openai`](https://crates.io/crates/bpe-openai)'s `count` (and
//! tiktoken's) on every input, computed several times faster:
//!
//! - pre-tokenization is a hand-written scan equivalent to the encoding's
//!   split pattern ([`split`]), with an ASCII fast path and Unicode classes
//!   from generated tables;
//! - each piece's count is remembered ([`Memo`]): pieces follow Zipf's
//!   law, so most are counted once and looked up after;
//! - a piece that is not remembered is looked up whole in the vocabulary,
//!   and only when it is not one token is it merged (`merge`), with no
//!   allocation per piece.
//!
//! The vocabularies are compiled in and loaded on first use; pre-tokenizing
//! needs none. `tests/reference.rs`, `tests/properties.rs` and the fuzz
//! target `toktally` compare every count (and every piece) with the
//! reference.
//!
//! ```
//! use toktally::Encoding;
//! assert_eq!(Encoding::O200k.count("hello world"), 2);
//! assert_eq!(Encoding::Cl100k.count_up_to("hello world", 1), None);
//! ```

#![warn(unreachable_pub)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

mod classes;
mod hash;
mod memo;
mod merge;
pub mod split;
mod vocab;

use std::cell::RefCell;
use std::sync::OnceLock;

#[doc(hidden)]
pub use classes::of_code_point;
pub use memo::Memo;
use merge::Scratch;
pub use split::Pieces;
use vocab::Vocab;

static O200K: OnceLock<Vocab> = OnceLock::new();
static CL100K: OnceLock<Vocab> = OnceLock::new();

/// An encoding whose tokens can be counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// `o200k_base` (GPT-4o and later).
    O200k,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100k,
}

thread_local! {
    /// Each thread's memo, one per encoding.
    static MEMOS: RefCell<[Memo; 2]> = RefCell::new([Memo::new(), Memo::new()]);
}

impl Encoding {
    pub const ALL: [Encoding; 2] = [Encoding::O200k, Encoding::Cl100k];

    fn index(self) -> usize {
        match self {
            Encoding::O200k => 0,
            Encoding::Cl100k => 1,
        }
    }

    fn piece_end(self) -> fn(&[u8], usize) -> usize {
        match self {
            Encoding::O200k => split::o200k::piece_end,
            Encoding::Cl100k => split::cl100k::piece_end,
        }
    }

    fn cell(self) -> &'static OnceLock<Vocab> {
        match self {
            Encoding::O200k => &O200K,
            Encoding::Cl100k => &CL100K,
        }
    }

    /// The vocabulary, loaded on first use.
    fn vocab(self) -> &'static Vocab {
        macro_rules! tables {
            ($name:literal) => {
                Vocab::new(
                    include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".bytes")),
                    include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".starts")),
                    include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".pairs")),
                    include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".table")),
                )
            };
        }
        self.cell().get_or_init(|| match self {
            Encoding::O200k => tables!("o200k"),
            Encoding::Cl100k => tables!("cl100k"),
        })
    }

    /// Whether this encoding's vocabulary has been loaded. Pre-tokenizing
    /// needs none, and a text whose pieces are all one byte long or already
    /// remembered is counted without one.
    pub fn is_loaded(self) -> bool {
        self.cell().get().is_some()
    }

    /// Loads the vocabulary now rather than on first use.
    pub fn load(self) {
        self.vocab();
    }

    /// The number of tokens in `text`. Counts of pieces are remembered per
    /// thread across calls.
    pub fn count(self, text: &str) -> usize {
        self.with_memo(|memo| self.count_in(memo, text, usize::MAX))
            .unwrap_or(usize::MAX)
    }

    /// The number of tokens in `text` if it is at most `limit`, without
    /// counting much past the limit; `None` when there are more.
    pub fn count_up_to(self, text: &str, limit: usize) -> Option<usize> {
        self.with_memo(|memo| self.count_in(memo, text, limit))
    }

    /// [`Encoding::count`] with the given memo instead of this thread's
    /// (a fresh one measures the cost of a first count). A memo must be
    /// used with one encoding only.
    pub fn count_with(self, memo: &mut Memo, text: &str) -> usize {
        self.count_in(memo, text, usize::MAX).unwrap_or(usize::MAX)
    }

    /// The number of tokens in one piece, merged without the memo.
    pub fn count_piece(self, piece: &[u8]) -> usize {
        merge::count(self.vocab(), piece, &mut Scratch::default())
    }

    /// The pieces `text` is cut into before encoding.
    pub fn pieces(self, text: &str) -> Pieces<'_> {
        Pieces::new(text, self.piece_end())
    }

    fn with_memo<T>(self, f: impl FnOnce(&mut Memo) -> T) -> T {
        MEMOS.with(|memos| match memos.try_borrow_mut() {
            Ok(mut memos) => f(&mut memos[self.index()]),
            // Only reachable if `f` re-entered, which it does not.
            Err(_) => f(&mut Memo::new()),
        })
    }

    fn count_in(self, memo: &mut Memo, text: &str, limit: usize) -> Option<usize> {
        // One loop per encoding, so that the scan is inlined into it.
        match self {
            Encoding::O200k => self.count_pieces(split::o200k::piece_end, memo, text, limit),
            Encoding::Cl100k => self.count_pieces(split::cl100k::piece_end, memo, text, limit),
        }
    }

    #[inline(always)]
    fn count_pieces(
        self,
        piece_end: impl Fn(&[u8], usize) -> usize,
        memo: &mut Memo,
        text: &str,
        limit: usize,
    ) -> Option<usize> {
        let bytes = text.as_bytes();
        let mut vocab = None;
        let mut total = 0usize;
        let mut at = 0;
        while at < bytes.len() {
            let end = piece_end(bytes, at).max(at + 1).min(bytes.len());
            let piece = &bytes[at..end];
            at = end;
            total += if piece.len() == 1 {
                1
            } else {
                let key = memo::Key::of(piece);
                match memo.get(piece, key) {
                    Some(count) => count,
                    None => {
                        let vocab = *vocab.get_or_insert_with(|| self.vocab());
                        let count = merge::count(vocab, piece, &mut memo.scratch);
                        memo.insert(piece, key, count);
                        count
                    }
                }
            };
            if total > limit {
                return None;
            }
        }
        Some(total)
    }
}

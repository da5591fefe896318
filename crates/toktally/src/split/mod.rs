//! Pre-tokenization: the text cut into the pieces that are encoded apart.
//!
//! The reference (`bpe-openai`) cuts with one regular expression per
//! encoding, searched anchored at the end of the previous piece with
//! leftmost-first semantics: the match is the one a backtracking engine
//! finds, trying alternatives in order and greedy repetitions longest
//! first. Its patterns, in order (o200k's first two alternatives shown as
//! `WORD_A` and `WORD_B`, see [`o200k`]):
//!
//! ```text
//! cl100k: (?i:'s|'t|'re|'ve|'m|'ll|'d) | [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N}{1,3}
//!       | ␠?[^\s\p{L}\p{N}]+[\r\n]* | \s*[\r\n]+ | \s+$ | \s+\s (last char dropped) | \s+
//! o200k:  WORD_A | WORD_B | \p{N}{1,3}
//!       | ␠?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+ | \s+$ | \s+\s (last char dropped) | \s+
//! ```
//!
//! Each module here computes where that match ends, alternative by
//! alternative, in one forward scan of the characters with the classes of
//! `crate::classes`; what the backtracking would try is worked out in the
//! comments next to each alternative. `tests/reference.rs` compares every
//! piece with the reference's on the corpus and on generated Unicode.

pub mod cl100k;
pub mod o200k;

use crate::classes::{self, LETTER, LOWER, NEWLINE, NUMBER, SPACE};

/// Where the run of characters having any class in `any` that starts at
/// `at` ends.
#[inline(always)]
pub(crate) fn run_any(text: &[u8], mut at: usize, any: u8) -> usize {
    while at < text.len() {
        let (class, len) = classes::at(text, at);
        if class & any == 0 {
            break;
        }
        at += len;
    }
    at
}

/// Where the run of characters having none of the classes in `none` that
/// starts at `at` ends.
#[inline(always)]
pub(crate) fn run_none(text: &[u8], mut at: usize, none: u8) -> usize {
    while at < text.len() {
        let (class, len) = classes::at(text, at);
        if class & none != 0 {
            break;
        }
        at += len;
    }
    at
}

/// The class of the character at `at`, or none past the end.
#[inline(always)]
pub(crate) fn class_at(text: &[u8], at: usize) -> (u8, usize) {
    if at < text.len() {
        classes::at(text, at)
    } else {
        (0, 0)
    }
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `at`: its length in bytes, or zero.
/// Case-insensitive matching uses Unicode simple case folding, under which
/// `s` also matches `ſ` (U+017F); no other of these letters has a
/// non-ASCII equivalent (`tests/generated.rs` checks both).
#[inline]
pub(crate) fn contraction(text: &[u8], at: usize) -> usize {
    if text.get(at) != Some(&b'\'') {
        return 0;
    }
    let next = |offset: usize| text.get(at + offset).map(u8::to_ascii_lowercase);
    match next(1) {
        Some(b's' | b't' | b'm' | b'd') => 2,
        Some(0xC5) if text.get(at + 2) == Some(&0xBF) => 3,
        Some(b'r' | b'v') if next(2) == Some(b'e') => 3,
        Some(b'l') if next(2) == Some(b'l') => 3,
        _ => 0,
    }
}

/// `\p{N}{1,3}` at `at`, a number.
#[inline]
pub(crate) fn digits(text: &[u8], at: usize) -> usize {
    let mut end = at;
    for _ in 0..3 {
        let (class, len) = class_at(text, end);
        if class & NUMBER == 0 {
            break;
        }
        end += len;
    }
    end
}

/// `␠?[^\s\p{L}\p{N}]+` then the repetition of `tail` bytes, at `at`, if
/// it matches. The optional space is greedy, but giving it back cannot
/// help: the next character would have to be both a space and not one.
#[inline]
pub(crate) fn symbols(text: &[u8], at: usize, first: u8, tail: &[u8]) -> Option<usize> {
    const NOT: u8 = SPACE | LETTER | NUMBER;
    let start = if first & NOT == 0 {
        at
    } else if text.get(at) == Some(&b' ')
        && at + 1 < text.len()
        && class_at(text, at + 1).0 & NOT == 0
    {
        at + 1
    } else {
        return None;
    };
    let mut end = run_none(text, start, NOT);
    while text.get(end).is_some_and(|byte| tail.contains(byte)) {
        end += 1;
    }
    Some(end)
}

/// The white-space alternatives at `at`, which starts a run of white space
/// (every other character matched an earlier alternative):
///
/// - `\s*[\r\n]+`: `\s*` takes the whole run and gives characters back
///   until `[\r\n]+` matches, so the match ends after the run's last line
///   break, if it has one;
/// - `\s+$`: the whole run, if it ends the text;
/// - `\s+\s` with its last character dropped: all but the run's last
///   character, if it has two or more (tiktoken's `\s+(?!\S)`);
/// - `\s+`: the run, one character.
#[inline]
pub(crate) fn white_space(text: &[u8], at: usize) -> usize {
    let mut end = at;
    let mut last_start = at;
    let mut after_break = None;
    while end < text.len() {
        let (class, len) = classes::at(text, end);
        if class & SPACE == 0 {
            break;
        }
        if class & NEWLINE != 0 {
            after_break = Some(end + len);
        }
        last_start = end;
        end += len;
    }
    if let Some(after_break) = after_break {
        after_break
    } else if end == text.len() || last_start == at {
        end
    } else {
        last_start
    }
}

/// Where the run of `[\p{Ll}\p{Lm}\p{Lo}\p{M}]` starting at `at` ends.
#[inline(always)]
pub(crate) fn lower_run(text: &[u8], at: usize) -> usize {
    run_any(text, at, LOWER)
}

/// The pieces of a text, for one encoding.
pub struct Pieces<'a> {
    text: &'a str,
    at: usize,
    piece_end: fn(&[u8], usize) -> usize,
}

impl<'a> Pieces<'a> {
    pub(crate) fn new(text: &'a str, piece_end: fn(&[u8], usize) -> usize) -> Self {
        Pieces {
            text,
            at: 0,
            piece_end,
        }
    }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.at >= self.text.len() {
            return None;
        }
        let mut end = (self.piece_end)(self.text.as_bytes(), self.at);
        if end <= self.at {
            // Every alternative matches at least one character; should one
            // not, the rest of the text is one piece rather than a loop.
            end = self.text.len();
        }
        let piece = self.text.get(self.at..end)?;
        self.at = end;
        Some(piece)
    }
}

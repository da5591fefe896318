//! o200k's pieces.
//!
//! Its words are two alternatives, tried in this order:
//!
//! ```text
//! WORD_A: [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! WORD_B: [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! ```
//!
//! Call the first set UPPER and the second LOWER: they overlap (modifier and
//! other letters, and marks, are in both), and marks are not letters, so
//! the optional first character may be a mark. Each alternative is tried
//! with the optional character taken, then without it.

use super::{class_at, contraction, digits, lower_run, symbols, white_space};
use crate::classes::{self, LETTER, LOWER, NEWLINE, NUMBER, UPPER};

/// Where the piece starting at `at` ends.
pub fn piece_end(text: &[u8], at: usize) -> usize {
    let (class, len) = class_at(text, at);
    let opener = class & (NEWLINE | LETTER | NUMBER) == 0;
    if opener || class & (UPPER | LOWER) != 0 {
        if let Some(end) = word(text, at, len, opener) {
            return end;
        }
    }
    // \p{N}{1,3}
    if class & NUMBER != 0 {
        return digits(text, at);
    }
    // ␠?[^\s\p{L}\p{N}]+[\r\n/]*
    if let Some(end) = symbols(text, at, class, b"\r\n/") {
        return end;
    }
    white_space(text, at)
}

/// WORD_A, then WORD_B, each with the optional opener taken (when the
/// first character can be one) and then without it.
#[inline]
fn word(text: &[u8], at: usize, len: usize, opener: bool) -> Option<usize> {
    let with_contraction = |end: usize| end + contraction(text, end);
    if opener {
        if let Some(end) = word_a(text, at + len) {
            return Some(with_contraction(end));
        }
    }
    if let Some(end) = word_a(text, at) {
        return Some(with_contraction(end));
    }
    if opener {
        if let Some(end) = word_b(text, at + len) {
            return Some(with_contraction(end));
        }
    }
    word_b(text, at).map(with_contraction)
}

/// `UPPER* LOWER+` at `at`. The greedy `UPPER*` takes the whole run of
/// UPPER characters; if a LOWER character follows (a lowercase letter, as
/// every other LOWER one is UPPER too), `LOWER+` runs from there. If not,
/// `UPPER*` gives characters back until `LOWER+` can start: at the run's
/// last character that is also LOWER, where it then ends, since the
/// characters after it in the run are not LOWER.
#[inline]
fn word_a(text: &[u8], at: usize) -> Option<usize> {
    let mut end = at;
    let mut after_last_lower = None;
    while end < text.len() {
        let (class, len) = classes::at(text, end);
        if class & UPPER == 0 {
            if class & LOWER != 0 {
                return Some(lower_run(text, end + len));
            }
            break;
        }
        end += len;
        if class & LOWER != 0 {
            after_last_lower = Some(end);
        }
    }
    after_last_lower
}

/// `UPPER+ LOWER*` at `at`: both runs whole, no giving back needed.
#[inline]
fn word_b(text: &[u8], at: usize) -> Option<usize> {
    let end = super::run_any(text, at, UPPER);
    if end == at {
        return None;
    }
    Some(lower_run(text, end))
}

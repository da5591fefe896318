//! cl100k's pieces.

use super::{class_at, contraction, digits, run_any, symbols, white_space};
use crate::classes::{LETTER, NEWLINE, NUMBER};

/// Where the piece starting at `at` ends.
pub fn piece_end(text: &[u8], at: usize) -> usize {
    let (class, len) = class_at(text, at);
    // (?i:'s|'t|'re|'ve|'m|'ll|'d)
    let contraction = contraction(text, at);
    if contraction > 0 {
        return at + contraction;
    }
    // [^\r\n\p{L}\p{N}]?\p{L}+ — the optional character cannot be a letter,
    // so a letter starts the run itself; any other character but a line
    // break or a number opens it when a letter follows.
    if class & LETTER != 0 {
        return run_any(text, at + len, LETTER);
    }
    if class & (NEWLINE | LETTER | NUMBER) == 0 {
        let (next, next_len) = class_at(text, at + len);
        if next & LETTER != 0 {
            return run_any(text, at + len + next_len, LETTER);
        }
    }
    // \p{N}{1,3}
    if class & NUMBER != 0 {
        return digits(text, at);
    }
    // ␠?[^\s\p{L}\p{N}]+[\r\n]*
    if let Some(end) = symbols(text, at, class, b"\r\n") {
        return end;
    }
    white_space(text, at)
}

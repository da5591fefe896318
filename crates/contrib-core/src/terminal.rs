//! Untrusted text for terminals: what would act on the terminal, or hide
//! from the person reading, is shown as an escape instead.
//!
//! Manifests, bundles, configuration files and file names come from other
//! people, and their text reaches the screen in reports, the approval
//! screen (`preview`), `compose` and error messages. A terminal obeys
//! escape sequences: `ESC [ 8 m` makes what follows invisible, `ESC [ 2 K`
//! and a carriage return erase the line, so the person would approve text
//! they never saw. Every such character, and every character of
//! [`crate::source::hidden`] (bidirectional controls, zero-width and tag
//! characters), is written as the language's own escape, `\u{1b}`, which a
//! person can read and an author can paste back into a manifest. Tabs,
//! line feeds and `\r\n` line endings are kept.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::source::hidden::{hidden_chars, separators};

/// `text` with hidden and control characters escaped; borrowed when there
/// are none, which is the common case.
pub fn visible(text: &str) -> Cow<'_, str> {
    let mut escapes = escapes(text).peekable();
    if escapes.peek().is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut copied = 0;
    for (at, c) in escapes {
        out.push_str(&text[copied..at]);
        let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        copied = at + c.len_utf8();
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Whether `text` has anything [`visible`] would escape.
pub fn needs_escaping(text: &str) -> bool {
    escapes(text).next().is_some()
}

/// The characters to escape, with their offsets: the hidden ones, the
/// line and paragraph separators (which some terminals break a line at
/// and others do not), and a carriage return that does not end a line
/// with a line feed (alone, it moves the cursor back over what was
/// written).
fn escapes(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let bytes = text.as_bytes();
    let lone_returns = memchr_iter(b'\r', bytes)
        .filter(move |&at| bytes.get(at + 1) != Some(&b'\n'))
        .map(|at| (at, '\r'));
    let hidden = hidden_chars(text).map(|(at, c, _)| (at, c));
    merge(merge(hidden, separators(text)), lone_returns)
}

fn memchr_iter(needle: u8, haystack: &[u8]) -> impl Iterator<Item = usize> + '_ {
    haystack
        .iter()
        .enumerate()
        .filter(move |&(_, &byte)| byte == needle)
        .map(|(at, _)| at)
}

/// Two ascending streams of offsets, as one.
fn merge(
    a: impl Iterator<Item = (usize, char)>,
    b: impl Iterator<Item = (usize, char)>,
) -> impl Iterator<Item = (usize, char)> {
    let mut a = a.peekable();
    let mut b = b.peekable();
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x.0 <= y.0 => a.next(),
        (Some(_), Some(_)) | (None, Some(_)) => b.next(),
        (Some(_), None) => a.next(),
        (None, None) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_hidden_characters_are_shown() {
        assert_eq!(
            visible("ok\u{1b}[8mhidden\u{1b}[2K\rshown"),
            "ok\\u{1b}[8mhidden\\u{1b}[2K\\u{d}shown"
        );
        assert_eq!(visible("a\u{202e}b\u{200b}c"), "a\\u{202e}b\\u{200b}c");
        assert_eq!(visible("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(
            visible("one\u{2028}two\u{2029}\u{200b}three"),
            "one\\u{2028}two\\u{2029}\\u{200b}three"
        );
    }

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        let text = "line one\r\nline\ttwo\né 👨\u{200d}👩\n";
        assert!(matches!(visible(text), Cow::Borrowed(_)));
        assert!(!needs_escaping(text));
    }
}

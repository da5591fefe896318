//! Characters that change what text shows without showing themselves:
//! control characters, bidirectional overrides, zero-width characters and
//! Unicode tags.
//!
//! A manifest's text reaches two readers: the model, which receives every
//! character, and a person (a reviewer, the approval screen), who sees what
//! a terminal or an editor draws. These characters make the two differ: an
//! escape sequence can erase a line on the approval screen, a right-to-left
//! override can reorder what a reviewer reads (CVE-2021-42574, "Trojan
//! Source"), and zero-width and tag characters carry words no one sees.
//! The checker flags them (`hidden-character`), and every terminal report
//! shows them escaped (`report::terminal`). One list serves both.
//!
//! Joiners are the exception: U+200C and U+200D between two non-ASCII
//! characters are how Persian, the Indic scripts and emoji sequences are
//! written, so they are hidden only where they join ASCII (or nothing).

/// Why a character is hidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hidden {
    /// A C0 or C1 control character other than tab and line endings, or
    /// DEL: terminals act on them (`ESC [ 2 K` erases a line).
    Control,
    /// A bidirectional embedding, override, isolate or mark: reorders what
    /// is drawn without changing what is read.
    Bidi,
    /// Drawn as nothing: zero-width spaces and joiners, the word joiner,
    /// invisible operators, a byte-order mark inside the text, fillers.
    Invisible,
    /// A Unicode tag character (U+E0000–U+E007F): invisible, and able to
    /// spell out a whole instruction that models read.
    Tag,
}

impl Hidden {
    /// The kind in a few words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Hidden::Control => "a control character",
            Hidden::Bidi => "a bidirectional control character",
            Hidden::Invisible => "an invisible character",
            Hidden::Tag => "a Unicode tag character",
        }
    }
}

/// The kind of `c`, regardless of its neighbours; tab, line feed and
/// carriage return are text, not hidden.
pub fn classify(c: char) -> Option<Hidden> {
    match c {
        '\t' | '\n' | '\r' => None,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => Some(Hidden::Control),
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            Some(Hidden::Bidi)
        }
        '\u{ad}'
        | '\u{34f}'
        | '\u{115f}'
        | '\u{1160}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200d}'
        | '\u{2060}'..='\u{2064}'
        | '\u{3164}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff9}'..='\u{fffb}' => Some(Hidden::Invisible),
        '\u{e0000}'..='\u{e007f}' => Some(Hidden::Tag),
        _ => None,
    }
}

/// Every hidden character of `text`, with its byte offset, in order. A
/// byte-order mark at the very start is the file's encoding mark, not
/// hidden text.
pub fn hidden_chars(text: &str) -> impl Iterator<Item = (usize, char, Hidden)> + '_ {
    hidden_chars_in(text, 0..text.len())
}

/// [`hidden_chars`] of `text[range]` (a range on character boundaries),
/// judging joiners by their neighbours in the whole text; offsets are in
/// the whole text.
pub fn hidden_chars_in(
    text: &str,
    range: std::ops::Range<usize>,
) -> impl Iterator<Item = (usize, char, Hidden)> + '_ {
    let base = range.start;
    let mut previous: Option<char> = text
        .get(..base)
        .and_then(|before| before.chars().next_back());
    let after_range = text.get(range.end..).and_then(|after| after.chars().next());
    let mut chars = text.get(range).unwrap_or("").char_indices().peekable();
    std::iter::from_fn(move || {
        while let Some((at, c)) = chars.next() {
            let at = base + at;
            let before = previous.replace(c);
            if c.is_ascii() && !c.is_ascii_control() {
                continue;
            }
            let Some(kind) = classify(c) else {
                continue;
            };
            if at == 0 && c == '\u{feff}' {
                continue;
            }
            if matches!(c, '\u{200c}' | '\u{200d}') {
                let after = chars.peek().map(|&(_, next)| next).or(after_range);
                let joins = |neighbour: Option<char>| {
                    neighbour.is_some_and(|n| !n.is_ascii() && classify(n).is_none())
                };
                if joins(before) && joins(after) {
                    continue;
                }
            }
            return Some((at, c, kind));
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(usize, Hidden)> {
        hidden_chars(text).map(|(at, _, kind)| (at, kind)).collect()
    }

    #[test]
    fn finds_controls_bidi_invisible_and_tags() {
        assert_eq!(found("a\u{1b}[2Kb"), [(1, Hidden::Control)]);
        assert_eq!(found("x\u{202e}y"), [(1, Hidden::Bidi)]);
        assert_eq!(found("x\u{200b}y"), [(1, Hidden::Invisible)]);
        assert_eq!(found("\u{e0041}"), [(0, Hidden::Tag)]);
        assert_eq!(found("\u{9b}"), [(0, Hidden::Control)]);
        assert!(found("tab\tline\r\nend\n").is_empty());
    }

    #[test]
    fn joiners_inside_words_and_emoji_are_text() {
        // Persian "می‌خواهم" with a zero-width non-joiner, and a family emoji.
        assert!(found("می\u{200c}خواهم").is_empty());
        assert!(found("👨\u{200d}👩\u{200d}👧").is_empty());
        // Between ASCII letters it hides a break in a word.
        assert_eq!(found("ig\u{200d}nore"), [(2, Hidden::Invisible)]);
        assert_eq!(found("\u{200d}"), [(0, Hidden::Invisible)]);
    }

    #[test]
    fn a_leading_byte_order_mark_is_not_hidden_text() {
        assert!(found("\u{feff}plugin").is_empty());
        assert_eq!(found("a\u{feff}b"), [(1, Hidden::Invisible)]);
    }
}

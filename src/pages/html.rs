//! Markup that manifest text cannot escape from.
//!
//! Every string that came from a manifest, a bundle or a configuration goes
//! through [`text`]: the five characters that mean something in HTML become
//! entities, and characters a reader cannot see (the ones
//! [`crate::source::hidden`] finds: controls, bidirectional overrides and
//! isolates, zero-width characters, variation selectors no character
//! takes, tags), and the line and paragraph separators, become a visible
//! mark holding the language's own escape,
//! `\u{202e}`, as the terminal shows them, so a page never shows text in an
//! order or with gaps other than the bytes it will add (the "Trojan
//! Source" trick).
//! Nothing from input is ever written into an attribute other than through
//! [`text`], and never into `href`, `src` or `style`.

use std::fmt::Write;

use crate::source::hidden::{hidden_chars, is_separator};

/// `value` as HTML text (also safe inside a double- or single-quoted
/// attribute), with hidden characters made visible.
pub fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut hidden = hidden_chars(value).peekable();
    for (at, character) in value.char_indices() {
        if let Some(&(_, _, kind)) = hidden.peek().filter(|&&(offset, _, _)| offset == at) {
            hidden.next();
            let _ = write!(
                out,
                "<span class=\"invisible\" title=\"{}\">\\u{{{:x}}}</span>",
                kind.describe(),
                u32::from(character)
            );
            continue;
        }
        if is_separator(character) {
            // Not hidden, but one browser breaks a line at it and another
            // draws nothing: shown as the terminal shows it.
            let _ = write!(
                out,
                "<span class=\"invisible\" title=\"a line or paragraph separator\">\\u{{{:x}}}</span>",
                u32::from(character)
            );
            continue;
        }
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(character),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_become_entities() {
        assert_eq!(
            text(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
    }

    #[test]
    fn invisible_characters_are_shown() {
        let shown = text("abc\u{202E}def\u{200B}\u{0007}x\u{FE0F}\u{E0100}");
        assert!(!shown.contains('\u{202E}') && !shown.contains('\u{200B}'));
        for escape in ["202e", "200b", "7", "fe0f", "e0100"] {
            assert!(
                shown.contains(&format!(">\\u{{{escape}}}<")),
                "{escape}: {shown}"
            );
        }
        assert_eq!(text("line\n\tindented"), "line\n\tindented");
        let separated = text("one\u{2028}two\u{2029}");
        assert!(!separated.contains('\u{2028}') && !separated.contains('\u{2029}'));
        assert!(separated.contains(">\\u{2028}<") && separated.contains(">\\u{2029}<"));
        // An emoji as written keeps its presentation selector.
        assert_eq!(text("⚠\u{FE0F} careful"), "⚠\u{FE0F} careful");
    }
}

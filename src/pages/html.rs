//! Markup that manifest text cannot escape from.
//!
//! Every string that came from a manifest, a bundle or a configuration goes
//! through [`text`]: the five characters that mean something in HTML become
//! entities, and characters a reader cannot see (bidirectional overrides
//! and isolates, zero-width characters, other control characters) become a
//! visible `U+XXXX` mark, so a page never shows text in an order or with
//! gaps other than the bytes it will add (the "Trojan Source" trick).
//! Nothing from input is ever written into an attribute other than through
//! [`text`], and never into `href`, `src` or `style`.

use std::fmt::Write;

/// `value` as HTML text (also safe inside a double- or single-quoted
/// attribute), with invisible characters made visible.
pub fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for character in value.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(character),
            _ if is_invisible(character) => {
                let _ = write!(
                    out,
                    "<span class=\"invisible\" title=\"an invisible character\">U+{:04X}</span>",
                    u32::from(character)
                );
            }
            _ => out.push(character),
        }
    }
    out
}

/// Characters that change how text around them reads without being seen:
/// controls, bidirectional embeddings, overrides, isolates and marks,
/// zero-width characters and the byte-order mark.
pub fn is_invisible(character: char) -> bool {
    character.is_control()
        || matches!(
            character,
            '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{061C}'
                | '\u{FEFF}'
        )
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
        let shown = text("abc\u{202E}def\u{200B}\u{0007}");
        assert!(!shown.contains('\u{202E}') && !shown.contains('\u{200B}'));
        assert!(shown.contains(">U+202E<") && shown.contains(">U+200B<"));
        assert!(shown.contains(">U+0007<"));
        assert_eq!(text("line\n\tindented"), "line\n\tindented");
    }
}

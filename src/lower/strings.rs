//! String literals → their values.
//!
//! `"…"` strings decode their escapes. `"""…"""` blocks also drop a blank
//! first and last line and the indentation common to their non-blank lines,
//! so a block can be indented with the manifest around it. Line endings
//! inside a block become `\n` whatever the file uses, so a manifest means the
//! same on every machine.
//!
//! Every decoded value keeps an [`OffsetMap`] back to the source, so that a
//! template variable found in the value is reported where it was written.

use crate::codes::{INVALID_ESCAPE, LIMIT_EXCEEDED, UNTERMINATED_STRING};
use crate::diagnostic::Diagnostic;
use crate::limits::MAX_STRING_BYTES;
use crate::source::{OffsetMap, Span};
use crate::syntax::tree::{Quotes, StrLit};

/// A decoded string and where each part of it came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decoded {
    pub value: String,
    pub map: OffsetMap,
    /// The whole literal, quotes included.
    pub span: Span,
}

/// Decodes a literal, reporting every bad escape. An unterminated literal is
/// reported too, and decoded as far as it goes.
pub fn decode(literal: &StrLit<'_>, diagnostics: &mut Vec<Diagnostic>) -> Decoded {
    if !literal.terminated {
        diagnostics.push(unterminated(literal));
        // The rest of the line or file was not meant as this string: its
        // escapes are not worth reporting.
        let rest = StrLit {
            terminated: true,
            ..*literal
        };
        return decode(&rest, &mut Vec::new());
    }
    if literal.body.len() > MAX_STRING_BYTES {
        diagnostics.push(
            Diagnostic::new(
                &LIMIT_EXCEEDED,
                format!(
                    "this string is {} bytes, over the limit of {MAX_STRING_BYTES}",
                    literal.body.len()
                ),
            )
            .primary(literal.span, "string too long")
            .help("split the text across several contributors"),
        );
        return Decoded {
            span: literal.span,
            ..Decoded::default()
        };
    }
    let mut decoded = Decoded {
        span: literal.span,
        ..Decoded::default()
    };
    match literal.quotes {
        Quotes::Single => unescape_into(
            literal.body,
            literal.body_span.start,
            &mut decoded,
            diagnostics,
        ),
        Quotes::Triple => decode_block(
            literal.body,
            literal.body_span.start,
            &mut decoded,
            diagnostics,
        ),
    }
    decoded
}

/// The error for a literal whose closing quotes never came.
pub fn unterminated(literal: &StrLit<'_>) -> Diagnostic {
    let (open, label, help) = match literal.quotes {
        Quotes::Single => (
            Span::new(literal.span.start, literal.span.start + 1),
            "this string is never closed on its line",
            "add the closing `\"` on the same line, or use a `\"\"\"` block for text over several lines",
        ),
        Quotes::Triple => (
            Span::new(literal.span.start, literal.span.start + 3),
            "this block is never closed",
            "add the closing `\"\"\"` after the block's last line",
        ),
    };
    Diagnostic::new(&UNTERMINATED_STRING, "unterminated string")
        .primary(open, label)
        .help(help)
}

/// One line of a block: its raw text and where it starts in the source.
struct Line<'a> {
    text: &'a str,
    start: usize,
}

fn split_lines(body: &str, base: usize) -> Vec<Line<'_>> {
    let bytes = body.as_bytes();
    let mut lines = Vec::new();
    let mut line_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let break_len = match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => 2,
            b'\n' | b'\r' => 1,
            _ => 0,
        };
        if break_len > 0 {
            lines.push(Line {
                text: &body[line_start..i],
                start: base + line_start,
            });
            i += break_len;
            line_start = i;
        } else {
            i += 1;
        }
    }
    lines.push(Line {
        text: &body[line_start..],
        start: base + line_start,
    });
    lines
}

fn is_blank(text: &str) -> bool {
    text.chars().all(|c| c == ' ' || c == '\t')
}

fn indentation(text: &str) -> usize {
    text.len() - text.trim_start_matches([' ', '\t']).len()
}

/// One line of a `"""` block's value, still raw: what is left of a source
/// line once the block's blank first and last lines and its common
/// indentation are dropped. Blank lines come out empty.
///
/// Decoding and the formatter both read blocks through [`block_lines`], so
/// a block the formatter re-indents keeps exactly the value it had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockLine<'a> {
    pub text: &'a str,
    /// Where `text` starts in the source.
    pub start: usize,
}

/// The lines of a `"""` block's value; `base` is where `body` starts in the
/// source. There is always at least one line.
pub fn block_lines(body: &str, base: usize) -> Vec<BlockLine<'_>> {
    let mut lines = split_lines(body, base);
    if lines.len() > 1 && lines.first().is_some_and(|line| is_blank(line.text)) {
        lines.remove(0);
    }
    if lines.len() > 1 && lines.last().is_some_and(|line| is_blank(line.text)) {
        lines.pop();
    }
    let common = lines
        .iter()
        .filter(|line| !is_blank(line.text))
        .map(|line| indentation(line.text))
        .min()
        .unwrap_or(0);
    lines
        .into_iter()
        .map(|line| {
            if is_blank(line.text) {
                return BlockLine {
                    text: "",
                    start: line.start,
                };
            }
            // Indentation is spaces and tabs, one byte each, so `common`
            // bytes are a character boundary on every non-blank line.
            BlockLine {
                text: line.text.get(common..).unwrap_or(line.text),
                start: line.start + common,
            }
        })
        .collect()
}

fn decode_block(body: &str, base: usize, out: &mut Decoded, diagnostics: &mut Vec<Diagnostic>) {
    for (index, line) in block_lines(body, base).into_iter().enumerate() {
        if index > 0 {
            out.value.push('\n');
        }
        if !line.text.is_empty() {
            unescape_into(line.text, line.start, out, diagnostics);
        }
    }
}

/// Appends `raw` with its escapes decoded; `base` is where `raw` starts in
/// the source.
fn unescape_into(raw: &str, base: usize, out: &mut Decoded, diagnostics: &mut Vec<Diagnostic>) {
    let mut rest = raw;
    let mut offset = base;
    while let Some(backslash) = rest.find('\\') {
        out.map.push(out.value.len(), offset);
        out.value.push_str(&rest[..backslash]);
        let escape_start = offset + backslash;
        let after = &rest[backslash + 1..];
        let (decoded, consumed) = match escape(after) {
            Ok(pair) => pair,
            Err(consumed) => {
                let span = Span::new(escape_start, escape_start + 1 + consumed);
                let written = &raw[escape_start - base..span.end - base];
                diagnostics.push(invalid_escape(span, written));
                (None, consumed)
            }
        };
        if let Some(c) = decoded {
            out.map.push(out.value.len(), escape_start);
            out.value.push(c);
        }
        let next = backslash + 1 + consumed;
        rest = &rest[next..];
        offset += next;
    }
    out.map.push(out.value.len(), offset);
    out.value.push_str(rest);
}

/// Decodes the escape after a backslash: the character and how many bytes
/// it took, or on error how many bytes the bad escape covers.
fn escape(after: &str) -> Result<(Option<char>, usize), usize> {
    let Some(first) = after.chars().next() else {
        return Err(0);
    };
    let simple = match first {
        '"' => Some('"'),
        '\\' => Some('\\'),
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        '0' => Some('\0'),
        'u' => None,
        other => return Err(other.len_utf8()),
    };
    if let Some(c) = simple {
        return Ok((Some(c), 1));
    }
    let Some(inner) = after.strip_prefix("u{") else {
        return Err(1);
    };
    let Some(close) = inner.find('}') else {
        return Err(1 + inner.len().min(1));
    };
    let hex = &inner[..close];
    let consumed = 2 + close + 1;
    if hex.is_empty() || hex.len() > 6 {
        return Err(consumed);
    }
    u32::from_str_radix(hex, 16)
        .ok()
        .and_then(char::from_u32)
        .map(|c| (Some(c), consumed))
        .ok_or(consumed)
}

fn invalid_escape(span: Span, written: &str) -> Diagnostic {
    Diagnostic::new(&INVALID_ESCAPE, format!("unknown escape `{written}`"))
        .primary(span, "not a known escape")
        .help("the escapes are `\\\"`, `\\\\`, `\\n`, `\\t`, `\\r`, `\\0` and `\\u{…}`; write `\\\\` for a literal backslash")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(source: &str) -> StrLit<'_> {
        let triple = source.starts_with("\"\"\"");
        let quote = if triple { 3 } else { 1 };
        let terminated = source.len() >= 2 * quote && source.ends_with(&source[..quote]);
        let end = if terminated {
            source.len() - quote
        } else {
            source.len()
        };
        StrLit {
            quotes: if triple {
                Quotes::Triple
            } else {
                Quotes::Single
            },
            body: &source[quote..end],
            body_span: Span::new(quote, end),
            span: Span::new(0, source.len()),
            terminated,
        }
    }

    fn value(source: &str) -> (String, Vec<&'static str>) {
        let mut diagnostics = Vec::new();
        let decoded = decode(&literal(source), &mut diagnostics);
        (
            decoded.value,
            diagnostics.iter().map(|d| d.rule.name).collect(),
        )
    }

    #[test]
    fn decodes_escapes() {
        assert_eq!(value(r#""a\"b\\c\nd\te""#).0, "a\"b\\c\nd\te");
        assert_eq!(value(r#""\u{1F600} \u{e9}""#).0, "😀 é");
    }

    #[test]
    fn reports_bad_escapes_and_keeps_going() {
        let (text, errors) = value(r#""C:\path \u{D800} \u{} ok""#);
        assert_eq!(
            errors,
            ["invalid-escape", "invalid-escape", "invalid-escape"]
        );
        assert!(text.ends_with(" ok"));
    }

    #[test]
    fn bad_escape_span_covers_the_escape() {
        let mut diagnostics = Vec::new();
        decode(&literal(r#""ab\qcd""#), &mut diagnostics);
        assert_eq!(diagnostics[0].span(), Span::new(3, 5));
        assert_eq!(diagnostics[0].message, "unknown escape `\\q`");
    }

    #[test]
    fn blocks_strip_first_and_last_blank_lines_and_common_indentation() {
        let source = "\"\"\"\n        first\n          indented\n\n        last\n        \"\"\"";
        assert_eq!(value(source).0, "first\n  indented\n\nlast");
    }

    #[test]
    fn blocks_on_one_line_keep_their_text() {
        assert_eq!(value("\"\"\"  inline  \"\"\"").0, "inline  ");
    }

    #[test]
    fn blocks_normalise_line_endings() {
        assert_eq!(
            value("\"\"\"\r\n    a\r\n    b\r    c\r\n    \"\"\"").0,
            "a\nb\nc"
        );
    }

    #[test]
    fn blocks_keep_escapes_after_dedent() {
        assert_eq!(
            value("\"\"\"\n    a \\\"\"\" b\n    \"\"\"").0,
            "a \"\"\" b"
        );
    }

    #[test]
    fn unterminated_strings_are_reported_and_decoded() {
        assert_eq!(value("\"abc"), ("abc".into(), vec!["unterminated-string"]));
        let (text, errors) = value("\"\"\"\n  abc\n");
        assert_eq!(text, "abc");
        assert_eq!(errors, ["unterminated-string"]);
    }

    #[test]
    fn offset_map_points_into_the_source() {
        let source = "\"\"\"\n    hello {x}\n    \"\"\"";
        let mut diagnostics = Vec::new();
        let decoded = decode(&literal(source), &mut diagnostics);
        let at = decoded.value.find('{').unwrap();
        let span = decoded.map.source_span(at, at + 3);
        assert_eq!(&source[span.range()], "{x}");
    }

    #[test]
    fn offset_map_skips_escapes() {
        let source = r#""a\nb {x}""#;
        let mut diagnostics = Vec::new();
        let decoded = decode(&literal(source), &mut diagnostics);
        let at = decoded.value.find('{').unwrap();
        assert_eq!(&source[decoded.map.source_span(at, at + 3).range()], "{x}");
    }
}

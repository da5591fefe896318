//! A preface's origin: `scheme:scope`, where the scope may name values the
//! host fills in at run time.
//!
//! Operators reading transcripts parse an origin, so it follows the
//! design's conventions: `workspace:<ws>/session:<s>`, `memory:<store>`,
//! `web:<url>`, `fsm:<job>:input`. The parts that differ per conversation
//! are written as placeholders in braces:
//!
//! - `{call.NAME}`: the value of the preface's call argument `NAME`, as in
//!   `origin "web:{call.url}"`;
//! - `{NAME}`: a value the host supplies in the session's `[origins]`, as
//!   in `origin "workspace:{workspace}/session:{session}"` or
//!   `origin "fsm:{job}:input"`.
//!
//! The runtime fills them and escapes the result into the envelope's
//! attribute; a placeholder the host left empty stays as written, and the
//! turn's record says so.

use std::ops::Range;

/// One run of an origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OriginPiece<'a> {
    Text(&'a str),
    /// `{call.NAME}`.
    Call(&'a str),
    /// `{NAME}`, from the host.
    Host(&'a str),
}

/// Why an origin's placeholders cannot be read, and where, in bytes of the
/// origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginError {
    pub message: String,
    pub range: Range<usize>,
}

/// The origin's runs of text and placeholders.
pub fn pieces(origin: &str) -> Result<Vec<OriginPiece<'_>>, OriginError> {
    let mut pieces = Vec::new();
    let mut rest = origin;
    let mut offset = 0;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err(OriginError {
                message: "a `}` closes no placeholder".to_string(),
                range: offset + open..offset + open + 1,
            });
        }
        if open > 0 {
            pieces.push(OriginPiece::Text(&rest[..open]));
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(OriginError {
                message: "a `{` opens a placeholder that is never closed".to_string(),
                range: offset + open..offset + rest.len(),
            });
        };
        let name = &after[..close];
        let range = offset + open..offset + open + close + 2;
        let piece = match name.strip_prefix("call.") {
            Some(argument) if is_name(argument) => OriginPiece::Call(argument),
            None if is_name(name) => OriginPiece::Host(name),
            _ => {
                return Err(OriginError {
                    message: format!("`{{{name}}}` is not a placeholder"),
                    range,
                })
            }
        };
        pieces.push(piece);
        offset += open + close + 2;
        rest = &after[close + 1..];
    }
    if !rest.is_empty() {
        pieces.push(OriginPiece::Text(rest));
    }
    Ok(pieces)
}

/// A lowercase name: a letter, then letters, digits, `-` and `_`.
fn is_name(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes.next().is_some_and(|first| first.is_ascii_lowercase())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_read_from_the_scope() {
        assert_eq!(
            pieces("workspace:{workspace}/session:{session}"),
            Ok(vec![
                OriginPiece::Text("workspace:"),
                OriginPiece::Host("workspace"),
                OriginPiece::Text("/session:"),
                OriginPiece::Host("session"),
            ])
        );
        assert_eq!(
            pieces("web:{call.url}"),
            Ok(vec![OriginPiece::Text("web:"), OriginPiece::Call("url")])
        );
        assert_eq!(
            pieces("memory:team"),
            Ok(vec![OriginPiece::Text("memory:team")])
        );
    }

    #[test]
    fn broken_placeholders_are_located() {
        let error = pieces("web:{call.url").unwrap_err();
        assert_eq!(error.range, 4..13);
        let error = pieces("web:{URL}x").unwrap_err();
        assert_eq!(
            (error.message.as_str(), error.range),
            ("`{URL}` is not a placeholder", 4..9)
        );
        assert_eq!(pieces("a:b}").unwrap_err().range, 3..4);
    }
}

//! Byte spans ↔ LSP positions, and file paths ↔ `file:` URIs.
//!
//! The compiler speaks byte offsets; LSP speaks `(line, character)` with
//! characters counted in UTF-16 code units, the one encoding every client
//! must support (we announce it as the negotiated `positionEncoding`).
//! Lines end at `\n`, `\r\n` or a lone `\r`, as in [`LineIndex`] and as
//! the protocol says, so a file with mixed line endings maps the same way
//! on both sides.
//!
//! Positions from the client are untrusted: a line past the end clamps to
//! the end of the file, a character past the end of its line clamps to the
//! line's end, and a character in the middle of a surrogate pair clamps to
//! the character's start. No position makes a conversion panic.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Position, Range, Uri};

use crate::source::{floor_char_boundary, LineIndex, SourceFile, Span};

/// The byte offset of an LSP position in `source`.
pub fn offset(source: &SourceFile, position: Position) -> usize {
    let text: &str = &source.text;
    let lines = source.line_index();
    let Some(start) = lines.line_start(position.line as usize) else {
        return text.len();
    };
    let end = line_content_end(text, lines, position.line as usize);
    let mut units = 0u32;
    for (index, ch) in text[start..end].char_indices() {
        let width = ch.len_utf16() as u32;
        if units.saturating_add(width) > position.character {
            return start + index;
        }
        units += width;
    }
    end
}

/// The LSP position of a byte offset in `source`; an offset inside a
/// character or past the end clamps to the character boundary before it.
pub fn position(source: &SourceFile, offset: usize) -> Position {
    let text: &str = &source.text;
    let offset = floor_char_boundary(text, offset);
    let lines = source.line_index();
    let line = lines.line_of(offset);
    let start = lines.line_start(line).unwrap_or(0).min(offset);
    let character: usize = text[start..offset].chars().map(char::len_utf16).sum();
    Position::new(
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(character).unwrap_or(u32::MAX),
    )
}

pub fn range(source: &SourceFile, span: Span) -> Range {
    Range::new(position(source, span.start), position(source, span.end))
}

pub fn span(source: &SourceFile, range: Range) -> Span {
    let start = offset(source, range.start);
    let end = offset(source, range.end);
    Span::new(start.min(end), start.max(end))
}

/// Where the text of 0-based `line` ends, before its line break.
fn line_content_end(text: &str, lines: &LineIndex, line: usize) -> usize {
    let next = lines.line_start(line + 1).unwrap_or(text.len());
    let content = &text[lines.line_start(line).unwrap_or(0)..next];
    next - (content.len() - content.trim_end_matches(['\n', '\r']).len())
}

/// The local path of a `file:` URI (see [`crate::uri`]).
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    crate::uri::file_path(uri.as_str())
}

/// The `file:` URI of an absolute path.
pub fn uri_of(path: &Path) -> Option<Uri> {
    Uri::from_str(&crate::uri::file_uri(path)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> SourceFile {
        SourceFile::new("test", text)
    }

    #[test]
    fn positions_count_utf16_code_units() {
        // `é` is one unit, `🦀` two, and both are several bytes.
        let text = source("é🦀x\nab");
        assert_eq!(position(&text, 0), Position::new(0, 0));
        assert_eq!(position(&text, 2), Position::new(0, 1));
        assert_eq!(position(&text, 6), Position::new(0, 3));
        assert_eq!(position(&text, 8), Position::new(1, 0));
        assert_eq!(offset(&text, Position::new(0, 3)), 6);
        assert_eq!(offset(&text, Position::new(1, 2)), 10);
    }

    #[test]
    fn round_trips_every_character_boundary() {
        let text = source("a\r\nμ🦀\rb\n\nc");
        for (offset_in, _) in text.text.char_indices() {
            if text.text[..offset_in].ends_with('\r') && text.text[offset_in..].starts_with('\n') {
                continue; // between `\r` and `\n`: not a position
            }
            let there = position(&text, offset_in);
            assert_eq!(offset(&text, there), offset_in, "{there:?}");
        }
    }

    #[test]
    fn untrusted_positions_clamp() {
        let text = source("ab\r\ncd");
        // Past the end of a line: the line's end, before its `\r\n`.
        assert_eq!(offset(&text, Position::new(0, 99)), 2);
        // Past the last line: the end of the file.
        assert_eq!(offset(&text, Position::new(9, 0)), 6);
        // Inside a surrogate pair: the start of the character.
        assert_eq!(offset(&source("🦀"), Position::new(0, 1)), 0);
        // Offsets inside a character or past the end.
        assert_eq!(position(&source("é"), 1), Position::new(0, 0));
        assert_eq!(position(&text, 99), Position::new(1, 2));
    }

    #[test]
    fn file_uris_round_trip_with_percent_encoding() {
        let path = Path::new("/tmp/a dir/contrib.toml");
        let uri = uri_of(path).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20dir/contrib.toml");
        assert_eq!(path_of(&uri).unwrap(), path);
        let untitled = Uri::from_str("untitled:Untitled-1").unwrap();
        assert_eq!(path_of(&untitled), None);
    }
}

//! Source text, byte spans and the line index that turns spans into the
//! line and column numbers people read.
//!
//! Spans are byte offsets into the whole file. Columns are counted in
//! Unicode scalar values (characters), 1-based; a tab counts as one column,
//! as in rustc's and ruff's JSON output. `\n`, `\r\n` and a lone `\r` each end
//! a line, so files with CRLF or mixed line endings get correct positions.

pub mod hidden;

use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// A half-open byte range `start..end` in one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// An empty span at `offset`, for things that are missing.
    pub const fn point(offset: usize) -> Self {
        Span::new(offset, offset)
    }

    pub fn len(self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    pub fn contains(self, offset: usize) -> bool {
        self.start <= offset && offset < self.end
    }

    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }
}

/// A value together with where it was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub const fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Spanned<U> {
        Spanned::new(f(self.value), self.span)
    }
}

/// Maps offsets in a decoded string back to source offsets.
///
/// Holds one entry per run of text copied verbatim; an offset inside a run
/// maps exactly, an offset inside an escape maps to the escape's start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OffsetMap {
    /// `(decoded offset, source offset)` at the start of each run, ascending.
    runs: Vec<(usize, usize)>,
}

impl OffsetMap {
    /// Records that the decoded text at `decoded` came from the source at
    /// `source`: the start of a run copied verbatim, or of an escape.
    pub fn push(&mut self, decoded: usize, source: usize) {
        if let Some(&(last_decoded, last_source)) = self.runs.last() {
            if decoded - last_decoded == source.wrapping_sub(last_source) {
                return;
            }
            if last_decoded == decoded {
                self.runs.pop();
            }
        }
        self.runs.push((decoded, source));
    }

    /// The source offset of decoded offset `at`.
    pub fn source_offset(&self, at: usize) -> usize {
        let index = self.runs.partition_point(|&(decoded, _)| decoded <= at);
        match index.checked_sub(1).and_then(|i| self.runs.get(i)) {
            Some(&(decoded, source)) => source + (at - decoded),
            None => at,
        }
    }

    /// The source span of a decoded range.
    pub fn source_span(&self, start: usize, end: usize) -> Span {
        let source_start = self.source_offset(start);
        let source_end = if end > start {
            self.source_offset(end - 1) + 1
        } else {
            source_start
        };
        Span::new(source_start, source_end.max(source_start))
    }
}

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// A named source file. The text is shared so that reports can hold it
/// without copying.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
    /// Built on first use, once, and shared by every diagnostic of the
    /// file: a file with nothing to report (most files of a warm check)
    /// never needs one.
    lines: OnceLock<LineIndex>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        SourceFile {
            name: name.into(),
            text: text.into(),
            lines: OnceLock::new(),
        }
    }

    pub fn position(&self, offset: usize) -> Position {
        self.line_index().position(&self.text, offset)
    }

    pub fn line_index(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// The text a span covers, or `""` when the span is not in this file.
    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }
}

/// Byte offsets of the start of every line, and what it takes to count
/// characters in constant time: a column is a count of characters from the
/// line's start, and counting them afresh for each diagnostic would make
/// one long line cost its length per diagnostic.
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// Characters before each [`CHUNK`]-byte chunk of the text; empty
    /// when the text is ASCII, where characters are bytes.
    chars_before_chunk: Vec<usize>,
}

/// The chunk size of [`LineIndex`]'s character counts: a column costs at
/// most one chunk's scan.
const CHUNK: usize = 256;

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        // Line breaks found with memchr's vector search rather than a test
        // of every byte: this runs over every file with something to report.
        let mut breaks = memchr::memchr2_iter(b'\n', b'\r', bytes).peekable();
        while let Some(at) = breaks.next() {
            if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                breaks.next();
                starts.push(at + 2);
            } else {
                starts.push(at + 1);
            }
        }
        let chars_before_chunk = if text.is_ascii() {
            Vec::new()
        } else {
            let mut counts = Vec::with_capacity(bytes.len() / CHUNK + 2);
            let mut total = 0;
            for chunk in bytes.chunks(CHUNK) {
                counts.push(total);
                total += chunk.iter().filter(|&&byte| !is_continuation(byte)).count();
            }
            // For an offset at the very end of a text whose length is a
            // multiple of the chunk size.
            counts.push(total);
            counts
        };
        LineIndex {
            starts,
            chars_before_chunk,
        }
    }

    /// The 0-based line holding `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset) - 1
    }

    /// The byte offset where 0-based `line` starts, if the file has it.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The 1-based position of `offset`; offsets past the end or inside a
    /// character clamp to the nearest character boundary before them. A
    /// byte-order mark takes no column, as in editors.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = floor_char_boundary(text, offset);
        let line = self.line_of(offset);
        let mut start = self.starts[line];
        if line == 0 && text.starts_with('\u{FEFF}') {
            start = offset.min('\u{FEFF}'.len_utf8());
        }
        let column = self.chars_before(text, offset) - self.chars_before(text, start) + 1;
        Position {
            line: line + 1,
            column,
        }
    }

    /// How many characters come before byte `offset` (a character
    /// boundary), scanning at most one chunk.
    fn chars_before(&self, text: &str, offset: usize) -> usize {
        if self.chars_before_chunk.is_empty() {
            return offset;
        }
        let chunk = offset / CHUNK;
        let counted = self.chars_before_chunk.get(chunk).copied().unwrap_or(0);
        let rest = text.as_bytes().get(chunk * CHUNK..offset).unwrap_or(&[]);
        counted + rest.iter().filter(|&&byte| !is_continuation(byte)).count()
    }
}

/// Whether a byte continues a UTF-8 character rather than starting one.
fn is_continuation(byte: u8) -> bool {
    byte & 0b1100_0000 == 0b1000_0000
}

/// The largest character boundary at or before `offset`.
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(text: &str, offset: usize) -> (usize, usize) {
        let p = LineIndex::new(text).position(text, offset);
        (p.line, p.column)
    }

    #[test]
    fn positions_are_one_based() {
        assert_eq!(pos("ab\ncd", 0), (1, 1));
        assert_eq!(pos("ab\ncd", 4), (2, 2));
    }

    #[test]
    fn crlf_and_lone_cr_end_lines() {
        let text = "a\r\nb\rc\nd";
        assert_eq!(pos(text, 3), (2, 1));
        assert_eq!(pos(text, 5), (3, 1));
        assert_eq!(pos(text, 7), (4, 1));
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        assert_eq!(pos("é\tx", 3), (1, 3));
    }

    #[test]
    fn a_byte_order_mark_takes_no_column() {
        assert_eq!(pos("\u{FEFF}ab", 3), (1, 1));
        assert_eq!(pos("\u{FEFF}ab", 4), (1, 2));
        assert_eq!(pos("\u{FEFF}ab", 0), (1, 1));
    }

    #[test]
    fn columns_far_along_a_long_line_count_characters() {
        let text = format!("{}é{}x", "a".repeat(1000), "ü".repeat(700));
        let at = text.len() - 1;
        assert_eq!(pos(&text, at), (1, 1000 + 1 + 700 + 1));
        for at in (0..=text.len()).filter(|&at| text.is_char_boundary(at)) {
            assert_eq!(pos(&text, at), (1, text[..at].chars().count() + 1), "{at}");
        }
        // A text whose length is a multiple of the chunk size.
        let text = "é".repeat(CHUNK);
        assert_eq!(pos(&text, text.len()), (1, CHUNK + 1));
    }

    #[test]
    fn offsets_inside_a_character_or_past_the_end_clamp() {
        assert_eq!(pos("é", 1), (1, 1));
        assert_eq!(pos("ab", 99), (1, 3));
    }
}

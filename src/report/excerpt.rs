//! The part of a file that one diagnostic shows, cut out in time
//! proportional to what is shown rather than to the file.
//!
//! miette's own sources (`str`, `NamedSource`) find a label's lines by
//! scanning the file from its start for every label, which makes a report
//! quadratic in the diagnostics of a file, and they show a line whole: a
//! manifest of one 4 MiB line printed 4 MiB per diagnostic, and a column
//! past 65,535 made miette's padding panic. An [`Excerpt`] holds only the
//! lines the labels touch and one line of context around them, found with
//! the file's [`LineIndex`](crate::source::LineIndex) (built once per file,
//! shared by every diagnostic); a line longer than [`MAX_LINE_BYTES`] is
//! cut to windows around the labels' ends, joined by `…`; a label over more
//! than [`MAX_LABEL_LINES`] lines is shown by its first line; and every
//! hidden or control character is written as an escape
//! ([`super::terminal`]), so source text never acts on the terminal.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use std::fmt::Write as _;

use crate::source::hidden::hidden_chars_in;
use crate::source::{floor_char_boundary, SourceFile, Span};

/// Lines of context shown before and after a label (miette's default,
/// which the report keeps).
pub(super) const CONTEXT_LINES: usize = 1;

/// A line longer than this, in bytes, is cut around the labels.
pub(super) const MAX_LINE_BYTES: usize = 200;

/// Bytes kept on each side of a label's start and end on a cut line.
const WINDOW_BYTES: usize = 48;

/// A label over more lines than this is shown by its first line.
pub(super) const MAX_LABEL_LINES: usize = 12;

/// Labels this few lines apart (beyond their context) are shown in one
/// snippet with the lines between; farther apart, in snippets of their own.
const MAX_GAP_LINES: usize = 8;

const ELLIPSIS: &str = "…";

/// The lines of a file that a diagnostic's labels need, rewritten to be
/// safe and short, with the source line numbers they came from.
#[derive(Debug)]
pub(super) struct Excerpt {
    name: String,
    text: String,
    lines: Vec<Line>,
}

#[derive(Debug, Clone, Copy)]
struct Line {
    /// Where the line starts in the excerpt's text.
    start: usize,
    /// Its 0-based number in the file.
    number: usize,
    /// Lines with the same block number are consecutive in the file.
    block: usize,
}

/// A label's span in the excerpt, and how many lines it went on for when
/// it was cut to its first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Placed {
    pub span: Span,
    pub cut_lines: Option<usize>,
}

/// A run of the excerpt copied from the source (`verbatim`), or standing
/// for source text it does not copy (an escape, an elision, a line break).
#[derive(Debug, Clone, Copy)]
struct Run {
    source: usize,
    source_end: usize,
    excerpt: usize,
    verbatim: bool,
}

impl Excerpt {
    /// The excerpt of `source` for labels at `spans` (byte spans in the
    /// file), and each span placed in it.
    pub(super) fn new(source: &SourceFile, name: String, spans: &[Span]) -> (Excerpt, Vec<Placed>) {
        let builder = Builder::new(source);
        let (clamped, cut): (Vec<Span>, Vec<Option<usize>>) =
            spans.iter().map(|span| builder.clamp(*span)).unzip();
        let mut wanted: Vec<usize> = clamped
            .iter()
            .flat_map(|span| {
                let (first, last) = builder.lines_of(*span);
                let context_end = (last + CONTEXT_LINES).min(builder.last_context_line());
                first.saturating_sub(CONTEXT_LINES)..=context_end.max(last)
            })
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        let wanted = fill_small_gaps(&wanted);
        let points: Vec<usize> = clamped
            .iter()
            .flat_map(|span| [span.start, span.end])
            .collect();
        let (excerpt, runs) = builder.build(name, &wanted, &points);
        let placed = clamped
            .iter()
            .zip(cut)
            .map(|(span, cut_lines)| Placed {
                span: Span::new(map(&runs, span.start), map(&runs, span.end)),
                cut_lines,
            })
            .collect();
        (excerpt, placed)
    }

    /// The excerpt's text, for tests.
    #[cfg(test)]
    pub(super) fn text(&self) -> &str {
        &self.text
    }

    /// The index in `lines` of the line holding excerpt offset `at`.
    fn line_at(&self, at: usize) -> usize {
        self.lines
            .partition_point(|line| line.start <= at)
            .saturating_sub(1)
    }
}

/// `lines` (sorted, distinct) with every gap of at most
/// [`MAX_GAP_LINES`] filled in.
fn fill_small_gaps(lines: &[usize]) -> Vec<usize> {
    let mut filled = Vec::with_capacity(lines.len());
    for &line in lines {
        if let Some(&last) = filled.last() {
            if line > last + 1 && line - last - 1 <= MAX_GAP_LINES {
                filled.extend(last + 1..line);
            }
        }
        filled.push(line);
    }
    filled
}

/// The excerpt offset of source offset `at`.
fn map(runs: &[Run], at: usize) -> usize {
    let index = runs
        .partition_point(|run| run.source <= at)
        .saturating_sub(1);
    match runs.get(index) {
        Some(run) if run.verbatim => run.excerpt + (at.min(run.source_end) - run.source),
        Some(run) => run.excerpt,
        None => 0,
    }
}

struct Builder<'a> {
    source: &'a SourceFile,
}

impl<'a> Builder<'a> {
    fn new(source: &'a SourceFile) -> Self {
        Builder { source }
    }

    fn text(&self) -> &'a str {
        &self.source.text
    }

    /// The last line shown as context: the empty "line" after a final
    /// line break is shown only when a label is on it.
    fn last_context_line(&self) -> usize {
        let lines = self.source.line_index();
        let last = lines.line_count().saturating_sub(1);
        match lines.line_start(last) {
            Some(start) if last > 0 && start == self.text().len() => last - 1,
            _ => last,
        }
    }

    /// A span inside the text, on character boundaries; one over too many
    /// lines is cut to its first line's end, with the count of its lines.
    fn clamp(&self, span: Span) -> (Span, Option<usize>) {
        let text = self.text();
        let start = floor_char_boundary(text, span.start);
        let end = floor_char_boundary(text, span.end.max(start));
        let span = Span::new(start, end);
        let (first, last) = self.lines_of(span);
        if last - first < MAX_LABEL_LINES {
            return (span, None);
        }
        let (_, content_end, _) = self.line_bounds(first);
        (
            Span::new(start, content_end.max(start)),
            Some(last - first + 1),
        )
    }

    /// The first and last 0-based lines a span covers; a span that ends
    /// just after a line break ends on the line before.
    fn lines_of(&self, span: Span) -> (usize, usize) {
        let lines = self.source.line_index();
        let first = lines.line_of(span.start);
        let last = lines.line_of(span.end.saturating_sub(1).max(span.start));
        (first, last.max(first))
    }

    /// A line's start, the end of its content and the start of the next.
    fn line_bounds(&self, line: usize) -> (usize, usize, usize) {
        let lines = self.source.line_index();
        let bytes = self.text().as_bytes();
        let start = lines.line_start(line).unwrap_or(bytes.len());
        let next = lines.line_start(line + 1).unwrap_or(bytes.len());
        let mut end = next;
        if end > start && bytes[end - 1] == b'\n' {
            end -= 1;
        }
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        (start, end, next)
    }

    /// The excerpt of lines `wanted` (sorted, distinct), each long one cut
    /// around the `points` on it.
    fn build(&self, name: String, wanted: &[usize], points: &[usize]) -> (Excerpt, Vec<Run>) {
        let mut excerpt = Excerpt {
            name,
            text: String::new(),
            lines: Vec::with_capacity(wanted.len()),
        };
        let mut runs = Vec::new();
        let mut block = 0;
        for (index, &line) in wanted.iter().enumerate() {
            if index > 0 && wanted[index - 1] + 1 != line {
                block += 1;
            }
            excerpt.lines.push(Line {
                start: excerpt.text.len(),
                number: line,
                block,
            });
            let (start, end, next) = self.line_bounds(line);
            let on_line: Vec<usize> = points
                .iter()
                .copied()
                .filter(|&point| start <= point && point <= next)
                .collect();
            self.push_line(&mut excerpt.text, &mut runs, (start, end), &on_line);
            runs.push(Run {
                source: end,
                source_end: next,
                excerpt: excerpt.text.len(),
                verbatim: false,
            });
            excerpt.text.push('\n');
        }
        runs.sort_by_key(|run| run.source);
        (excerpt, runs)
    }

    /// One line's content: whole, or the windows around `points`.
    fn push_line(
        &self,
        out: &mut String,
        runs: &mut Vec<Run>,
        (start, end): (usize, usize),
        points: &[usize],
    ) {
        let text = self.text();
        if end - start <= MAX_LINE_BYTES {
            push_escaped(out, runs, text, start, end);
            return;
        }
        let mut windows: Vec<(usize, usize)> = if points.is_empty() {
            vec![(start, start + 2 * WINDOW_BYTES)]
        } else {
            points
                .iter()
                .map(|&point| {
                    let point = point.min(end);
                    (
                        point.saturating_sub(WINDOW_BYTES).max(start),
                        point + WINDOW_BYTES,
                    )
                })
                .collect()
        };
        windows.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(windows.len());
        for (from, to) in windows {
            let from = floor_char_boundary(text, from);
            let to = ceil_char_boundary(text, to.min(end));
            match merged.last_mut() {
                Some(last) if from <= last.1 + ELLIPSIS.len() => last.1 = last.1.max(to),
                _ => merged.push((from, to)),
            }
        }
        let mut copied = start;
        for (from, to) in merged {
            if from > copied {
                runs.push(Run {
                    source: copied,
                    source_end: from,
                    excerpt: out.len(),
                    verbatim: false,
                });
                out.push_str(ELLIPSIS);
            }
            push_escaped(out, runs, text, from, to);
            copied = to;
        }
        if copied < end {
            runs.push(Run {
                source: copied,
                source_end: end,
                excerpt: out.len(),
                verbatim: false,
            });
            out.push_str(ELLIPSIS);
        }
    }
}

/// Copies `text[start..end]`, escaping hidden and control characters (a
/// line's content holds no line break: a carriage return ends a line).
fn push_escaped(out: &mut String, runs: &mut Vec<Run>, text: &str, start: usize, end: usize) {
    let plain = text.as_bytes()[start..end]
        .iter()
        .all(|&byte| (b' '..0x7f).contains(&byte) || byte == b'\t');
    if plain {
        runs.push(Run {
            source: start,
            source_end: end,
            excerpt: out.len(),
            verbatim: true,
        });
        out.push_str(&text[start..end]);
        return;
    }
    let mut copied = start;
    for (at, c, _) in hidden_chars_in(text, start..end) {
        if at > copied {
            runs.push(Run {
                source: copied,
                source_end: at,
                excerpt: out.len(),
                verbatim: true,
            });
            out.push_str(&text[copied..at]);
        }
        runs.push(Run {
            source: at,
            source_end: at + c.len_utf8(),
            excerpt: out.len(),
            verbatim: false,
        });
        let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        copied = at + c.len_utf8();
    }
    if copied < end || start == end {
        runs.push(Run {
            source: copied,
            source_end: end,
            excerpt: out.len(),
            verbatim: true,
        });
        out.push_str(&text[copied..end]);
    }
}

/// The smallest character boundary at or after `offset`.
fn ceil_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset += 1;
    }
    offset
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let start = span.offset();
        let end = start + span.len();
        if end > self.text.len() || self.lines.is_empty() {
            return Err(MietteError::OutOfBounds);
        }
        let first_line = self.line_at(start);
        let last_line = self.line_at(end.saturating_sub(1).max(start));
        let block = self.lines[first_line].block;
        let mut first = first_line;
        for _ in 0..context_lines_before {
            match first.checked_sub(1) {
                Some(before) if self.lines[before].block == block => first = before,
                _ => break,
            }
        }
        let block = self.lines[last_line].block;
        let mut last = last_line;
        for _ in 0..context_lines_after {
            match self.lines.get(last + 1) {
                Some(after) if after.block == block => last += 1,
                _ => break,
            }
        }
        let data_start = self.lines[first].start;
        let data_end = self
            .lines
            .get(last + 1)
            .map_or(self.text.len(), |line| line.start);
        // miette shows two labels in one snippet when the first's line
        // count reaches the second's line: counting to the end of the
        // block makes exactly the labels of one block share a snippet.
        let block_end = self.lines[last..]
            .iter()
            .take_while(|line| line.block == block)
            .count()
            + last;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            &self.text.as_bytes()[data_start..data_end],
            (data_start, data_end - data_start).into(),
            self.lines[first].number,
            0,
            block_end - first,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excerpt(text: &str, spans: &[Span]) -> (String, Vec<String>) {
        let source = SourceFile::new("t", text);
        let (excerpt, placed) = Excerpt::new(&source, "t".into(), spans);
        let marked = placed
            .iter()
            .map(|placed| excerpt.text()[placed.span.range()].to_string())
            .collect();
        (excerpt.text().to_string(), marked)
    }

    #[test]
    fn short_lines_are_kept_with_one_line_of_context() {
        let text = "one\ntwo\nthree\nfour\nfive\n";
        let (shown, marked) = excerpt(text, &[Span::new(8, 13)]);
        assert_eq!(shown, "two\nthree\nfour\n");
        assert_eq!(marked, ["three"]);
    }

    #[test]
    fn a_long_line_is_cut_around_the_labels() {
        let text = format!("{}]{}\n", " ".repeat(70_000), "x".repeat(70_000));
        let (shown, marked) = excerpt(&text, &[Span::new(70_000, 70_001)]);
        assert!(shown.len() < 2 * MAX_LINE_BYTES, "{}", shown.len());
        assert!(
            shown.starts_with(ELLIPSIS) && shown.ends_with("…\n"),
            "{shown}"
        );
        assert_eq!(marked, ["]"]);
    }

    #[test]
    fn labels_far_apart_on_one_line_each_keep_a_window() {
        let text = format!("a{}b{}c", "-".repeat(1000), "-".repeat(1000));
        let (shown, marked) = excerpt(
            &text,
            &[
                Span::new(0, 1),
                Span::new(1001, 1002),
                Span::new(2002, 2003),
            ],
        );
        assert_eq!(marked, ["a", "b", "c"]);
        assert_eq!(shown.matches(ELLIPSIS).count(), 2, "{shown}");
    }

    #[test]
    fn control_characters_are_escaped_and_labels_still_fit() {
        let text = "body \"\u{1b}[8msecret\u{1b}[2K\u{202e}shown\"\n";
        let (shown, marked) = excerpt(text, &[Span::new(5, text.len() - 1)]);
        assert_eq!(shown, "body \"\\u{1b}[8msecret\\u{1b}[2K\\u{202e}shown\"\n");
        assert_eq!(marked, ["\"\\u{1b}[8msecret\\u{1b}[2K\\u{202e}shown\""]);
        // A lone carriage return ends a line, as everywhere in positions.
        let (shown, _) = excerpt("a\rb\n", &[Span::new(2, 3)]);
        assert_eq!(shown, "a\nb\n");
    }

    #[test]
    fn a_label_over_many_lines_is_shown_by_its_first() {
        let text = "a {\n".to_string() + &"  x\n".repeat(100) + "}\n";
        let source = SourceFile::new("t", text.as_str());
        let (excerpt, placed) = Excerpt::new(&source, "t".into(), &[Span::new(0, text.len() - 1)]);
        assert_eq!(placed[0].cut_lines, Some(102));
        assert_eq!(excerpt.text(), "a {\n  x\n");
    }

    #[test]
    fn crlf_and_the_end_of_the_file() {
        let (shown, marked) = excerpt("a\r\nb", &[Span::new(3, 4), Span::new(4, 4)]);
        assert_eq!(shown, "a\nb\n");
        assert_eq!(marked, ["b", ""]);
    }
}

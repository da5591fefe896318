//! Diagnostics for people: miette's graphical report, with the source
//! snippet, every label and the help.
//!
//! The snippet is an `Excerpt`: only the lines the labels touch, found
//! through the file's line index, long lines cut around the labels and
//! control characters escaped, so a report costs the same per diagnostic
//! however large the file, never panics on a long line, and never lets a
//! manifest's text act on the terminal. Messages, labels and help carry
//! user input too, and are escaped the same way.

use std::fmt;
use std::io::{self, Write};

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan};
use rayon::prelude::*;

use super::excerpt::{Excerpt, CONTEXT_LINES};
use super::terminal::visible;
use super::{Emitter, Totals};
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::{SourceFile, Span};

/// Diagnostics in one file from which they are rendered in parallel.
const PARALLEL_FROM: usize = 64;

/// The graphical report, coloured or not.
pub struct Human {
    handler: GraphicalReportHandler,
}

/// How the report is drawn: the CLI decides from `--color`, the terminal
/// and `COLUMNS`; tests use [`Style::default`], which never changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
    /// Where prose (messages, labels, help) wraps, in columns.
    pub width: usize,
}

impl Style {
    /// The width when neither `COLUMNS` nor a terminal says.
    pub const DEFAULT_WIDTH: usize = 100;
    /// Narrower than this, the source snippet itself no longer fits.
    pub const MIN_WIDTH: usize = 40;
}

impl Default for Style {
    fn default() -> Self {
        Style {
            color: false,
            width: Style::DEFAULT_WIDTH,
        }
    }
}

impl Human {
    /// Colour only when asked for, at the default width.
    pub fn new(color: bool) -> Self {
        Human::styled(Style {
            color,
            ..Style::default()
        })
    }

    pub fn styled(style: Style) -> Self {
        let theme = if style.color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        Human {
            // miette counts the header's column in bytes; the position is
            // written into the source name instead, in characters, as the
            // JSON output and editors count it.
            handler: GraphicalReportHandler::new_themed(theme)
                .with_width(style.width)
                .with_links(false)
                .without_primary_span_start()
                // A code span is copied and pasted (a suppression comment,
                // a field to add): it never breaks across lines, however
                // long it is.
                .with_word_separator(textwrap::WordSeparator::Custom(code_span_words))
                .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
                .with_break_words(false)
                .with_context_lines(CONTEXT_LINES),
        }
    }

    /// One diagnostic as text, for tests and the language server's hover.
    pub fn render(&self, source: &SourceFile, diagnostic: &Diagnostic) -> String {
        let view = View::new(source, diagnostic);
        let mut text = String::new();
        if self.handler.render_report(&mut text, &view).is_err() {
            text = format!("{}: {}\n", diagnostic.rule.code, diagnostic.message);
        }
        text
    }
}

impl Emitter for Human {
    fn file(
        &mut self,
        out: &mut dyn Write,
        source: &SourceFile,
        diagnostics: &[Diagnostic],
    ) -> io::Result<()> {
        // Each diagnostic renders on its own, so a file with many renders
        // them in parallel, as the check itself runs, and writes them in
        // order.
        if diagnostics.len() < PARALLEL_FROM {
            for diagnostic in diagnostics {
                writeln!(out, "{}", self.render(source, diagnostic))?;
            }
            return Ok(());
        }
        let rendered: Vec<String> = diagnostics
            .par_iter()
            .map(|diagnostic| self.render(source, diagnostic))
            .collect();
        for text in rendered {
            writeln!(out, "{text}")?;
        }
        Ok(())
    }

    /// The closing count is status, not result: the CLI writes
    /// [`Totals::summary`] to standard error.
    fn finish(&mut self, _out: &mut dyn Write, _totals: Totals) -> io::Result<()> {
        Ok(())
    }
}

/// Splits a line into words at spaces, except inside a `code span`, which
/// stays one word.
fn code_span_words(line: &str) -> Box<dyn Iterator<Item = textwrap::core::Word<'_>> + '_> {
    let mut words = Vec::new();
    let mut start = 0;
    let mut in_code = false;
    let bytes = line.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'`' => in_code = !in_code,
            b' ' if !in_code => {
                // The word runs to here; its trailing spaces go with it.
                let mut end = index;
                while end < bytes.len() && bytes[end] == b' ' {
                    end += 1;
                }
                words.push(textwrap::core::Word::from(&line[start..end]));
                start = end;
                index = end;
                continue;
            }
            _ => {}
        }
        index += 1;
    }
    if start < line.len() {
        words.push(textwrap::core::Word::from(&line[start..]));
    }
    Box::new(words.into_iter())
}

/// A diagnostic seen through miette's eyes.
struct View {
    code: String,
    message: String,
    severity: Severity,
    help: Option<String>,
    labels: Vec<LabeledSpan>,
    source: Excerpt,
}

impl View {
    fn new(source: &SourceFile, diagnostic: &Diagnostic) -> Self {
        let spans: Vec<Span> = diagnostic.labels.iter().map(|label| label.span).collect();
        let name = visible(&located_name(source, diagnostic)).into_owned();
        let (excerpt, placed) = Excerpt::new(source, name, &spans);
        let labels = diagnostic
            .labels
            .iter()
            .zip(placed)
            .map(|(label, placed)| {
                let mut text = visible(&label.message).into_owned();
                if let Some(lines) = placed.cut_lines {
                    let sep = if text.is_empty() { "" } else { " " };
                    text = format!("{text}{sep}(over {lines} lines)");
                }
                let text = (!text.is_empty()).then_some(text);
                let span = (placed.span.start, placed.span.len());
                if label.primary {
                    LabeledSpan::new_primary_with_span(text, span)
                } else {
                    LabeledSpan::new_with_span(text, span)
                }
            })
            .collect();
        View {
            code: format!("{}({})", diagnostic.rule.name, diagnostic.rule.code),
            message: visible(&diagnostic.message).into_owned(),
            severity: diagnostic.severity,
            help: diagnostic
                .help
                .as_deref()
                .map(|help| visible(help).into_owned()),
            labels,
            source: excerpt,
        }
    }
}

/// `file:line:column` of the diagnostic's primary span, columns counted in
/// characters; the bare name when the diagnostic has no label.
fn located_name(source: &SourceFile, diagnostic: &Diagnostic) -> String {
    if diagnostic.labels.is_empty() {
        return source.name.clone();
    }
    let position = source.position(diagnostic.span().start);
    format!("{}:{}:{}", source.name, position.line, position.column)
}

impl fmt::Debug for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for View {}

impl miette::Diagnostic for View {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|help| Box::new(help) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
}

//! Diagnostics out: one [`Emitter`] per output format.
//!
//! The CLI hands each checked file to the emitter in a deterministic order
//! as soon as it is ready, then calls [`Emitter::finish`] with the totals.
//! Formats that stream (human, GitHub annotations) write per file; formats
//! that are one document (JSON, SARIF) collect and write at the end.

mod excerpt;
pub mod github;
pub mod human;
pub mod json;
pub mod sarif;
pub use contrib_core::terminal;

use std::io::{self, Write};

use crate::diagnostic::{Diagnostic, Severity};
use crate::source::SourceFile;

/// Counts over a whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Files left out of the check, whole or in part (`not-checked`).
    pub left_out: usize,
}

impl Totals {
    pub fn add(&mut self, diagnostics: &[Diagnostic]) {
        self.files += 1;
        if diagnostics
            .iter()
            .any(|diagnostic| diagnostic.rule.code == crate::codes::NOT_CHECKED.code)
        {
            self.left_out += 1;
        }
        for diagnostic in diagnostics {
            match diagnostic.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
        }
    }
}

impl Totals {
    /// The closing line of a run: `checked 3 files: 1 error, 0 warnings`,
    /// and how many of them were left out (`checked 3 files (1 left out, in
    /// part or whole): …`) when any were.
    pub fn summary(&self) -> String {
        let mut files = plural(self.files, "file");
        if self.left_out > 0 {
            files.push_str(&format!(" ({} left out, in part or whole)", self.left_out));
        }
        match (self.errors, self.warnings) {
            (0, 0) => format!("checked {files}: no problems"),
            (errors, warnings) => format!(
                "checked {files}: {}, {}",
                plural(errors, "error"),
                plural(warnings, "warning")
            ),
        }
    }
}

/// `1 file`, `2 files`.
pub fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// Writes diagnostics in one format.
pub trait Emitter {
    /// One file's diagnostics, sorted by position.
    fn file(
        &mut self,
        out: &mut dyn Write,
        source: &SourceFile,
        diagnostics: &[Diagnostic],
    ) -> io::Result<()>;

    /// The end of the run.
    fn finish(&mut self, out: &mut dyn Write, totals: Totals) -> io::Result<()>;
}

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// The graphical report, for people.
    Human,
    /// One JSON document.
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions annotations.
    Github,
}

/// The emitter for `format`; `style` applies to the human format only.
pub fn emitter(format: Format, style: human::Style) -> Box<dyn Emitter> {
    match format {
        Format::Human => Box::new(human::Human::styled(style)),
        Format::Json => Box::new(json::Json::default()),
        Format::Sarif => Box::new(sarif::Sarif::default()),
        Format::Github => Box::new(github::Github),
    }
}

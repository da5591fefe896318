//! One JSON document for the whole run:
//! `{"files", "errors", "warnings", "diagnostics": [...]}` with 1-based
//! lines and columns (columns count characters).

use std::io::{self, Write};

use serde::Serialize;

use super::{Emitter, Totals};
use crate::diagnostic::{Applicability, Diagnostic};
use crate::source::SourceFile;

#[derive(Default)]
pub struct Json {
    diagnostics: Vec<JsonDiagnostic>,
}

#[derive(Serialize)]
struct JsonDiagnostic {
    file: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    severity: &'static str,
    code: &'static str,
    name: &'static str,
    message: String,
    help: Option<String>,
    labels: Vec<JsonLabel>,
    fixes: Vec<JsonFix>,
}

#[derive(Serialize)]
struct JsonLabel {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: String,
    primary: bool,
}

#[derive(Serialize)]
struct JsonFix {
    title: String,
    applicability: Applicability,
    edits: Vec<JsonEdit>,
}

#[derive(Serialize)]
struct JsonEdit {
    start: usize,
    end: usize,
    replacement: String,
}

#[derive(Serialize)]
struct Document<'a> {
    files: usize,
    errors: usize,
    warnings: usize,
    /// Files left out of the check, whole or in part: written when any were.
    #[serde(skip_serializing_if = "is_zero")]
    left_out: usize,
    diagnostics: &'a [JsonDiagnostic],
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

impl JsonDiagnostic {
    fn new(source: &SourceFile, diagnostic: &Diagnostic) -> Self {
        let span = diagnostic.span();
        let start = source.position(span.start);
        let end = source.position(span.end);
        JsonDiagnostic {
            file: source.name.clone(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
            severity: diagnostic.severity.as_str(),
            code: diagnostic.rule.code,
            name: diagnostic.rule.name,
            message: diagnostic.message.clone(),
            help: diagnostic.help.clone(),
            labels: diagnostic
                .labels
                .iter()
                .map(|label| {
                    let start = source.position(label.span.start);
                    let end = source.position(label.span.end);
                    JsonLabel {
                        line: start.line,
                        column: start.column,
                        end_line: end.line,
                        end_column: end.column,
                        message: label.message.clone(),
                        primary: label.primary,
                    }
                })
                .collect(),
            fixes: diagnostic
                .fixes
                .iter()
                .map(|fix| JsonFix {
                    title: fix.title.clone(),
                    applicability: fix.applicability,
                    edits: fix
                        .edits
                        .iter()
                        .map(|edit| JsonEdit {
                            start: edit.span.start,
                            end: edit.span.end,
                            replacement: edit.replacement.clone(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

impl Emitter for Json {
    fn file(
        &mut self,
        _out: &mut dyn Write,
        source: &SourceFile,
        diagnostics: &[Diagnostic],
    ) -> io::Result<()> {
        self.diagnostics.extend(
            diagnostics
                .iter()
                .map(|diagnostic| JsonDiagnostic::new(source, diagnostic)),
        );
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, totals: Totals) -> io::Result<()> {
        let document = Document {
            files: totals.files,
            errors: totals.errors,
            warnings: totals.warnings,
            left_out: totals.left_out,
            diagnostics: &self.diagnostics,
        };
        serde_json::to_writer_pretty(&mut *out, &document)?;
        writeln!(out)
    }
}

/// The document `contrib check --format json` writes for one file, as a
/// string: for tests, and for tools that check one buffer at a time.
pub fn render(source: &SourceFile, diagnostics: &[Diagnostic]) -> String {
    let mut totals = Totals::default();
    totals.add(diagnostics);
    let mut json = Json::default();
    let mut out = Vec::new();
    // Writing to a `Vec` does not fail, and serde_json writes UTF-8.
    let _ = json
        .file(&mut out, source, diagnostics)
        .and_then(|()| json.finish(&mut out, totals));
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::UNKNOWN_FIELD;
    use crate::source::Span;

    #[test]
    fn one_file_renders_the_whole_document() {
        let source = SourceFile::new("a.contrib", "ab\ncdé f");
        let diagnostic = Diagnostic::new(&UNKNOWN_FIELD, "unknown field `f`")
            .primary(Span::new(8, 9), "not a field here");
        let document: serde_json::Value =
            serde_json::from_str(&render(&source, &[diagnostic])).unwrap();
        assert_eq!(document["files"], 1);
        assert_eq!(document["errors"], 1);
        assert_eq!(document["warnings"], 0);
        let first = &document["diagnostics"][0];
        assert_eq!(
            (first["line"].as_u64(), first["column"].as_u64()),
            (Some(2), Some(5))
        );
        assert_eq!(
            (first["end_line"].as_u64(), first["end_column"].as_u64()),
            (Some(2), Some(6))
        );
        assert_eq!(first["name"], "unknown-field");
    }
}

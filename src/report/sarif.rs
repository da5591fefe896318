//! SARIF 2.1.0, as GitHub code scanning reads it: one run, the tool's
//! rules with their descriptions and help, one result per diagnostic with a
//! region in 1-based lines and columns (counted in Unicode code points, as
//! the run's `columnKind` says). Paths are URI references, percent-encoded
//! (a space or `#` in a folder's name would otherwise break them).

use std::io::{self, Write};

use serde_json::{json, Value};

use super::{Emitter, Totals};
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::SourceFile;

#[derive(Default)]
pub struct Sarif {
    results: Vec<Value>,
}

impl Sarif {
    fn result(source: &SourceFile, diagnostic: &Diagnostic) -> Value {
        let rule_index = crate::rules::all()
            .iter()
            .position(|rule| std::ptr::eq(*rule, diagnostic.rule))
            .unwrap_or(0);
        let mut message = diagnostic.message.clone();
        if let Some(help) = &diagnostic.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let related: Vec<Value> = diagnostic
            .labels
            .iter()
            .filter(|label| !label.primary)
            .enumerate()
            .map(|(id, label)| {
                json!({
                    "id": id,
                    "message": { "text": label.message },
                    "physicalLocation": location(source, label.span),
                })
            })
            .collect();
        let mut result = json!({
            "ruleId": diagnostic.rule.code,
            "ruleIndex": rule_index,
            "level": match diagnostic.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            },
            "message": { "text": message },
            "locations": [{ "physicalLocation": location(source, diagnostic.span()) }],
        });
        if !related.is_empty() {
            result["relatedLocations"] = Value::Array(related);
        }
        result
    }
}

fn location(source: &SourceFile, span: crate::source::Span) -> Value {
    let start = source.position(span.start);
    let end = source.position(span.end.max(span.start));
    json!({
        "artifactLocation": { "uri": crate::uri::reference(&source.name) },
        "region": {
            "startLine": start.line,
            "startColumn": start.column,
            "endLine": end.line,
            "endColumn": end.column,
        }
    })
}

fn rules() -> Vec<Value> {
    crate::rules::all()
        .iter()
        .map(|rule| {
            json!({
                "id": rule.code,
                "name": rule.name,
                "shortDescription": { "text": rule.summary },
                "fullDescription": { "text": rule.summary },
                "help": { "text": rule.explanation.trim(), "markdown": rule.explanation.trim() },
                "defaultConfiguration": {
                    "level": match rule.default_level {
                        crate::diagnostic::Level::Allow => "none",
                        crate::diagnostic::Level::Warn => "warning",
                        crate::diagnostic::Level::Deny => "error",
                    }
                },
                "properties": { "tags": [rule.kind.as_str()] },
            })
        })
        .collect()
}

impl Emitter for Sarif {
    fn file(
        &mut self,
        _out: &mut dyn Write,
        source: &SourceFile,
        diagnostics: &[Diagnostic],
    ) -> io::Result<()> {
        self.results.extend(
            diagnostics
                .iter()
                .map(|diagnostic| Sarif::result(source, diagnostic)),
        );
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, _totals: Totals) -> io::Result<()> {
        let document = json!({
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{
                "tool": {
                    "driver": {
                        "name": "contrib",
                        "version": env!("CARGO_PKG_VERSION"),
                        "informationUri": "https://github.com/contrib-lang/contrib",
                        "rules": rules(),
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": std::mem::take(&mut self.results),
            }]
        });
        serde_json::to_writer_pretty(&mut *out, &document)?;
        writeln!(out)
    }
}

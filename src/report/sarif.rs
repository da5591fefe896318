//! SARIF 2.1.0, as GitHub code scanning reads it: one run, the tool's
//! rules with their descriptions and help, one result per diagnostic with a
//! region in 1-based lines and columns (counted in Unicode code points, as
//! the run's `columnKind` says). Paths are URI references, percent-encoded
//! (a space or `#` in a folder's name would otherwise break them).
//!
//! The document is streamed: its head (the tool and its rules) is written
//! with the first file, each result as its file arrives, one result a
//! line, and the closing brackets at the end. Nothing is held but whether
//! a result was written yet, so a catalog with thousands of findings costs
//! no more memory than one with none, and every result is written from
//! typed structures borrowing the diagnostic rather than a tree of values.

use std::borrow::Cow;
use std::io::{self, Write};

use serde::Serialize;

use super::{Emitter, Totals};
use crate::diagnostic::{Diagnostic, Level, Severity};
use crate::source::{SourceFile, Span};

/// Where the document is: nothing written yet, its head written, or a
/// result written (the next one needs a comma).
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Written {
    #[default]
    Nothing,
    Head,
    Results,
}

#[derive(Default)]
pub struct Sarif {
    written: Written,
}

#[derive(Serialize)]
struct Text<'a> {
    text: Cow<'a, str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text<'a>,
    locations: [Location<'a>; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Related<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location<'a> {
    physical_location: Physical<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Related<'a> {
    id: usize,
    message: Text<'a>,
    physical_location: Physical<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Physical<'a> {
    artifact_location: Artifact<'a>,
    region: Region,
}

#[derive(Serialize)]
struct Artifact<'a> {
    uri: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    information_uri: &'static str,
    rules: Vec<RuleDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleDescriptor {
    id: &'static str,
    name: &'static str,
    short_description: Text<'static>,
    full_description: Text<'static>,
    help: Help,
    default_configuration: Configuration,
    properties: Properties,
}

#[derive(Serialize)]
struct Help {
    text: &'static str,
    markdown: &'static str,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct Properties {
    tags: [&'static str; 1],
}

impl Sarif {
    /// The document up to the opening of `results`.
    fn head(out: &mut dyn Write) -> io::Result<()> {
        out.write_all(
            b"{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n  \"runs\": [{\n    \"tool\": {\"driver\": ",
        )?;
        serde_json::to_writer(&mut *out, &driver())?;
        out.write_all(b"},\n    \"columnKind\": \"unicodeCodePoints\",\n    \"results\": [")
    }

    fn ensure_head(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.written == Written::Nothing {
            Sarif::head(out)?;
            self.written = Written::Head;
        }
        Ok(())
    }
}

fn driver() -> Driver {
    Driver {
        name: "contrib",
        version: env!("CARGO_PKG_VERSION"),
        information_uri: "https://github.com/contrib-lang/contrib",
        rules: crate::codes::all()
            .iter()
            .map(|rule| RuleDescriptor {
                id: rule.code,
                name: rule.name,
                short_description: Text {
                    text: Cow::Borrowed(rule.summary),
                },
                full_description: Text {
                    text: Cow::Borrowed(rule.summary),
                },
                help: Help {
                    text: rule.explanation.trim(),
                    markdown: rule.explanation.trim(),
                },
                default_configuration: Configuration {
                    level: match rule.default_level {
                        Level::Allow => "none",
                        Level::Warn => "warning",
                        Level::Deny => "error",
                    },
                },
                properties: Properties {
                    tags: [rule.kind.as_str()],
                },
            })
            .collect(),
    }
}

fn result<'a>(source: &SourceFile, uri: &'a str, diagnostic: &'a Diagnostic) -> SarifResult<'a> {
    let rule_index = crate::codes::all()
        .iter()
        .position(|rule| std::ptr::eq(*rule, diagnostic.rule))
        .unwrap_or(0);
    let message = match &diagnostic.help {
        Some(help) => Cow::Owned(format!("{}\nhelp: {help}", diagnostic.message)),
        None => Cow::Borrowed(diagnostic.message.as_str()),
    };
    let related_locations = diagnostic
        .labels
        .iter()
        .filter(|label| !label.primary)
        .enumerate()
        .map(|(id, label)| Related {
            id,
            message: Text {
                text: Cow::Borrowed(label.message.as_str()),
            },
            physical_location: physical(source, uri, label.span),
        })
        .collect();
    SarifResult {
        rule_id: diagnostic.rule.code,
        rule_index,
        level: match diagnostic.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        message: Text { text: message },
        locations: [Location {
            physical_location: physical(source, uri, diagnostic.span()),
        }],
        related_locations,
    }
}

fn physical<'a>(source: &SourceFile, uri: &'a str, span: Span) -> Physical<'a> {
    let start = source.position(span.start);
    let end = source.position(span.end.max(span.start));
    Physical {
        artifact_location: Artifact { uri },
        region: Region {
            start_line: start.line,
            start_column: start.column,
            end_line: end.line,
            end_column: end.column,
        },
    }
}

impl Emitter for Sarif {
    fn file(
        &mut self,
        out: &mut dyn Write,
        source: &SourceFile,
        diagnostics: &[Diagnostic],
    ) -> io::Result<()> {
        if diagnostics.is_empty() {
            return Ok(());
        }
        self.ensure_head(out)?;
        let uri = crate::uri::reference(&source.name);
        for diagnostic in diagnostics {
            let separator: &[u8] = match self.written {
                Written::Results => b",\n      ",
                _ => b"\n      ",
            };
            out.write_all(separator)?;
            serde_json::to_writer(&mut *out, &result(source, &uri, diagnostic))?;
            self.written = Written::Results;
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write, _totals: Totals) -> io::Result<()> {
        self.ensure_head(out)?;
        let close: &[u8] = match self.written {
            Written::Results => b"\n    ]\n  }]\n}\n",
            _ => b"]\n  }]\n}\n",
        };
        out.write_all(close)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emitted(files: &[(&str, &str, Vec<Diagnostic>)]) -> serde_json::Value {
        let mut sarif = Sarif::default();
        let mut out = Vec::new();
        for (name, text, diagnostics) in files {
            let source = SourceFile::new(*name, *text);
            sarif.file(&mut out, &source, diagnostics).expect("written");
        }
        sarif.finish(&mut out, Totals::default()).expect("finished");
        serde_json::from_slice(&out).expect("one JSON document")
    }

    fn finding(rule: &'static crate::diagnostic::Rule, span: Span) -> Diagnostic {
        Diagnostic::new(rule, "a finding")
            .primary(span, "here")
            .secondary(Span::new(0, 1), "and here")
            .help("do this")
    }

    #[test]
    fn results_stream_into_one_document_in_order_with_their_rule_and_regions() {
        let rule = crate::codes::all()[3];
        let document = emitted(&[
            (
                "a b.contrib",
                "plugin\nx",
                vec![finding(rule, Span::new(7, 8))],
            ),
            ("clean.contrib", "", Vec::new()),
            ("c.contrib", "yz", vec![finding(rule, Span::new(1, 2))]),
        ]);
        let run = &document["runs"][0];
        assert_eq!(document["version"], "2.1.0");
        assert_eq!(run["columnKind"], "unicodeCodePoints");
        assert_eq!(
            run["tool"]["driver"]["rules"].as_array().map(Vec::len),
            Some(crate::codes::all().len())
        );
        let results = run["results"].as_array().expect("results");
        assert_eq!(results.len(), 2);
        assert_eq!(results[0]["ruleId"], rule.code);
        assert_eq!(results[0]["ruleIndex"], 3);
        assert_eq!(results[0]["message"]["text"], "a finding\nhelp: do this");
        let location = &results[0]["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], "a%20b.contrib");
        assert_eq!(location["region"]["startLine"], 2);
        assert_eq!(location["region"]["startColumn"], 1);
        assert_eq!(
            results[0]["relatedLocations"][0]["message"]["text"],
            "and here"
        );
        assert_eq!(
            results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "c.contrib"
        );
    }

    #[test]
    fn a_run_without_findings_is_a_whole_document_with_no_results() {
        let document = emitted(&[("clean.contrib", "", Vec::new())]);
        assert_eq!(document["runs"][0]["results"], serde_json::json!([]));
    }
}

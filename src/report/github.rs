//! GitHub Actions workflow commands: one `::error` or `::warning` line per
//! diagnostic, which GitHub shows as an annotation on the line.

use std::io::{self, Write};

use super::{Emitter, Totals};
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::SourceFile;

#[derive(Default)]
pub struct Github;

/// Escapes a command's message, as the runner expects; control characters
/// are shown as escapes, since the log viewer obeys terminal sequences.
fn escape_data(text: &str) -> String {
    super::terminal::visible(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command's property value.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

impl Emitter for Github {
    fn file(
        &mut self,
        out: &mut dyn Write,
        source: &SourceFile,
        diagnostics: &[Diagnostic],
    ) -> io::Result<()> {
        for diagnostic in diagnostics {
            let span = diagnostic.span();
            let start = source.position(span.start);
            let end = source.position(span.end.max(span.start));
            let command = match diagnostic.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let mut message = diagnostic.message.clone();
            if let Some(help) = &diagnostic.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            writeln!(
                out,
                "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
                escape_property(&source.name),
                start.line,
                start.column,
                end.line,
                end.column,
                escape_property(&format!(
                    "{} ({})",
                    diagnostic.rule.name, diagnostic.rule.code
                )),
                escape_data(&message),
            )?;
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut dyn Write, _totals: Totals) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_the_runner_expects() {
        assert_eq!(escape_data("50% done\nnext"), "50%25 done%0Anext");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
        // The log viewer obeys terminal sequences: they are shown instead.
        assert_eq!(escape_data("a\u{1b}[2Kb"), "a\\u{1b}[2Kb");
    }
}

use super::prelude::*;
use crate::source::hidden::{hidden_chars, Hidden};
use crate::source::SourceFile;

pub use crate::rules::HIDDEN_CHARACTER as RULE;

/// Checks the manifest's text as written. Runs on the source rather than
/// the plugin: comments and every other part of the file count, and what
/// a string's escapes produce is visible in the source by definition.
pub fn check_text(source: &SourceFile, out: &mut Vec<Diagnostic>) {
    let text = &source.text;
    let mut found = hidden_chars(text).peekable();
    while let Some((start, first, kind)) = found.next() {
        // A run of adjacent hidden characters is one finding.
        let mut end = start + first.len_utf8();
        let mut count = 1;
        while let Some(&(next, c, _)) = found.peek() {
            if next != end {
                break;
            }
            end = next + c.len_utf8();
            count += 1;
            found.next();
        }
        out.push(diagnostic(text, Span::new(start, end), first, kind, count));
    }
}

fn diagnostic(text: &str, span: Span, first: char, kind: Hidden, count: usize) -> Diagnostic {
    let shown = escape(first);
    let message = if count == 1 {
        format!("this text holds {}, `{shown}`", kind.describe())
    } else {
        format!(
            "this text holds {count} hidden characters in a row, the first {}, `{shown}`",
            kind.describe()
        )
    };
    let label = match kind {
        Hidden::Control => "acts on terminals, shown as nothing",
        Hidden::Bidi => "reorders the text around it when shown",
        Hidden::Invisible => "shown as nothing",
        Hidden::Tag => "invisible letters that models read",
    };
    let escaped: String = text[span.range()].chars().map(escape).collect();
    Diagnostic::new(&RULE, message)
        .primary(span, label)
        .help(format!(
            "delete it; if it is meant, write it as an escape (`{shown}`) so that reviewers and the approval screen show it"
        ))
        .fix(Fix::replace(
            if count == 1 {
                "Write it as an escape".to_string()
            } else {
                format!("Write the {count} characters as escapes")
            },
            // In a string the escape decodes to the same character and in
            // a comment it changes nothing; anywhere else it changes a
            // word, so the fix is applied only when asked for.
            Applicability::Unsafe,
            span,
            escaped,
        ))
}

/// `\u{202e}`: the language's escape for `c`.
fn escape(c: char) -> String {
    format!("\\u{{{:x}}}", u32::from(c))
}

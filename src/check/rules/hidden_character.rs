use super::prelude::*;
use crate::source::hidden::{hidden_chars, Hidden};
use crate::source::SourceFile;

pub static RULE: Rule = Rule {
    code: "C0126",
    name: "hidden-character",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "the manifest holds a control, bidirectional, zero-width or tag character",
    explanation: r#"
## What it does
Reports, anywhere in a manifest (bodies, names, comments), a character that
changes what a person sees without showing itself:

- control characters other than tab and line endings (`\u{1b}` starts the
  escape sequences terminals obey), and DEL;
- bidirectional controls (`\u{202e}` and the other embeddings, overrides,
  isolates and marks), which reorder what is drawn;
- zero-width and invisible characters (`\u{200b}`, the word joiner, a
  byte-order mark inside the text, Hangul fillers, …);
- Unicode tag characters (`\u{e0000}`–`\u{e007f}`), invisible letters that
  models read.

The zero-width joiner and non-joiner are text between two non-ASCII
characters (Persian, the Indic scripts, emoji sequences) and are reported
only where they join ASCII or nothing. A byte-order mark at the very start
of the file is its encoding mark, not text.

## Why is this bad?
A manifest is read twice: by the model, which receives every character,
and by people — a reviewer in a diff, the person approving it on the
`contrib preview` screen. These characters make the two readings differ.
An escape sequence in a body can erase the line before it on a terminal
(`\u{1b}[2K`), a right-to-left override makes code or prose read
differently from what it says ("Trojan Source", CVE-2021-42574), and tag
characters spell out instructions no one sees. Whatever the reason they
are there, the person approving cannot see them.

## Example
```
text greeting {
    placement agent
    budget 20 tokens
    body "Be brief.<U+E0049><U+E0067><U+E006E>…"
}
```
Delete the characters, or, when one is meant (a right-to-left mark in
Hebrew text), write it as an escape so every reader sees it:
```
text greeting {
    placement agent
    budget 20 tokens
    body "שלום\u{200f}"
}
```
"#,
};

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

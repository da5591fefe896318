//! pest's errors, in our own words and spans.
//!
//! pest reports the furthest position it reached and the rules it would have
//! accepted there. We keep the position as a byte offset over the whole
//! source, name what was found there ("a line break", "`}`"), and translate
//! the expected rules into what a person would type.

use pest::error::{Error, ErrorVariant, InputLocation};

use super::parser::Rule;
use super::tree::Block;
use crate::codes::SYNTAX_ERROR;
use crate::diagnostic::Diagnostic;
use crate::source::{floor_char_boundary, Span};

pub(super) fn from_pest(text: &str, error: &Error<Rule>) -> Diagnostic {
    from_pest_at(text, 0, error, false)
}

/// The error of a parse of the piece of `text` that starts at `base`;
/// `in_block` when the piece lies inside a block, whose `}` its end then
/// stands for.
pub(super) fn from_pest_at(
    text: &str,
    base: usize,
    error: &Error<Rule>,
    in_block: bool,
) -> Diagnostic {
    let offset = match error.location {
        InputLocation::Pos(offset) => offset,
        InputLocation::Span((start, _)) => start,
    };
    let offset = floor_char_boundary(text, base + offset);
    let (found, span) = found_at(text, offset);
    let positives: &[Rule] = match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => positives,
        ErrorVariant::CustomError { .. } => &[],
    };
    let closer = text[offset..]
        .chars()
        .next()
        .filter(|c| matches!(c, '}' | ']'));
    match closer {
        // A closing bracket nothing opened: say so, rather than list what
        // could have come instead.
        Some(closer) if closes_nothing(positives, closer) => {
            let help = if closer == '}' {
                "this `}` closes nothing; remove it, or check the braces above"
            } else {
                "a `]` closes a list of call arguments, `[a, b]`; remove it, or check the brackets before it"
            };
            Diagnostic::new(&SYNTAX_ERROR, format!("unexpected `{closer}`"))
                .primary(span, format!("this `{closer}` closes nothing"))
                .help(help)
        }
        _ => {
            let shown: Vec<Rule> = positives
                .iter()
                .map(|&rule| match rule {
                    Rule::EOI if in_block => Rule::close_brace,
                    other => other,
                })
                .collect();
            let expected = describe_expected(&shown);
            let diagnostic =
                Diagnostic::new(&SYNTAX_ERROR, format!("expected {expected}, found {found}"));
            let diagnostic = match typing_at(text, offset) {
                // What is missing belongs where the line being written
                // ends, not on the line below where the parser noticed.
                Some(at) => {
                    let diagnostic =
                        diagnostic.primary(Span::point(at), format!("expected {expected} here"));
                    if span.is_empty() {
                        diagnostic
                    } else {
                        diagnostic.secondary(span, format!("{found} comes first"))
                    }
                }
                None => diagnostic.primary(span, format!("expected {expected} here")),
            };
            diagnostic.help(help_for(text, offset, positives))
        }
    }
}

/// The error for a block whose `}` never came.
pub fn unclosed(block: &Block<'_>) -> Diagnostic {
    Diagnostic::new(
        &SYNTAX_ERROR,
        format!("unclosed `{}` block", block.keyword.text),
    )
    .primary(block.open, "this `{` is never closed")
    .help("add the matching `}` on a line of its own")
}

/// The end of the last thing written before `offset`, when a line break
/// stands between the two and what stands at `offset` is a closing bracket
/// or the end: the item left unfinished is the line above.
fn typing_at(text: &str, offset: usize) -> Option<usize> {
    let closer = text[offset..]
        .chars()
        .next()
        .is_none_or(|c| matches!(c, '}' | ']'));
    if !closer {
        return None;
    }
    let before = text[..offset].trim_end_matches([' ', '\t', '\n', '\r']);
    let gap = &text[before.len()..offset];
    (!before.is_empty() && gap.contains(['\n', '\r'])).then_some(before.len())
}

/// What stands at `offset`, and the span to underline.
fn found_at(text: &str, offset: usize) -> (String, Span) {
    let rest = &text[offset..];
    let Some(first) = rest.chars().next() else {
        return ("the end of the file".into(), Span::point(offset));
    };
    match first {
        '\n' | '\r' => ("a line break".into(), Span::point(offset)),
        '"' => ("a string".into(), Span::new(offset, offset + 1)),
        c if is_punctuation(c) => (format!("`{c}`"), Span::new(offset, offset + c.len_utf8())),
        c if c.is_whitespace() => (
            "white space".into(),
            Span::new(offset, offset + c.len_utf8()),
        ),
        _ => {
            let len = rest
                .char_indices()
                .find(|&(_, c)| c.is_whitespace() || is_punctuation(c) || c == '"')
                .map_or(rest.len(), |(i, _)| i);
            let word = &rest[..len];
            let shown: String = word.chars().take(40).collect();
            (
                format!("`{}`", shown.escape_debug()),
                Span::new(offset, offset + len),
            )
        }
    }
}

fn is_punctuation(c: char) -> bool {
    matches!(c, '{' | '}' | '[' | ']' | ',' | ':' | '#' | '>' | '<' | '=')
}

/// Whether `closer` stands where nothing it could close is open: a `]`
/// outside a list, or a `}` at the top level.
fn closes_nothing(positives: &[Rule], closer: char) -> bool {
    match closer {
        ']' => !positives.contains(&Rule::list_close),
        _ => positives.contains(&Rule::EOI) && !positives.contains(&Rule::close_brace),
    }
}

/// The rules pest tried, as what a person would type, in the order they
/// would think of them: "a value, `,`, a line break or `}`".
fn describe_expected(rules: &[Rule]) -> String {
    let has = |rule| rules.contains(&rule);
    let mut names: Vec<&str> = Vec::new();
    if has(Rule::string) || has(Rule::triple_string) || has(Rule::list) {
        names.push("a value");
    } else if has(Rule::word) {
        names.push("a name");
    }
    let rest: [(bool, &str); 7] = [
        (has(Rule::op), "an operator"),
        (has(Rule::open_brace), "`{`"),
        (has(Rule::separator) || has(Rule::list_comma), "`,`"),
        (has(Rule::separator), "a line break"),
        (has(Rule::list_close), "`]`"),
        (has(Rule::close_brace), "`}`"),
        (has(Rule::EOI), "the end of the file"),
    ];
    names.extend(
        rest.iter()
            .filter(|(tried, _)| *tried)
            .map(|(_, name)| *name),
    );
    match names.as_slice() {
        [] => "something else".into(),
        [one] => (*one).into(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn help_for(text: &str, offset: usize, positives: &[Rule]) -> String {
    let rest = &text[offset..];
    if positives.contains(&Rule::list_close) {
        "separate list items with `,` and close the list with `]`: `[\"a\", \"b\"]`".into()
    } else if positives.contains(&Rule::list) && !positives.contains(&Rule::separator) {
        "write a value after `name:`: a string `\"…\"`, a whole number, `true`, `false` or a list `[…]`".into()
    } else if rest.starts_with(':') {
        "contributor fields are written `name value`; only call arguments use `name: value` inside `{ }`".into()
    } else if rest.starts_with('{') {
        "a block is written `kind id {` with the `{` last on its line".into()
    } else {
        "each field goes on its own line as `name value…`; blocks are `kind id { … }` with `}` on its own line".into()
    }
}

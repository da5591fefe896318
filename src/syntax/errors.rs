//! pest's errors, in our own words and spans.
//!
//! pest reports the furthest position it reached and the rules it would have
//! accepted there. We keep the position as a byte offset over the whole
//! source, name what was found there ("a line break", "`}`"), and translate
//! the expected rules into what a person would type.

use pest::error::{Error, ErrorVariant, InputLocation};

use super::parser::Rule;
use crate::diagnostic::Diagnostic;
use crate::rules::SYNTAX_ERROR;
use crate::source::{floor_char_boundary, Span};

pub(super) fn from_pest(text: &str, error: &Error<Rule>) -> Diagnostic {
    let offset = match error.location {
        InputLocation::Pos(offset) => offset,
        InputLocation::Span((start, _)) => start,
    };
    let offset = floor_char_boundary(text, offset);
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
            let expected = describe_expected(positives);
            Diagnostic::new(&SYNTAX_ERROR, format!("expected {expected}, found {found}"))
                .primary(span, format!("expected {expected} here"))
                .help(help_for(text, offset, positives))
        }
    }
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

//! pest's errors, in our own words and spans.
//!
//! pest reports the furthest position it reached and the rules it would have
//! accepted there. We keep the position as a byte offset over the whole
//! source, name what was found there ("a line break", "`}`"), and translate
//! the expected rules into what a person would type.

use pest::error::{Error, ErrorVariant, InputLocation};

use super::parser::Rule;
use crate::diagnostic::Diagnostic;
use crate::rules::language::SYNTAX_ERROR;
use crate::source::{floor_char_boundary, Span};

pub(super) fn from_pest(text: &str, error: &Error<Rule>) -> Diagnostic {
    let offset = match error.location {
        InputLocation::Pos(offset) => offset,
        InputLocation::Span((start, _)) => start,
    };
    let offset = floor_char_boundary(text, offset);
    let (found, span) = found_at(text, offset);
    let expected = match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => describe_expected(positives),
        ErrorVariant::CustomError { message } => message.clone(),
    };
    let message = format!("expected {expected}, found {found}");
    Diagnostic::new(&SYNTAX_ERROR, message)
        .primary(span, format!("expected {expected} here"))
        .help(help_for(text, offset))
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

fn describe_expected(rules: &[Rule]) -> String {
    let mut names: Vec<&str> = rules.iter().filter_map(|rule| rule_name(*rule)).collect();
    names.sort_unstable();
    names.dedup();
    match names.as_slice() {
        [] => "something else".into(),
        [one] => (*one).into(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn rule_name(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::word => "a name or value",
        Rule::string | Rule::triple_string => "a string",
        Rule::list => "a list",
        Rule::open_brace => "`{`",
        Rule::close_brace => "`}`",
        Rule::comma => "`,`",
        Rule::op => "an operator",
        Rule::block | Rule::field | Rule::pair | Rule::items => "a field or block",
        Rule::EOI => "the end of the file",
        Rule::string_close => "`\"`",
        Rule::triple_string_close => "`\"\"\"`",
        _ => return None,
    })
}

fn help_for(text: &str, offset: usize) -> String {
    let rest = &text[offset..];
    if rest.starts_with(':') {
        "contributor fields are written `name value`; only call arguments use `name: value` inside `{ }`".into()
    } else if rest.starts_with('}') {
        "this `}` closes nothing; remove it, or check the braces above".into()
    } else if rest.starts_with('{') {
        "a block is written `kind id {` with the `{` last on its line".into()
    } else {
        "each field goes on its own line as `name value…`; blocks are `kind id { … }` with `}` on its own line".into()
    }
}

//! Lists: `[a, b, c]`, written one way wherever they appear.
//!
//! Items are separated by commas or line breaks everywhere in the language,
//! so a list needs its brackets to be one value: `tools a, b` reads as the
//! field `tools a` and a second item `b`. Language 1 wrote lists that way;
//! [`Lowerer::unbracketed_lists`] recognises the form and reports it once,
//! with the bracketed list as a safe fix, instead of an unknown field per
//! word.

use std::collections::HashMap;

use super::values::{no_value, wrong_token};
use super::Lowerer;
use crate::codes::{LIST_TOO_LONG, UNBRACKETED_LIST};
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::limits::MAX_LIST_ITEMS;
use crate::source::Span;
use crate::syntax::tree::{Field, Item, Token, Word};

/// The fields that end in a list of words, and how many words come before
/// the list (`skill NAME operations [a, b]`: two).
pub(super) fn list_start(field: &str) -> Option<usize> {
    match field {
        "tools" | "says" => Some(0),
        "skill" => Some(2),
        _ => None,
    }
}

/// What `unbracketed_lists` found at an item: the list field itself, or a
/// word after a comma that belongs to its list.
pub(super) enum Unbracketed {
    Field(&'static str),
    Word,
}

impl Lowerer<'_> {
    /// Finds lists written without brackets among `items` and reports each
    /// once. Returns, by item index, the fields and the stray words that
    /// belong to such a list, so that they are not reported again.
    pub(super) fn unbracketed_lists(&mut self, items: &[Item<'_>]) -> HashMap<usize, Unbracketed> {
        let mut found = HashMap::new();
        let mut index = 0;
        while index < items.len() {
            if let Some((name, words)) = self.bare_list(&items[index]) {
                found.insert(index, Unbracketed::Field(name));
                let mut words = words;
                let mut next = index + 1;
                while let Some(Item::Field(stray)) = items.get(next) {
                    let same_line = words
                        .last()
                        .is_some_and(|last| self.on_one_line(last.span.end, stray.span.start));
                    if !stray.tokens.is_empty() || !same_line {
                        break;
                    }
                    words.push(stray.key);
                    found.insert(next, Unbracketed::Word);
                    next += 1;
                }
                self.report(unbracketed(name, &words));
                index = next;
            } else if let Some(next) = self.unquoted_run_on(items, index, &mut found) {
                index = next;
            } else {
                index += 1;
            }
        }
        found
    }

    /// Text written without quotes where a string belongs, with a comma in
    /// it: `body Be brief, always.` reads as the field `body Be brief` and
    /// an item `always.`. Reported once, over the whole text, with the
    /// quoted text as its fix. Returns the index after the text when found.
    fn unquoted_run_on(
        &mut self,
        items: &[Item<'_>],
        index: usize,
        found: &mut HashMap<usize, Unbracketed>,
    ) -> Option<usize> {
        let Some(Item::Field(field)) = items.get(index) else {
            return None;
        };
        let name = ["body", "summary", "origin", "heading"]
            .into_iter()
            .find(|name| *name == field.key.text)?;
        let plain = |tokens: &[Token<'_>]| {
            tokens
                .iter()
                .all(|token| matches!(token, Token::Word(_) | Token::Op(_)))
        };
        let first = field.tokens.first()?;
        if !plain(&field.tokens) {
            return None;
        }
        let mut end = field.span.end;
        let mut next = index + 1;
        while let Some(Item::Field(stray)) = items.get(next) {
            if !plain(&stray.tokens) || !self.on_one_line(end, stray.span.start) {
                break;
            }
            end = stray.tokens.last().map_or(stray.key.span, Token::span).end;
            next += 1;
        }
        if next == index + 1 {
            return None;
        }
        found.insert(index, Unbracketed::Field(name));
        for stray in index + 1..next {
            found.insert(stray, Unbracketed::Word);
        }
        let span = first.span().to(Span::point(end));
        let text = self.text.get(span.range()).unwrap_or_default();
        self.report(
            Diagnostic::new(
                &crate::codes::INVALID_VALUE,
                format!("`{name}` takes a string, but this text is not quoted"),
            )
            .primary(span, "expected a string")
            .help("quote the text: `\"…\"` on one line, or `\"\"\"` blocks over several; unquoted, a comma ends the field")
            .fix(Fix::replace(
                "Quote the text",
                Applicability::Safe,
                span,
                format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\"")),
            )),
        );
        Some(next)
    }

    /// A list field whose list is written as bare words: its name and the
    /// words.
    fn bare_list<'a>(&self, item: &Item<'a>) -> Option<(&'static str, Vec<Word<'a>>)> {
        let Item::Field(field) = item else {
            return None;
        };
        let name = ["tools", "says", "skill"]
            .into_iter()
            .find(|name| *name == field.key.text)?;
        let start = list_start(name)?;
        let rest = field.tokens.get(start..)?;
        let words: Option<Vec<Word<'a>>> = rest
            .iter()
            .map(|token| match token {
                Token::Word(word) => Some(*word),
                _ => None,
            })
            .collect();
        words
            .filter(|words| !words.is_empty())
            .map(|words| (name, words))
    }

    /// Whether nothing but spaces, tabs and commas stand between two offsets.
    fn on_one_line(&self, from: usize, to: usize) -> bool {
        self.text
            .get(from..to)
            .is_some_and(|between| !between.contains(['\n', '\r']))
    }

    /// `[a, b]`: a list of words, at most [`MAX_LIST_ITEMS`] of them.
    pub(super) fn word_list<'a>(
        &mut self,
        field: &Field<'a>,
        token: Option<&Token<'a>>,
        expected: &str,
    ) -> Option<Vec<Word<'a>>> {
        let list = match token {
            Some(Token::List(list)) => list,
            Some(other) => {
                self.report(
                    wrong_token(field, other, &format!("a list of {expected}"))
                        .help(format!("write the {expected} in brackets: `[a, b]`")),
                );
                return None;
            }
            None => {
                self.report(
                    no_value(field, &format!("a list of {expected}"))
                        .help(format!("write the {expected} in brackets: `[a, b]`")),
                );
                return None;
            }
        };
        let mut words = Vec::with_capacity(list.items.len());
        for item in &list.items {
            match item {
                Token::Word(word) => words.push(*word),
                other => {
                    self.report(
                        Diagnostic::new(
                            &crate::codes::INVALID_VALUE,
                            format!(
                                "`{}` lists {expected}, not {}",
                                field.key.text,
                                other.describe()
                            ),
                        )
                        .primary(other.span(), format!("expected one of the {expected}"))
                        .help(format!(
                            "write the {expected} bare, without quotes: `[a, b]`"
                        )),
                    );
                    return None;
                }
            }
        }
        if words.is_empty() {
            self.report(
                Diagnostic::new(
                    &crate::codes::INVALID_VALUE,
                    format!("`{}` lists no {expected}", field.key.text),
                )
                .primary(list.span, "an empty list")
                .help(format!("name at least one, or remove `{}`", field.key.text)),
            );
            return None;
        }
        if words.len() > MAX_LIST_ITEMS {
            let extra = words[MAX_LIST_ITEMS].span.to(words[words.len() - 1].span);
            self.report(
                Diagnostic::new(
                    &LIST_TOO_LONG,
                    format!(
                        "`{}` lists {} {expected}, over {MAX_LIST_ITEMS}",
                        field.key.text,
                        words.len()
                    ),
                )
                .primary(extra, format!("items past the {MAX_LIST_ITEMS}th"))
                .help("list the few that every conversation needs, and split the rest into another contributor"),
            );
            return None;
        }
        Some(words)
    }
}

fn unbracketed(field: &str, words: &[Word<'_>]) -> Diagnostic {
    let first = words[0].span;
    let span = first.to(words[words.len() - 1].span);
    let list = format!(
        "[{}]",
        words
            .iter()
            .map(|word| word.text)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let what = if field == "skill" {
        "operations"
    } else {
        field
    };
    let diagnostic = Diagnostic::new(
        &UNBRACKETED_LIST,
        format!("the list of `{what}` is written without brackets"),
    )
    .primary(span, "a list needs brackets");
    let diagnostic = if words.len() > 1 {
        diagnostic.secondary(
            Span::new(words[0].span.end, words[1].span.start),
            "a comma here ends the field",
        )
    } else {
        diagnostic
    };
    diagnostic
        .help(format!(
            "write `{list}`; `contrib migrate` rewrites a manifest of the previous language"
        ))
        .fix(Fix::replace(
            format!("Write `{list}`"),
            Applicability::Safe,
            span,
            list,
        ))
}

//! Reading a field's tokens as the values it takes: one word from a
//! vocabulary, a string, an identifier. Lists are read in `lists`.

use super::strings::{self, Decoded};
use super::Lowerer;
use crate::codes::{INVALID_IDENTIFIER, INVALID_VALUE, NAME_TOO_LONG};
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::ir::names::{is_kebab, to_kebab};
use crate::ir::Vocabulary;
use crate::limits::MAX_NAME_CHARS;
use crate::source::{Span, Spanned};
use crate::suggest;
use crate::syntax::tree::{Field, Token, Word};

/// "a placement", "an owner".
pub(super) fn with_article(noun: &str) -> String {
    let article = if noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {noun}")
}

/// Tool names follow the tools' own convention, `read_object` as well as
/// `read-object`.
fn is_tool_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

impl Lowerer<'_> {
    /// The field's only token, as a word.
    pub(super) fn one_word<'a>(&mut self, field: &Field<'a>, expected: &str) -> Option<Word<'a>> {
        match field.tokens.as_slice() {
            [Token::Word(word)] => Some(*word),
            [] => {
                self.report(no_value(field, expected));
                None
            }
            [Token::Word(_), extra, ..] => {
                self.report(extra_tokens(field, extra.span(), expected));
                None
            }
            [other, ..] => {
                self.report(wrong_token(field, other, expected));
                None
            }
        }
    }

    /// One word of a vocabulary, with a suggestion when it is misspelt.
    pub(super) fn vocabulary<T: Vocabulary>(&mut self, field: &Field<'_>) -> Option<Spanned<T>> {
        let expected = with_article(T::NOUN);
        let word = self.one_word(field, &expected)?;
        self.vocabulary_word(word)
    }

    pub(super) fn vocabulary_word<T: Vocabulary>(&mut self, word: Word<'_>) -> Option<Spanned<T>> {
        if let Some(value) = T::parse(word.text) {
            return Some(Spanned::new(value, word.span));
        }
        let diagnostic = Diagnostic::new(
            &INVALID_VALUE,
            format!("unknown {} `{}`", T::NOUN, word.text),
        )
        .primary(word.span, format!("not {}", with_article(T::NOUN)));
        let diagnostic = match suggest::closest(word.text, T::spellings()) {
            Some(suggestion) => diagnostic.suggest(word.span, suggestion),
            None => diagnostic.help(format!(
                "{} is one of {}",
                with_article(T::NOUN),
                suggest::list(T::spellings())
            )),
        };
        self.report(diagnostic);
        None
    }

    /// The field's only token, as a string.
    pub(super) fn one_string(&mut self, field: &Field<'_>) -> Option<Decoded> {
        match field.tokens.as_slice() {
            // An unterminated string swallowed the rest of its line or file;
            // its error is reported, and reading it as text would only add
            // errors about text the author did not mean as part of it.
            [Token::Str(literal)] => {
                let decoded = strings::decode(literal, &mut self.diagnostics);
                literal.terminated.then_some(decoded)
            }
            [] => {
                self.report(no_value(field, "a string"));
                None
            }
            [Token::Str(_), extra, ..] => {
                self.report(extra_tokens(field, extra.span(), "a string"));
                None
            }
            [Token::Word(_), ..] => {
                self.report(unquoted_text(field));
                None
            }
            [other, ..] => {
                self.report(wrong_token(field, other, "a string"));
                None
            }
        }
    }

    /// A contributor id, skill or operation name: lowercase kebab-case.
    pub(super) fn identifier(&mut self, word: Word<'_>, what: &str) -> Option<Spanned<String>> {
        if !is_kebab(word.text) {
            self.report(not_kebab(word, what));
            return None;
        }
        self.short_name(word, what)
    }

    /// A name no longer than [`MAX_NAME_CHARS`].
    pub(super) fn short_name(&mut self, word: Word<'_>, what: &str) -> Option<Spanned<String>> {
        let length = word.text.chars().count();
        if length > MAX_NAME_CHARS {
            self.report(
                Diagnostic::new(
                    &NAME_TOO_LONG,
                    format!("this {what} is {length} characters long, over {MAX_NAME_CHARS}"),
                )
                .primary(word.span, "too long")
                .help("name it in a few words; names appear in paths, approval screens and turn records"),
            );
            return None;
        }
        Some(Spanned::new(word.text.to_string(), word.span))
    }

    pub(super) fn tool_name(&mut self, word: Word<'_>) -> Option<Spanned<String>> {
        if is_tool_name(word.text) {
            return self.short_name(word, "tool name");
        }
        self.report(
            Diagnostic::new(&INVALID_IDENTIFIER, format!("`{}` is not a tool name", word.text))
                .primary(word.span, "tool names are lowercase")
                .help("tool names are lowercase letters, digits, `_` and `-`, starting with a letter, such as `read_object`"),
        );
        None
    }
}

pub(super) fn not_kebab(word: Word<'_>, what: &str) -> Diagnostic {
    let suggestion = to_kebab(word.text);
    let diagnostic = Diagnostic::new(
        &INVALID_IDENTIFIER,
        format!("{what} `{}` is not lowercase kebab-case", word.text),
    )
    .primary(word.span, "not kebab-case");
    if is_kebab(&suggestion) {
        diagnostic
            .help(format!(
                "write it as `{suggestion}`: lowercase letters and digits joined by single `-`"
            ))
            .fix(Fix::replace(
                format!("Rename to `{suggestion}`"),
                Applicability::Unsafe,
                word.span,
                suggestion,
            ))
    } else {
        diagnostic
            .help("use lowercase letters and digits joined by single `-`, starting with a letter")
    }
}

/// Text written without quotes where a string belongs: `body Be brief.`
fn unquoted_text(field: &Field<'_>) -> Diagnostic {
    let span = field
        .tokens
        .iter()
        .map(Token::span)
        .reduce(Span::to)
        .unwrap_or(field.span);
    let diagnostic = Diagnostic::new(
        &INVALID_VALUE,
        format!(
            "`{}` takes a string, but this text is not quoted",
            field.key.text
        ),
    )
    .primary(span, "expected a string")
    .help("quote the text: `\"…\"` on one line, or `\"\"\"` blocks over several");
    // Quoting words is safe; text that already holds strings or lists needs
    // a person to say what was meant.
    let plain = field
        .tokens
        .iter()
        .all(|token| matches!(token, Token::Word(_) | Token::Op(_)));
    if !plain {
        return diagnostic;
    }
    diagnostic.fix(Fix::replace(
        "Quote the text",
        Applicability::Safe,
        span,
        quote(&field_text(field)),
    ))
}

fn field_text(field: &Field<'_>) -> String {
    field
        .tokens
        .iter()
        .map(|token| match token {
            Token::Word(word) | Token::Op(word) => word.text.to_string(),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

pub(super) fn no_value(field: &Field<'_>, expected: &str) -> Diagnostic {
    Diagnostic::new(
        &INVALID_VALUE,
        format!("`{}` needs {expected}", field.key.text),
    )
    .primary(field.key.span, format!("expected {expected} after this"))
    .help(format!(
        "write `{} <value>` with {expected}",
        field.key.text
    ))
}

pub(super) fn extra_tokens(field: &Field<'_>, extra: Span, expected: &str) -> Diagnostic {
    let rest = Span::new(extra.start, field.span.end);
    Diagnostic::new(
        &INVALID_VALUE,
        format!("`{}` takes {expected}, but more follows", field.key.text),
    )
    .primary(rest, "unexpected")
    .help(format!(
        "`{}` takes {expected}; remove the rest",
        field.key.text
    ))
}

pub(super) fn wrong_token(field: &Field<'_>, token: &Token<'_>, expected: &str) -> Diagnostic {
    Diagnostic::new(
        &INVALID_VALUE,
        format!(
            "`{}` takes {expected}, not {}",
            field.key.text,
            token.describe()
        ),
    )
    .primary(token.span(), format!("expected {expected}"))
}

//! `applies …`: when a contributor applies, apart from where it goes.
//!
//! ```text
//! applies always
//! applies on command deploy
//! applies on skill code-review
//! applies on subagent reviewer
//! applies to files ["src/**/*.ts", "*.tsx"]
//! applies on request "Conventions for database migrations"
//! ```

use super::values::{no_value, wrong_token};
use super::Lowerer;
use crate::codes::{INVALID_VALUE, LIMIT_EXCEEDED, LIST_TOO_LONG};
use crate::diagnostic::Diagnostic;
use crate::ir::{Activation, ActivationKind};
use crate::limits::{MAX_DESCRIPTION_CHARS, MAX_LIST_ITEMS};
use crate::source::{Span, Spanned};
use crate::suggest;
use crate::syntax::tree::{Field, Token, Word};

const EXAMPLE: &str = "write `applies on command NAME`, `applies to files [\"GLOB\"]`, `applies on request \"DESCRIPTION\"` or `applies always`";

/// The word that goes before each activation.
fn preposition(kind: ActivationKind) -> Option<&'static str> {
    match kind {
        ActivationKind::Always => None,
        ActivationKind::Files => Some("to"),
        _ => Some("on"),
    }
}

impl Lowerer<'_> {
    /// `applies …`, as far as its form goes; whether the kind and placement
    /// allow it is the contributor's to check.
    pub(super) fn activation(&mut self, field: &Field<'_>) -> Option<Activation> {
        let tokens = field.tokens.as_slice();
        let (first, rest) = match tokens {
            [Token::Word(first), rest @ ..] => (*first, rest),
            [other, ..] => {
                self.report(wrong_token(field, other, "an activation").help(EXAMPLE));
                return None;
            }
            [] => {
                self.report(no_value(field, "an activation").help(EXAMPLE));
                return None;
            }
        };
        if first.text != "always" && ActivationKind::parse(first.text).is_some() {
            return self.missing_preposition(first);
        }
        if first.text == "always" {
            return match rest {
                [] => Some(Activation::Always),
                [extra, ..] => {
                    self.report(super::values::extra_tokens(field, extra.span(), "`always`"));
                    None
                }
            };
        }
        let (kind_word, rest) = match rest {
            [Token::Word(kind), rest @ ..] => (*kind, rest),
            _ => {
                self.report(unknown_activation(first));
                return None;
            }
        };
        let kind = self.vocabulary_word::<ActivationKind>(kind_word)?.value;
        self.check_preposition(first, kind)?;
        let detail = rest.first();
        if let Some(extra) = rest.get(1) {
            self.report(super::values::extra_tokens(
                field,
                extra.span(),
                "one value",
            ));
            return None;
        }
        match kind {
            ActivationKind::Always => Some(Activation::Always),
            ActivationKind::Command => self
                .invoked_name(field, detail, "command")
                .map(Activation::Command),
            ActivationKind::Skill => self
                .invoked_name(field, detail, "skill")
                .map(Activation::Skill),
            ActivationKind::Subagent => self
                .invoked_name(field, detail, "subagent")
                .map(Activation::Subagent),
            ActivationKind::Files => self.globs(field, detail).map(Activation::Files),
            ActivationKind::Request => self.description(field, detail).map(Activation::Request),
        }
    }

    fn missing_preposition(&mut self, kind: Word<'_>) -> Option<Activation> {
        let parsed = ActivationKind::parse(kind.text)?;
        let word = preposition(parsed).unwrap_or("on");
        self.report(
            Diagnostic::new(
                &INVALID_VALUE,
                format!("`applies {}` needs `{word}` before it", kind.text),
            )
            .primary(kind.span, format!("expected `{word} {}`", kind.text))
            .suggest(Span::point(kind.span.start), &format!("{word} ")),
        );
        None
    }

    fn check_preposition(&mut self, word: Word<'_>, kind: ActivationKind) -> Option<()> {
        let expected = preposition(kind)?;
        if word.text == expected {
            return Some(());
        }
        let diagnostic = Diagnostic::new(
            &INVALID_VALUE,
            format!(
                "an activation on {} is written `applies {expected} {kind}`",
                kind.as_str()
            ),
        )
        .primary(word.span, format!("expected `{expected}`"));
        let diagnostic = if matches!(word.text, "on" | "to" | "for" | "when" | "with" | "at") {
            diagnostic.suggest(word.span, expected)
        } else {
            diagnostic.help(EXAMPLE)
        };
        self.report(diagnostic);
        None
    }

    /// The command, skill or subagent an activation waits for.
    fn invoked_name(
        &mut self,
        field: &Field<'_>,
        token: Option<&Token<'_>>,
        what: &str,
    ) -> Option<Spanned<String>> {
        match token {
            Some(Token::Word(word)) => self.identifier(*word, &format!("{what} name")),
            Some(other) => {
                self.report(wrong_token(field, other, &format!("a {what} name")));
                None
            }
            None => {
                self.report(
                    no_value(field, &format!("a {what} name"))
                        .help(format!("write `applies on {what} NAME`")),
                );
                None
            }
        }
    }

    /// `["GLOB", …]`: quoted globs, each valid.
    fn globs(
        &mut self,
        field: &Field<'_>,
        token: Option<&Token<'_>>,
    ) -> Option<Vec<Spanned<String>>> {
        let help =
            "write the globs as quoted strings in brackets: `applies to files [\"src/**/*.ts\"]`";
        let list = match token {
            Some(Token::List(list)) => list,
            Some(Token::Str(literal)) => {
                self.report(
                    Diagnostic::new(
                        &INVALID_VALUE,
                        "the globs of `applies to files` go in a list",
                    )
                    .primary(literal.span, "a list needs brackets")
                    .suggest(
                        literal.span,
                        &format!(
                            "[{}]",
                            self.text
                                .get(literal.span.start..literal.span.end)
                                .unwrap_or_default()
                        ),
                    ),
                );
                return None;
            }
            Some(other) => {
                self.report(wrong_token(field, other, "a list of globs").help(help));
                return None;
            }
            None => {
                self.report(no_value(field, "a list of globs").help(help));
                return None;
            }
        };
        let mut globs = Vec::new();
        let mut good = true;
        for item in &list.items {
            let Token::Str(literal) = item else {
                self.report(
                    Diagnostic::new(&INVALID_VALUE, "a glob is a quoted string")
                        .primary(item.span(), "expected a string")
                        .help(help),
                );
                good = false;
                continue;
            };
            let decoded = super::strings::decode(literal, &mut self.diagnostics);
            if !literal.terminated {
                good = false;
                continue;
            }
            match validate_glob(&decoded.value) {
                Ok(()) => globs.push(Spanned::new(decoded.value, literal.span)),
                Err(reason) => {
                    self.report(
                        Diagnostic::new(&INVALID_VALUE, format!("`{}` is not a glob", decoded.value))
                            .primary(literal.span, reason.to_string())
                            .help("globs use `*`, `**`, `?`, `[abc]` and `{a,b}`, with `/` between folders, such as \"src/**/*.rs\""),
                    );
                    good = false;
                }
            }
        }
        if !good {
            return None;
        }
        if globs.is_empty() {
            self.report(
                Diagnostic::new(&INVALID_VALUE, "`applies to files` lists no globs")
                    .primary(list.span, "an empty list")
                    .help(help),
            );
            return None;
        }
        if globs.len() > MAX_LIST_ITEMS {
            self.report(
                Diagnostic::new(
                    &LIST_TOO_LONG,
                    format!(
                        "`applies to files` lists {} globs, over {MAX_LIST_ITEMS}",
                        globs.len()
                    ),
                )
                .primary(
                    globs[MAX_LIST_ITEMS].span.to(globs[globs.len() - 1].span),
                    format!("globs past the {MAX_LIST_ITEMS}th"),
                )
                .help("combine the globs with `{a,b}` or `**`"),
            );
            return None;
        }
        Some(globs)
    }

    /// `"DESCRIPTION"`: what the model reads to decide whether to ask.
    fn description(
        &mut self,
        field: &Field<'_>,
        token: Option<&Token<'_>>,
    ) -> Option<Spanned<String>> {
        let Some(Token::Str(literal)) = token else {
            let diagnostic = match token {
                Some(other) => wrong_token(field, other, "a quoted description"),
                None => no_value(field, "a quoted description"),
            };
            self.report(
                diagnostic
                    .help("write `applies on request \"what it is for and when to ask for it\"`"),
            );
            return None;
        };
        let decoded = super::strings::decode(literal, &mut self.diagnostics);
        if !literal.terminated {
            return None;
        }
        let length = decoded.value.chars().count();
        if decoded.value.trim().is_empty() {
            self.report(
                Diagnostic::new(
                    &INVALID_VALUE,
                    "the description of `applies on request` is empty",
                )
                .primary(
                    literal.span,
                    "the model reads this to decide whether to ask",
                )
                .help("say what the text is for and when to ask for it"),
            );
            return None;
        }
        if length > MAX_DESCRIPTION_CHARS {
            self.report(
                Diagnostic::new(&LIMIT_EXCEEDED, format!("the description is {length} characters long, over {MAX_DESCRIPTION_CHARS}"))
                    .primary(literal.span, "kept in the system prompt for every conversation")
                    .help("say in a sentence or two what the text is for; the text itself is sent when asked for"),
            );
            return None;
        }
        Some(Spanned::new(decoded.value, literal.span))
    }
}

fn unknown_activation(word: Word<'_>) -> Diagnostic {
    let diagnostic = Diagnostic::new(
        &INVALID_VALUE,
        format!("unknown activation `{}`", word.text),
    )
    .primary(word.span, "not an activation");
    match suggest::closest(word.text, ["always", "on", "to"]) {
        Some(suggestion) => diagnostic.suggest(word.span, suggestion),
        None => diagnostic.help(EXAMPLE),
    }
}

/// Why a glob is not one the runtime can match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotAGlob {
    Empty,
    /// It starts with `/`, but globs are relative to the workspace.
    Absolute,
    /// The glob syntax is broken; the matcher's reason.
    Syntax(String),
}

impl std::fmt::Display for NotAGlob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotAGlob::Empty => f.write_str("an empty glob matches nothing"),
            NotAGlob::Absolute => {
                f.write_str("globs are relative to the workspace: remove the leading `/`")
            }
            NotAGlob::Syntax(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for NotAGlob {}

/// Whether `glob` is one the runtime can match, and why not.
pub fn validate_glob(glob: &str) -> Result<(), NotAGlob> {
    if glob.is_empty() {
        return Err(NotAGlob::Empty);
    }
    if glob.starts_with('/') {
        return Err(NotAGlob::Absolute);
    }
    crate::glob::Glob::new(glob)
        .map(|_| ())
        .map_err(|error| NotAGlob::Syntax(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::validate_glob;

    #[test]
    fn globs() {
        for good in [
            "*.rs",
            "src/**/*.ts",
            "{a,b}/*.md",
            "docs/[a-c]*.md",
            "README.md",
        ] {
            assert_eq!(validate_glob(good), Ok(()), "{good}");
        }
        for bad in ["", "/etc/*", "src/[a", "{a,b"] {
            assert!(validate_glob(bad).is_err(), "{bad}");
        }
    }
}

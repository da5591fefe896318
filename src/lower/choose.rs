//! `choose from usage "FILE"`: an eager load whose tools and operations are
//! candidates, chosen from recorded usage when the bundle is built.
//!
//! ```text
//! eager-load hot-operations {
//!     placement agent
//!     budget 1200 tokens
//!     choose from usage "usage/support-turns.jsonl"
//!     tools [read_object, search_code]
//!     skill code-review operations [diff, annotate, explain]
//! }
//! ```

use super::strings;
use super::values::{extra_tokens, no_value, wrong_token};
use super::Lowerer;
use crate::codes::INVALID_VALUE;
use crate::diagnostic::Diagnostic;
use crate::ir::Choose;
use crate::source::Spanned;
use crate::suggest;
use crate::syntax::tree::{Field, Token};

const EXAMPLE: &str =
    "write `choose from usage \"usage/turns.jsonl\"`, naming a usage file beside the manifest";

impl Lowerer<'_> {
    /// `choose from usage "FILE"`, with a path relative to the manifest.
    pub(super) fn choose(&mut self, field: &Field<'_>) -> Option<Choose> {
        let tokens = field.tokens.as_slice();
        for (index, expected) in ["from", "usage"].into_iter().enumerate() {
            match tokens.get(index) {
                Some(Token::Word(word)) if word.text == expected => {}
                Some(Token::Word(word)) => {
                    let diagnostic = Diagnostic::new(
                        &INVALID_VALUE,
                        format!(
                            "expected `{expected}` in `choose from usage`, found `{}`",
                            word.text
                        ),
                    )
                    .primary(word.span, format!("expected `{expected}`"));
                    self.report(match suggest::closest(word.text, [expected]) {
                        Some(_) => diagnostic.suggest(word.span, expected),
                        None => diagnostic.help(EXAMPLE),
                    });
                    return None;
                }
                Some(other) => {
                    self.report(wrong_token(field, other, &format!("`{expected}`")).help(EXAMPLE));
                    return None;
                }
                None => {
                    self.report(no_value(field, "`from usage \"FILE\"`").help(EXAMPLE));
                    return None;
                }
            }
        }
        let literal = match tokens.get(2) {
            Some(Token::Str(literal)) => literal,
            Some(other) => {
                self.report(wrong_token(field, other, "a quoted file name").help(EXAMPLE));
                return None;
            }
            None => {
                self.report(
                    no_value(field, "a quoted usage file after `from usage`").help(EXAMPLE),
                );
                return None;
            }
        };
        if let Some(extra) = tokens.get(3) {
            self.report(extra_tokens(field, extra.span(), "one usage file"));
            return None;
        }
        let decoded = strings::decode(literal, &mut self.diagnostics);
        if !literal.terminated {
            return None;
        }
        if !is_relative_path(&decoded.value) {
            self.report(
                Diagnostic::new(
                    &INVALID_VALUE,
                    format!(
                        "the usage file `{}` is not a path relative to the manifest",
                        decoded.value
                    ),
                )
                .primary(decoded.span, "expected a relative path such as \"usage/turns.jsonl\"")
                .help("name the file from the manifest's folder, with `/` between folders, so the manifest builds the same on any machine"),
            );
            return None;
        }
        Some(Choose {
            usage: Spanned::new(decoded.value, decoded.span),
            span: field.span,
        })
    }
}

/// Whether `path` names a file from the manifest's folder, the same on any
/// machine: not empty, not absolute, `/` between folders, no `..` leaving
/// the folder's tree.
fn is_relative_path(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && !path.contains(':')
        && path.split('/').all(|part| !part.is_empty() && part != "..")
}

#[cfg(test)]
mod tests {
    use super::is_relative_path;

    #[test]
    fn only_paths_within_the_manifests_tree_are_relative() {
        for good in ["turns.jsonl", "usage/turns.jsonl", "./usage/t.jsonl"] {
            assert!(is_relative_path(good), "{good}");
        }
        for bad in ["", "/etc/x", "../x", "a//b", "C:/x", "a\\b", "a/../../b"] {
            assert!(!is_relative_path(bad), "{bad}");
        }
    }
}

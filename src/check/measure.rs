//! What a contributor adds to the context, measured in tokens.
//!
//! - `text` and `system-message`: the body, each variable at its worst-case
//!   length, plus the framing of lower-priority text.
//! - `eager-load`: each tool's `schema_tokens`, the skill's
//!   `manifest_tokens` and each loaded operation's `tokens` (from the
//!   workspace configuration), plus framing.
//! - `eager-run`, `preface`, `fact`: only the call (or the fact sections'
//!   headings) is known before run time; the budget bounds the result, which
//!   the runtime refuses when it is larger.
//!
//! Counting is lazy: [`Measure::fits`] answers from byte lengths when it can
//! (a token covers at least one byte) and stops counting at the budget;
//! [`Measure::tokens_at_least`] bounds the count from below by counting
//! words; [`Measure::tokens`] counts exactly, once, and only when a message
//! needs the exact figure.

use std::cell::OnceCell;

use crate::config::Config;
use crate::ir::{framing, Contributor, ContributorBody, Plugin};
use crate::tokenizer::TokenizerKind;

pub struct Measure {
    /// The text the contributor adds, as far as it is known.
    pub text: String,
    /// Tokens known from the configuration without counting.
    pub configured_tokens: u64,
    /// Whether the whole of what it adds is known before run time.
    pub complete: bool,
    tokenizer: TokenizerKind,
    counted: OnceCell<u64>,
}

impl Measure {
    pub fn new(plugin: &Plugin, contributor: &Contributor, config: &Config) -> Self {
        let mut text = framing(&plugin.name.value, contributor)
            .map(|framing| framing + "\n")
            .unwrap_or_default();
        let mut configured_tokens = 0;
        let complete = match &contributor.body {
            ContributorBody::Text { body } | ContributorBody::SystemMessage { body, .. } => {
                text.push_str(&body.worst_case_text());
                true
            }
            ContributorBody::EagerLoad { tools, skill } => {
                for tool in tools {
                    configured_tokens += config
                        .tools
                        .get(&tool.value)
                        .map_or(0, |tool| tool.schema_tokens);
                }
                if let Some(load) = skill {
                    if let Some(skill) = config.skills.get(&load.skill.value) {
                        configured_tokens += skill.manifest_tokens;
                        for operation in &load.operations {
                            configured_tokens +=
                                skill.operations.get(&operation.value).copied().unwrap_or(0);
                        }
                    }
                }
                true
            }
            ContributorBody::EagerRun { call } | ContributorBody::Preface { call, .. } => {
                text.push_str(&call_text(call));
                false
            }
            ContributorBody::Fact { says } => {
                for section in says {
                    text.push_str(&format!("## {}\n", section.value));
                }
                false
            }
        };
        Measure {
            text,
            configured_tokens,
            complete,
            tokenizer: config.tokenizer,
            counted: OnceCell::new(),
        }
    }

    /// The exact number of tokens, counted once.
    pub fn tokens(&self) -> u64 {
        *self
            .counted
            .get_or_init(|| self.configured_tokens + self.tokenizer.count(&self.text) as u64)
    }

    /// A cheap lower bound on [`Measure::tokens`], without the tokenizer.
    ///
    /// The o200k and cl100k pre-tokenizers never put two words separated by
    /// white space or ASCII punctuation (other than an apostrophe, which
    /// contractions keep) into one piece, and every piece is at least one
    /// token; so the number of such words is a lower bound. English text has
    /// about 1.3 tokens per word: close enough to settle `budget-unused` for
    /// honest budgets without loading a vocabulary.
    pub fn tokens_at_least(&self) -> u64 {
        if let Some(&counted) = self.counted.get() {
            return counted;
        }
        self.configured_tokens + words(&self.text)
    }

    /// Whether what is known fits in `budget` tokens.
    pub fn fits(&self, budget: u64) -> bool {
        if let Some(&counted) = self.counted.get() {
            return counted <= budget;
        }
        match budget.checked_sub(self.configured_tokens) {
            Some(rest) => self
                .tokenizer
                .fits(&self.text, usize::try_from(rest).unwrap_or(usize::MAX)),
            None => false,
        }
    }
}

/// Maximal runs of characters that one pre-tokenizer piece may hold
/// together: letters, digits, apostrophes and any non-ASCII character that
/// is not white space (counting those in is conservative: fewer runs).
fn words(text: &str) -> u64 {
    let mut runs = 0;
    let mut in_run = false;
    for c in text.chars() {
        let joins = c.is_alphanumeric() || c == '\'' || (!c.is_ascii() && !c.is_whitespace());
        if joins && !in_run {
            runs += 1;
        }
        in_run = joins;
    }
    runs
}

/// A call as the model sees it: the tool and its arguments as JSON.
fn call_text(call: &crate::ir::Call) -> String {
    let arguments: serde_json::Map<String, serde_json::Value> = call
        .arguments
        .iter()
        .map(|(key, argument)| {
            let value =
                serde_json::to_value(&argument.value.value).unwrap_or(serde_json::Value::Null);
            (key.clone(), value)
        })
        .collect();
    format!(
        "{} {}",
        call.tool.value,
        serde_json::Value::Object(arguments)
    )
}

#[cfg(test)]
mod tests {
    use super::words;
    use crate::tokenizer::TokenizerKind;

    #[test]
    fn words_never_exceed_tokens() {
        for text in [
            "Challenge premises; do not call a design good when it is merely fine.",
            "don't won't y'all l'homme — café naïve e\u{301}s 12345 abc123 x/y/z a.b.c",
            "Use `cargo test --release` and `#[derive(Debug)]`; see https://docs.acme.dev/x?y=1.",
            "日本語のテキスト、そして English mixed 混合 text. Ünïcödé ŝtrïng.",
            "   \n\n\t  leading and trailing   \n",
            "{{literal}} braces, 'quoted', \"double\", (parens) [brackets] <angle>",
        ] {
            for tokenizer in TokenizerKind::ALL {
                assert!(
                    words(text) as usize <= tokenizer.count(text),
                    "{tokenizer}: {text}"
                );
            }
        }
    }
}

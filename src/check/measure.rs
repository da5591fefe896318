//! What a contributor adds to the context, measured in tokens.
//!
//! - `text` and `system-message`: the body, each variable at its worst-case
//!   length, plus the framing of lower-priority text.
//! - `eager-load`: each tool's `schema_tokens`, the skill's
//!   `manifest_tokens` and each loaded operation's `tokens` (from the
//!   workspace configuration), plus framing. A tool, skill or operation the
//!   workspace does not declare makes the measure a lower bound.
//! - `eager-run`, `preface`, `fact`: only the call (or the fact sections'
//!   headings) is known before run time; the budget bounds the result, which
//!   the runtime refuses when it is larger.
//!
//! Counting is lazy and happens at most once per contributor:
//! [`Measure::fits`] answers from byte lengths when it can (a token covers
//! at least one byte), so a contributor whose known text is short never
//! loads the tokenizer; otherwise [`Measure::fits`] and [`Measure::tokens`]
//! share one exact count.

use std::cell::OnceCell;

use crate::config::Config;
use crate::ir::{framing, Contributor, ContributorBody, Plugin};
use crate::tokenizer::TokenizerKind;

pub struct Measure {
    /// The text the contributor adds, as far as it is known.
    pub text: String,
    /// Tokens known from the configuration without counting.
    pub configured_tokens: u64,
    /// Whether the whole of what it adds is known before run time; when
    /// not, the measure is a lower bound.
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
                // What the workspace does not declare costs an unknown
                // amount (`unknown-tool` and friends say so): the sum is then
                // only a lower bound.
                let mut known = true;
                for tool in tools {
                    match config.tools.get(&tool.value) {
                        Some(tool) => configured_tokens += tool.schema_tokens,
                        None => known = false,
                    }
                }
                if let Some(load) = skill {
                    match config.skills.get(&load.skill.value) {
                        Some(skill) => {
                            configured_tokens += skill.manifest_tokens;
                            for operation in &load.operations {
                                match skill.operations.get(&operation.value) {
                                    Some(tokens) => configured_tokens += tokens,
                                    None => known = false,
                                }
                            }
                        }
                        None => known = false,
                    }
                }
                known
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

    /// Whether what is known fits in `budget` tokens. Every token covers at
    /// least one byte, so a text no longer in bytes than what the budget
    /// leaves fits without loading the tokenizer; otherwise the text is
    /// counted once, in full, and the count kept for [`Measure::tokens`]
    /// (stopping at the budget would save nothing: a text over it is then
    /// counted in full for the message, and one under it for
    /// `budget-unused`).
    pub fn fits(&self, budget: u64) -> bool {
        let Some(rest) = budget.checked_sub(self.configured_tokens) else {
            return false;
        };
        if self.counted.get().is_none() && self.text.len() as u64 <= rest {
            return true;
        }
        self.tokens() <= budget
    }

    /// Whether the text has been counted, for tests of laziness.
    #[cfg(test)]
    fn is_counted(&self) -> bool {
        self.counted.get().is_some()
    }
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
    use super::*;
    use crate::source::SourceFile;

    fn measure(body: &str, budget: u64) -> (Measure, u64) {
        let text = format!(
            "plugin acme/m 1.0.0 {{\n    owner agent-author\n    text t {{\n        placement agent\n        budget {budget} tokens\n        body \"{body}\"\n    }}\n}}\n"
        );
        let config = Config::platform();
        let analysis = crate::analyze(&SourceFile::new("m.contrib", text), &config);
        let plugin = analysis.plugin.expect("the manifest lowers");
        let contributor = &plugin.contributors[0];
        (Measure::new(&plugin, contributor, &config), budget)
    }

    #[test]
    fn a_short_text_fits_without_counting() {
        let (measure, budget) = measure("Be direct.", 20);
        assert!(measure.fits(budget));
        assert!(!measure.is_counted());
    }

    #[test]
    fn a_counted_fit_is_kept_for_tokens() {
        let (measure, budget) = measure("Challenge premises; do not call a design good.", 20);
        assert!(measure.fits(budget));
        assert!(
            measure.is_counted(),
            "fits counted, and tokens would count again"
        );
        assert_eq!(measure.tokens(), 10);
        assert!(!measure.fits(9));
    }
}

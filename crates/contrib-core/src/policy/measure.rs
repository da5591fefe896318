//! What a contributor adds to the context, measured in tokens.
//!
//! - `text` and `system-message`: the body's literal runs, each counted on
//!   its own, plus each variable at its bound in tokens and the seams where
//!   it meets the text ([`crate::vocabulary::variables`]), plus the framing of
//!   lower-priority text.
//! - `eager-load`: each tool's `schema_tokens`, the skill's
//!   `manifest_tokens` and each loaded operation's `tokens` (from the
//!   workspace configuration), plus framing. A tool, skill or operation the
//!   workspace does not declare makes the measure a lower bound. One that
//!   chooses from usage measures its candidates: the build loads only what
//!   fits the budget, so neither `over-budget` nor `budget-unused` applies.
//! - `eager-run`, `preface`, `fact`: only the call (or the fact sections'
//!   headings) is known before run time; the budget bounds the result, which
//!   the runtime refuses when it is larger (`fact-over-budget` computes a
//!   fact's worst case within the runtime's bounds).
//!
//! Counting is lazy and happens at most once per contributor:
//! [`Measure::fits`] answers from byte lengths when it can (a token covers
//! at least one byte), so a contributor whose known text is short never
//! loads the tokenizer; [`Measure::tokens_at_least`] bounds the count from
//! below by counting words, which settles `budget-unused` for honest
//! budgets; otherwise [`Measure::fits`] and [`Measure::tokens`] share one
//! exact count.

use std::cell::OnceCell;

use crate::config::Config;
use crate::tokenizer::TokenizerKind;
use crate::vocabulary::facts::sections_of;
use crate::vocabulary::variables::Variable;
use crate::vocabulary::{FactSection, Value};

/// What a contributor adds, in the terms it is measured in: the same
/// whether it comes from a manifest (the checker, the language server) or
/// from a bundle (a workspace re-measuring what it approved under its own
/// tokenizer and tools).
#[derive(Debug, Clone)]
pub enum Adds<'a> {
    /// A text or a system message: its literal runs and the variables
    /// between them.
    Text {
        literals: Vec<&'a str>,
        variables: Vec<&'static Variable>,
    },
    /// An eager load: its tools, and a skill's operations.
    Loads {
        tools: Vec<&'a str>,
        skill: Option<(&'a str, Vec<&'a str>)>,
        /// It chooses from usage: what it loads is chosen within its
        /// budget when the bundle is built.
        chosen: bool,
    },
    /// An eager run or a preface: only its call is known before run time.
    Call {
        tool: &'a str,
        arguments: Vec<(&'a str, &'a Value)>,
    },
    /// A fact: only its sections' headings are known before run time.
    Facts {
        heading: Option<&'a str>,
        says: Vec<FactSection>,
    },
}

pub struct Measure {
    /// The runs of text the contributor adds, as far as they are known,
    /// each counted on its own.
    pub runs: Vec<String>,
    /// Tokens known from the configuration without counting.
    pub configured_tokens: u64,
    /// Whether the whole of what it adds is known before run time; when
    /// not, the measure is a lower bound.
    pub complete: bool,
    /// Whether what it adds is chosen within its budget when the bundle is
    /// built (an eager load that chooses from usage): the runs are its
    /// candidates, not what it will add.
    pub chosen_within_budget: bool,
    tokenizer: TokenizerKind,
    counted: OnceCell<u64>,
}

impl Measure {
    /// The measure of what `adds`, behind `framing` when it is below agent
    /// priority, under `config`'s tools, skills and tokenizer.
    pub fn new(framing: Option<String>, adds: Adds<'_>, config: &Config) -> Self {
        let mut runs: Vec<String> = framing.map(|framing| framing + "\n").into_iter().collect();
        let mut configured_tokens = 0;
        let mut chosen_within_budget = false;
        let complete = match adds {
            Adds::Text {
                literals,
                variables,
            } => {
                runs.extend(literals.into_iter().map(str::to_string));
                configured_tokens += variables.iter().map(|v| v.budgeted_tokens()).sum::<u64>();
                true
            }
            Adds::Loads {
                tools,
                skill,
                chosen,
            } => {
                chosen_within_budget = chosen;
                let (tokens, known) = configured(config, &tools, skill.as_ref());
                configured_tokens += tokens;
                known
            }
            Adds::Call { tool, arguments } => {
                runs.push(call_text(tool, arguments));
                false
            }
            Adds::Facts { heading, says } => {
                // Each section's heading is known; what follows it is the
                // host's (`fact-over-budget` bounds it).
                for (heading, _) in sections_of(heading, &says) {
                    runs.push(format!("## {heading}\n"));
                }
                false
            }
        };
        Measure {
            runs,
            configured_tokens,
            complete,
            chosen_within_budget,
            tokenizer: config.tokenizer,
            counted: OnceCell::new(),
        }
    }

    /// The exact number of tokens, counted once.
    pub fn tokens(&self) -> u64 {
        *self.counted.get_or_init(|| {
            let counted: usize = self.runs.iter().map(|run| self.tokenizer.count(run)).sum();
            self.configured_tokens + counted as u64
        })
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
        self.configured_tokens + self.runs.iter().map(|run| words(run)).sum::<u64>()
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
        let bytes: usize = self.runs.iter().map(String::len).sum();
        if self.counted.get().is_none() && bytes as u64 <= rest {
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

/// Maximal runs of characters that one pre-tokenizer piece may hold
/// together: letters, digits, apostrophes and any non-ASCII character that
/// is not white space (counting those in is conservative: fewer runs).
///
/// Read byte by byte through [`JOINS`] rather than character by character:
/// a character beyond ASCII joins unless it is white space, and only four
/// leading bytes begin one that is, so only those are decoded.
fn words(text: &str) -> u64 {
    let mut runs = 0;
    let mut in_run = false;
    for (at, &byte) in text.as_bytes().iter().enumerate() {
        let joins = match JOINS[usize::from(byte)] {
            Class::Joins => true,
            Class::Breaks => false,
            Class::Inside => continue,
            Class::Decode => !text[at..].chars().next().is_some_and(char::is_whitespace),
        };
        runs += u64::from(joins && !in_run);
        in_run = joins;
    }
    runs
}

/// What a byte of UTF-8 says about the character it begins, for [`words`].
#[derive(Clone, Copy)]
enum Class {
    /// Begins a character that joins a run.
    Joins,
    /// Is a character that ends a run.
    Breaks,
    /// Continues a character: its first byte decided.
    Inside,
    /// Begins a character that may be white space (U+0085, U+00A0,
    /// U+1680, U+2000–U+205F, U+3000 begin with 0xC2, 0xE1, 0xE2, 0xE3).
    Decode,
}

static JOINS: [Class; 256] = {
    let mut table = [Class::Joins; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = match b {
            b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'\'' => Class::Joins,
            0..=0x7f => Class::Breaks,
            0x80..=0xbf => Class::Inside,
            0xc2 | 0xe1 | 0xe2 | 0xe3 => Class::Decode,
            _ => Class::Joins,
        };
        byte += 1;
    }
    table
};

/// What an eager load's tools and skill cost as `config` declares them,
/// and whether all of it is declared: what the workspace does not declare
/// costs an unknown amount (`unknown-tool` and friends say so), and the
/// sum is then only a lower bound.
fn configured(config: &Config, tools: &[&str], skill: Option<&(&str, Vec<&str>)>) -> (u64, bool) {
    let mut tokens = 0;
    let mut known = true;
    for tool in tools {
        match config.tools.get(*tool) {
            Some(tool) => tokens += tool.schema_tokens,
            None => known = false,
        }
    }
    if let Some((name, operations)) = skill {
        match config.skills.get(*name) {
            Some(skill) => {
                tokens += skill.manifest_tokens;
                for operation in operations {
                    match skill.operations.get(*operation) {
                        Some(cost) => tokens += cost,
                        None => known = false,
                    }
                }
            }
            None => known = false,
        }
    }
    (tokens, known)
}

/// A call as the model sees it: the tool and its arguments as a JSON
/// object, keys in order.
fn call_text(tool: &str, arguments: Vec<(&str, &Value)>) -> String {
    let arguments: std::collections::BTreeMap<&str, &Value> = arguments.into_iter().collect();
    let json = serde_json::to_string(&arguments).unwrap_or_default();
    format!("{tool} {json}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(body: &str, budget: u64) -> (Measure, u64) {
        let adds = Adds::Text {
            literals: vec![body],
            variables: Vec::new(),
        };
        (Measure::new(None, adds, &Config::platform()), budget)
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

    /// The byte-wise reading counts what a reading by characters counts,
    /// around every white-space character beyond ASCII and the bytes that
    /// begin them in characters that are not white space.
    #[test]
    fn words_by_bytes_agree_with_words_by_characters() {
        fn by_characters(text: &str) -> u64 {
            let mut runs = 0;
            let mut in_run = false;
            for c in text.chars() {
                let joins =
                    c.is_alphanumeric() || c == '\'' || (!c.is_ascii() && !c.is_whitespace());
                runs += u64::from(joins && !in_run);
                in_run = joins;
            }
            runs
        }
        let unusual: String = (0x80..0x3100)
            .filter_map(char::from_u32)
            .filter(|c| c.is_whitespace() || c.len_utf8() > 1)
            .step_by(7)
            .collect();
        let mut texts = vec![
            "don't won't café naïve 日本語 ab\u{a0}cd\u{85}e\u{1680}f\u{2000}g\u{200a}h\u{2028}i\u{202f}j\u{205f}k\u{3000}l"
                .to_string(),
            unusual,
            String::new(),
            "\u{a0}".to_string(),
        ];
        for c in (0x80..0x3100).filter_map(char::from_u32) {
            texts.push(format!("a{c}b {c} {c}{c}"));
        }
        for text in &texts {
            assert_eq!(words(text), by_characters(text), "{text:?}");
        }
    }
}

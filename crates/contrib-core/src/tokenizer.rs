//! Token counting with a real tokenizer.
//!
//! Budgets are what a person approves, so they are measured with the same
//! byte-pair encodings the models use: the exact counts of OpenAI's
//! encodings, computed by `toktally` (`crates/toktally`, tested equal to
//! `bpe-openai` and tiktoken on every input it has seen, and several times
//! faster), whose vocabularies are compiled into the binary: nothing is
//! downloaded at run time. A vocabulary is loaded on first use only, so
//! checking a manifest that has nothing to measure never pays for it; each
//! thread remembers the counts of the pieces it has seen, so text that
//! repeats (most of it) is counted once.
//!
//! To add a tokenizer: add a variant to [`TokenizerKind`] with its spelling,
//! and return its encoding from `TokenizerKind::encoding`.

use std::fmt;

/// The tokenizers a workspace can choose in `[workspace] tokenizer`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum TokenizerKind {
    /// OpenAI's o200k_base (GPT-4o and later).
    #[default]
    #[serde(rename = "o200k")]
    O200k,
    /// OpenAI's cl100k_base (GPT-4, GPT-3.5).
    #[serde(rename = "cl100k")]
    Cl100k,
}

impl TokenizerKind {
    pub const ALL: [TokenizerKind; 2] = [TokenizerKind::O200k, TokenizerKind::Cl100k];

    pub fn as_str(self) -> &'static str {
        match self {
            TokenizerKind::O200k => "o200k",
            TokenizerKind::Cl100k => "cl100k",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == text)
    }

    fn encoding(self) -> toktally::Encoding {
        match self {
            TokenizerKind::O200k => toktally::Encoding::O200k,
            TokenizerKind::Cl100k => toktally::Encoding::Cl100k,
        }
    }

    /// The exact number of tokens in `text`.
    pub fn count(self, text: &str) -> usize {
        self.encoding().count(text)
    }

    /// Whether `text` has at most `limit` tokens, without counting past the
    /// limit. Every token covers at least one byte, so a text no longer in
    /// bytes than the limit fits without loading the tokenizer at all.
    pub fn fits(self, text: &str, limit: usize) -> bool {
        text.len() <= limit || self.encoding().count_up_to(text, limit).is_some()
    }
}

impl fmt::Display for TokenizerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_real_tokens() {
        assert_eq!(TokenizerKind::O200k.count(""), 0);
        assert_eq!(TokenizerKind::O200k.count("hello world"), 2);
        assert_eq!(TokenizerKind::Cl100k.count("hello world"), 2);
    }

    #[test]
    fn fits_agrees_with_count() {
        let text =
            "Challenge premises; do not call a design good when it is merely fine. ".repeat(20);
        let count = TokenizerKind::O200k.count(&text);
        assert!(TokenizerKind::O200k.fits(&text, count));
        assert!(!TokenizerKind::O200k.fits(&text, count - 1));
    }
}

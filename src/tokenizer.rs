//! Token counting with a real tokenizer.
//!
//! Budgets are what a person approves, so they are measured with the same
//! byte-pair encodings the models use (`bpe-openai`, whose vocabularies are
//! compiled into the binary: nothing is downloaded at run time). A
//! vocabulary is loaded on first use only, so checking a manifest that has
//! nothing to measure never pays for it.
//!
//! To add a tokenizer: add a variant to [`TokenizerKind`] with its spelling,
//! and return its encoder from [`TokenizerKind::encoder`].

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

    fn encoder(self) -> &'static bpe_openai::Tokenizer {
        match self {
            TokenizerKind::O200k => bpe_openai::o200k_base(),
            TokenizerKind::Cl100k => bpe_openai::cl100k_base(),
        }
    }

    /// The exact number of tokens in `text`.
    pub fn count(self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        self.encoder().count(text)
    }

    /// Whether `text` has at most `limit` tokens, without counting past the
    /// limit. Every token covers at least one byte, so a text no longer in
    /// bytes than the limit fits without loading the tokenizer at all.
    pub fn fits(self, text: &str, limit: usize) -> bool {
        if text.len() <= limit {
            return true;
        }
        let encoder = self.encoder();
        let normalized = encoder.normalize(text);
        encoder
            .count_till_limit(&normalized, limit + 1)
            .is_some_and(|count| count <= limit)
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

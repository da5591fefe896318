//! One file per request or notification the server answers, as taplo
//! lays its server out. Each handler is a function of a [`Snapshot`] (the
//! document, its analysis and its configuration) and the request's
//! parameters, so tests call it directly, without a client.
//!
//! [`Snapshot`]: super::state::Snapshot

pub mod code_action;
pub mod code_lens;
pub mod completion;
pub mod definition;
pub mod diagnostics;
pub mod formatting;
pub mod hover;
pub mod inlay_hint;
pub mod preview;
pub mod semantic_tokens;
pub mod symbols;

#[cfg(test)]
mod tests;

use lsp_types::TextEdit;

use super::convert;
use crate::source::{floor_char_boundary, SourceFile, Span};

/// One edit that turns `source` into `new_text`, covering only what
/// differs (the common prefix and suffix are kept, so the client keeps the
/// cursor and undo history outside it); `None` when nothing differs.
pub fn whole_document_edit(source: &SourceFile, new_text: &str) -> Option<TextEdit> {
    let old: &str = &source.text;
    if old == new_text {
        return None;
    }
    let prefix = old
        .bytes()
        .zip(new_text.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let prefix = floor_char_boundary(old, prefix).min(floor_char_boundary(new_text, prefix));
    let suffix = old[prefix..]
        .bytes()
        .rev()
        .zip(new_text[prefix..].bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut old_end = old.len() - suffix;
    let mut new_end = new_text.len() - suffix;
    while !old.is_char_boundary(old_end) || !new_text.is_char_boundary(new_end) {
        old_end += 1;
        new_end += 1;
    }
    Some(TextEdit::new(
        convert::range(source, Span::new(prefix, old_end)),
        new_text[prefix..new_end].to_string(),
    ))
}

//! `textDocument/formatting`, through `contrib fmt`'s formatter.
//!
//! The server announces formatting when [`FORMATTER`] is set
//! (`documentFormattingProvider` follows `FORMATTER.is_some()`). Text that
//! does not parse is left alone (the formatter's diagnostic is already
//! published by the checker).

use lsp_types::{DocumentFormattingParams, TextEdit};

use super::whole_document_edit;
use crate::diagnostic::Diagnostic;
use crate::lsp::version::Syntax;
use crate::lsp::world::World;
use crate::source::SourceFile;

/// A formatter: the text, formatted, or why it cannot be.
pub type Formatter = fn(&str) -> Result<String, Diagnostic>;

/// The formatter the server uses.
pub const FORMATTER: Option<Formatter> = Some(crate::fmt::format);

/// The route's handler: the edits that format the open manifest.
pub fn request(world: &mut World, params: DocumentFormattingParams) -> Option<Vec<TextEdit>> {
    let document = world.state.manifest(&params.text_document.uri)?;
    Some(formatting(&document.source, document.syntax()))
}

/// The edits that format `source` with `contrib fmt`'s formatter, from the
/// version's own tree (read once) and computed once per version. Text with
/// a syntax error is left alone.
pub fn formatting(source: &SourceFile, syntax: &Syntax) -> Vec<TextEdit> {
    syntax
        .formatting(|syntax| {
            let tree = match syntax.tree() {
                Some(tree) if syntax.errors().is_empty() => tree,
                _ => return Vec::new(),
            };
            match crate::fmt::format_tree(&source.text, tree) {
                Ok(formatted) => whole_document_edit(source, &formatted)
                    .into_iter()
                    .collect(),
                Err(_) => Vec::new(),
            }
        })
        .to_vec()
}

/// The edits that format `source` with `formatter`: one edit covering
/// what changed, or none when nothing did.
pub fn format_with(formatter: Option<Formatter>, source: &SourceFile) -> Vec<TextEdit> {
    let Some(format) = formatter else {
        return Vec::new();
    };
    match format(&source.text) {
        Ok(formatted) => whole_document_edit(source, &formatted)
            .into_iter()
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shout(text: &str) -> Result<String, Diagnostic> {
        Ok(text.replace("agent", "AGENT"))
    }

    #[test]
    fn a_formatter_hooks_up_as_one_edit_of_what_changed() {
        let source = SourceFile::new("x", "a\nplacement agent\nb\n");
        let edits = format_with(Some(shout), &source);
        assert_eq!(edits.len(), 1);
        assert_eq!(edits[0].new_text, "AGENT");
        assert_eq!(edits[0].range.start, lsp_types::Position::new(1, 10));
        assert!(format_with(None, &source).is_empty());
        let syntax = Syntax::new(source.text.clone());
        assert!(formatting(&source, &syntax).is_empty());
    }
}

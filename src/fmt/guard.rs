//! What the formatter refuses rather than guess at.
//!
//! The two open ends the grammar accepts so that lowering can explain them:
//! a string whose closing quotes never come, and a block whose `}` never
//! comes. Formatting either would mean guessing where the author meant it
//! to end, and a wrong guess moves text into or out of a string.
//!
//! And a list written without brackets, as the language's first version
//! did (`tools a, b`): the comma ends the field, and only the words' being
//! on one line says they were one list. Putting each item on a line of its
//! own would lose that, so the file is left for `contrib migrate`.

use crate::codes::{SYNTAX_ERROR, UNBRACKETED_LIST};
use crate::diagnostic::Diagnostic;
use crate::lower::strings;
use crate::source::Span;
use crate::syntax::tree::{Block, File, Item, Token};

/// The first open end in the file, as an error.
pub(super) fn open_ends(file: &File<'_>) -> Result<(), Diagnostic> {
    items(&file.items)
}

/// What lowering reports that the formatter must not tidy away: a list
/// written without brackets, and a syntax error inside a block (a field
/// written `placement: agent`, a block nested where none goes), which the
/// file is refused for, as `contrib check` reports it. Errors about the file
/// as a whole (no plugin, a field outside it) are not refused: what is
/// outside a block is kept as written, and an empty file stays empty.
pub(super) fn what_lowering_refuses(file: &File<'_>) -> Result<(), Diagnostic> {
    let blocks: Vec<Span> = file
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Block(block) => Some(block.span),
            _ => None,
        })
        .collect();
    let inside_a_block = |diagnostic: &Diagnostic| {
        let span = diagnostic.span();
        !diagnostic.labels.is_empty()
            && blocks
                .iter()
                .any(|block| block.start < span.start && span.end <= block.end)
    };
    let refused = crate::lower::lower(file)
        .diagnostics
        .into_iter()
        .find(|diagnostic| {
            diagnostic.rule == &UNBRACKETED_LIST
                || (diagnostic.rule == &SYNTAX_ERROR && inside_a_block(diagnostic))
        });
    match refused {
        Some(diagnostic) if diagnostic.rule == &UNBRACKETED_LIST => Err(diagnostic.help(
            "run `contrib migrate` on this file first: lists are written in brackets, `[a, b]`",
        )),
        Some(diagnostic) => Err(diagnostic),
        None => Ok(()),
    }
}

fn items(items: &[Item<'_>]) -> Result<(), Diagnostic> {
    for item in items {
        match item {
            Item::Block(block) => self::block(block)?,
            Item::Field(field) => tokens(&field.tokens)?,
            Item::Pair(pair) => tokens(std::slice::from_ref(&pair.value))?,
        }
    }
    Ok(())
}

fn block(block: &Block<'_>) -> Result<(), Diagnostic> {
    items(&block.items)?;
    if block.close.is_none() {
        return Err(Diagnostic::new(
            &SYNTAX_ERROR,
            format!("unclosed `{}` block", block.keyword.text),
        )
        .primary(block.open, "this `{` is never closed")
        .help("add the matching `}` on a line of its own, then format again"));
    }
    Ok(())
}

fn tokens(tokens: &[Token<'_>]) -> Result<(), Diagnostic> {
    for token in tokens {
        match token {
            Token::Str(literal) if !literal.terminated => {
                return Err(strings::unterminated(literal))
            }
            Token::List(list) => self::tokens(&list.items)?,
            _ => {}
        }
    }
    Ok(())
}

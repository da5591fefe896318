//! `contrib fmt`: one canonical layout for every manifest.
//!
//! A catalog holds manifests from many authors. One layout ends arguments
//! about style and makes a diff show only what changed in meaning, as
//! `gofmt` and `rustfmt` do. The formatter works from the syntax tree and
//! the source text, never from the IR, so it formats files that lowering
//! rejects (a misspelt field, a missing budget) without dropping a byte of
//! what the author wrote.
//!
//! # The canonical layout
//!
//! - Four spaces per level of nesting; one field per line; no trailing
//!   white space outside strings; `\n` line endings (CRLF, a lone CR and
//!   mixed endings all become `\n`); exactly one newline at the end of the
//!   file (an empty file stays empty).
//! - A byte-order mark is dropped: it carries no meaning, and canonical
//!   files are plain UTF-8. (One is written only when the first item's
//!   name itself starts with U+FEFF, which would otherwise be read back as
//!   the mark and lost.)
//! - At the top of the file and inside the plugin block, blocks are set
//!   apart by one blank line: a blank line after the plugin's own fields
//!   and between contributors. Inside contributors and calls there are no
//!   blank lines, except one the author put between comments or between a
//!   comment and what it annotates.
//! - Tokens are separated by one space; a comma hugs the word before it:
//!   `tools a, b`, `says date, os`, `when idle > 4h`; lists are `[a, b]`.
//! - A `call` is one line: `call tool { key: value, key2: value2 }`, or
//!   `call tool {}`. A call with a comment inside its braces, or with a
//!   multi-line `"""` argument, keeps one argument per line so that every
//!   comment stays beside its argument. An empty block of any other kind is
//!   `kind id {}`.
//! - Fields keep their names and values as written: the formatter never
//!   respells a value, even a misspelt one.
//!
//! # Field order
//!
//! The plugin's fields come first, as `owner`, `summary`, then every
//! `requires`, then any other field; then its contributors, in the order
//! written (their order is part of the manifest's meaning).
//!
//! A contributor's fields follow the table of kinds' canonical order
//! ([`crate::ir::kinds::FIELDS`]), each kind taking the fields it has
//! ([`crate::ir::KindSpec::fields`]); `docs/formatting.md` shows the order
//! per kind, generated from the table.
//!
//! Anything else in a contributor (an unknown or misspelt field, a field of
//! another kind, a nested block) goes after these, in the order written.
//! Fields given twice keep their order, so lowering still reports the same
//! one as the duplicate. A block of an unknown kind keeps its fields in the
//! order written.
//!
//! # Strings
//!
//! A string's value never changes. `"…"` strings and `"""…"""` blocks on
//! one line are kept exactly as written, escapes included. A `"""` block
//! over several lines is re-indented: its lines go four spaces deeper than
//! the line it starts on and the closing `"""` goes on a line of its own at
//! that depth, which keeps its value (the value's first and last blank lines
//! and common indentation are dropped in any case). A block too long to
//! re-indent within the string limit is kept as written.
//!
//! # Comments
//!
//! Every comment is kept, in order, with trailing white space trimmed.
//!
//! - A comment on its own line belongs to the item after it, and moves with
//!   it when fields are reordered; comments at the top of the file (licence
//!   notes, `# contrib: allow(…)` suppressions) therefore stay on top, above
//!   the plugin.
//! - A comment after an item on the same line stays after it; one after a
//!   block's `{` stays after the `{`.
//! - Comments after a block's last item stay at the end of the block.
//! - A comment inside an item that the layout puts on one line (inside a
//!   list, or between a call argument's `:` and its value) moves to its own
//!   line just before the item.
//!
//! # What is refused
//!
//! A file with a syntax error is not formatted: [`format()`] returns the
//! error. That includes the syntax errors inside a block that the grammar
//! accepts so that lowering can explain them (a field written
//! `placement: agent`, a block nested where none goes): laying those out
//! would tidy what the author did not mean. So is a file with a string whose closing quotes never come, or a
//! block whose `}` never comes, since the formatter cannot know where the
//! author meant them to end.

mod attach;
mod guard;
mod layout;
mod order;

use crate::codes::LIMIT_EXCEEDED;
use crate::diagnostic::Diagnostic;
use crate::limits::MAX_FILE_BYTES;
use crate::source::Span;
use crate::syntax;

/// Formats a manifest to the canonical layout, or returns why it cannot be.
///
/// ```
/// let text = "plugin acme/notes 1.0.0 {\r\n  owner   agent-author\r\n}";
/// assert_eq!(
///     contrib::fmt::format(text).unwrap(),
///     "plugin acme/notes 1.0.0 {\n    owner agent-author\n}\n",
/// );
/// ```
pub fn format(text: &str) -> Result<String, Diagnostic> {
    if text.len() > MAX_FILE_BYTES {
        return Err(too_large(text.len(), "the file is"));
    }
    let tree = syntax::parse(text)?;
    format_tree(text, &tree)
}

/// [`format()`] from a tree already read, as the language server keeps one
/// per version.
pub fn format_tree(text: &str, tree: &syntax::tree::File<'_>) -> Result<String, Diagnostic> {
    if text.len() > MAX_FILE_BYTES {
        return Err(too_large(text.len(), "the file is"));
    }
    guard::open_ends(tree)?;
    guard::what_lowering_refuses(tree)?;
    lay_out(text, tree)
}

/// A fragment (fields outside a plugin, as the layout's unit tests write
/// them) formatted without the refusal of lowering's syntax errors.
#[cfg(test)]
pub(crate) fn format_fragment(text: &str) -> Result<String, Diagnostic> {
    let tree = syntax::parse(text)?;
    guard::open_ends(&tree)?;
    lay_out(text, &tree)
}

fn lay_out(text: &str, tree: &syntax::tree::File<'_>) -> Result<String, Diagnostic> {
    let document = attach::document(text, tree);
    let mut formatted = layout::render(&document);
    if formatted.starts_with(BOM) {
        // The first item's name starts with U+FEFF, which the grammar reads
        // as a byte-order mark at the start of a file: the character would
        // be dropped from the name. One mark in front keeps it in.
        formatted.insert(0, BOM);
    }
    if formatted.len() > MAX_FILE_BYTES {
        return Err(too_large(formatted.len(), "formatted, the file would be"));
    }
    Ok(formatted)
}

const BOM: char = '\u{feff}';

fn too_large(len: usize, what: &str) -> Diagnostic {
    Diagnostic::new(
        &LIMIT_EXCEEDED,
        format!("{what} {len} bytes, over the limit of {MAX_FILE_BYTES} (4 MiB)"),
    )
    .primary(Span::point(0), "file too large")
    .help("split the manifest into several plugins; real manifests are a few kilobytes")
}

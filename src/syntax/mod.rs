//! Source text → syntax tree.
//!
//! The pest grammar (`grammar/contrib.pest`) reads structure and literals;
//! [`build`] turns pest's pairs into the spanned [`tree`]; pest's errors are
//! converted into our own diagnostics with byte spans over the whole source.

mod build;
mod errors;
mod guard;
mod parser;
pub mod tree;

use crate::diagnostic::Diagnostic;

/// Parses a manifest into its syntax tree, or the first syntax error.
///
/// Input that would make the parser recurse too deeply is refused first, so
/// no input can overflow the stack.
pub fn parse(text: &str) -> Result<tree::File<'_>, Diagnostic> {
    guard::check_nesting(text)?;
    let pairs = parser::parse_file(text).map_err(|error| errors::from_pest(text, &error))?;
    Ok(build::file(text, pairs))
}

//! Source text → syntax tree.
//!
//! The pest grammar (`grammar/contrib.pest`) reads structure and literals;
//! `build` turns pest's pairs into the spanned [`tree`]; pest's errors are
//! converted into our own diagnostics with byte spans over the whole source.
//! [`parse`] wants the whole file right (the formatter rewrites nothing
//! else); [`parse_recovering`] reads what it can around broken constructs
//! (see `recover`), for the checker and the language server.

mod build;
mod errors;
mod guard;
mod parser;
mod recover;
pub mod tree;

pub use errors::unclosed;
pub use recover::Parsed;

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

/// Parses a manifest, recovering from syntax errors: everything outside a
/// broken construct reads as it would without it, and each broken
/// construct is one error.
pub fn parse_recovering(text: &str) -> Parsed<'_> {
    if let Err(error) = guard::check_nesting(text) {
        return Parsed {
            file: None,
            errors: vec![error],
        };
    }
    match parser::parse_file(text) {
        Ok(pairs) => {
            let file = build::file(text, pairs);
            if recover::is_sound(&file) {
                return Parsed {
                    file: Some(file),
                    errors: Vec::new(),
                };
            }
            recover::in_chunks(text).unwrap_or(Parsed {
                file: Some(file),
                errors: Vec::new(),
            })
        }
        Err(error) => recover::in_chunks(text).unwrap_or_else(|| Parsed {
            file: None,
            errors: vec![errors::from_pest(text, &error)],
        }),
    }
}

//! Globs over `/`-separated paths: `when file-changed` and `files` activation
//! patterns, and `contrib.toml`'s `exclude` lines.
//!
//! The syntax is the one ripgrep's `globset` reads (and so the one the
//! gitignore reader of file discovery reads): `?` and `*` within one path
//! component, `**` across components when it is a whole component, `[...]`
//! classes (`!` or `^` negates, `a-z` ranges, `[:alpha:]` and the other
//! POSIX names), `{a,b}` alternatives, which may nest, and `\` escaping the
//! next character. A separator is matched only by a `/` in the pattern.
//! Tests hold this module to `globset` itself, on what it accepts and on
//! what matches, so a pattern the checker accepted means at run time what
//! it meant when it was checked.
//!
//! The module is the crate's own so that a host embedding the runtime does
//! not compile a regular expression engine to match a handful of paths:
//! a pattern becomes a small automaton that is run over the path once,
//! character by character, so matching takes time proportional to the
//! pattern's length times the path's, whatever the pattern.
//!
//! Two choices differ from `globset`'s defaults, on purpose: `\` always
//! escapes (a bundle means the same on every host, Windows included), and
//! `?` and classes match one character where `globset` matches one byte
//! (the same on ASCII paths).

mod automaton;
mod parse;

use automaton::Automaton;

/// A pattern, checked and ready to match paths.
#[derive(Debug, Clone)]
pub struct Glob {
    pattern: String,
    automaton: Automaton,
}

/// How a pattern is read.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// A `[` without its `]` is a literal `[`, as gitignore reads it,
    /// rather than an error.
    pub allow_unclosed_class: bool,
}

/// Why a pattern is not a glob.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A `[` has no `]`.
    UnclosedClass,
    /// A range runs backwards, as `z-a`.
    InvalidRange(char, char),
    /// A `}` or `,` closes or divides an alternative never opened.
    UnopenedAlternates,
    /// A `{` is never closed.
    UnclosedAlternates,
    /// Alternatives are nested deeper than [`MAX_NESTING`].
    TooManyNestedAlternates,
    /// The pattern ends in a lone `\`.
    DanglingEscape,
}

/// How deeply alternatives may nest: `globset`'s limit.
pub const MAX_NESTING: usize = 100;

impl std::fmt::Display for Error {
    /// `globset`'s words, which diagnostics quoted before this module.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::UnclosedClass => f.write_str("unclosed character class; missing ']'"),
            Error::InvalidRange(start, end) => write!(f, "invalid range; '{start}' > '{end}'"),
            Error::UnopenedAlternates => {
                f.write_str("unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)")
            }
            Error::UnclosedAlternates => {
                f.write_str("unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)")
            }
            Error::TooManyNestedAlternates => f.write_str("alternate groups nested too deeply"),
            Error::DanglingEscape => f.write_str("dangling '\\'"),
        }
    }
}

impl std::error::Error for Error {}

impl Glob {
    /// Reads `pattern` with the default options.
    pub fn new(pattern: &str) -> Result<Glob, Error> {
        Glob::with(pattern, Options::default())
    }

    /// Reads `pattern` as `options` say.
    pub fn with(pattern: &str, options: Options) -> Result<Glob, Error> {
        let tokens = parse::parse(pattern, options)?;
        Ok(Glob {
            pattern: pattern.to_string(),
            automaton: Automaton::of(&tokens),
        })
    }

    /// The pattern as written.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether `path` (components separated by `/`) matches the whole
    /// pattern.
    pub fn is_match(&self, path: &str) -> bool {
        self.automaton.accepts(path)
    }
}

#[cfg(test)]
mod tests;

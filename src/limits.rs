//! Limits on what one manifest may hold.
//!
//! Manifests come from many authors, and every stage that reads them must
//! finish in time and memory proportional to their size. Each limit here is
//! far above what a real manifest needs and is reported as a located
//! `limit-exceeded` error, never a panic or a hang.

/// Largest manifest read, in bytes. Real manifests are a few kilobytes; the
/// largest skill body in the corpus is about 72 KB.
pub const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;

/// Deepest nesting of `{ }` blocks and `[ ]` lists together. The language
/// needs three levels (plugin, contributor, call arguments) plus lists.
pub const MAX_NESTING: usize = 32;

/// Longest single string literal, in bytes.
pub const MAX_STRING_BYTES: usize = 1024 * 1024;

/// Most contributors in one plugin.
pub const MAX_CONTRIBUTORS: usize = 4096;

/// Most template variables in one body.
pub const MAX_TEMPLATE_VARIABLES: usize = 256;

/// Most items in one list of tools, operations, fact sections or globs: the
/// bound the platform's fact sections use, and far more than a
/// conversation should load up front.
pub const MAX_LIST_ITEMS: usize = 64;

/// Longest name (a plugin, contributor, tool, skill, operation, command or
/// subagent), in characters: names appear in paths, approval screens and
/// turn records.
pub const MAX_NAME_CHARS: usize = 200;

/// Longest description of a text the model may ask for, in characters: it
/// is kept in the system prompt for every conversation.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;

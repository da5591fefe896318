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

/// Limits on the other files `contrib` reads, each far above what a real
/// one holds, so that a hostile or mistaken path (a huge file, `/dev/zero`
/// behind a link) is refused with a message instead of filling memory.
pub mod files {
    use crate::fs::Limit;

    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;

    /// A manifest: [`super::MAX_FILE_BYTES`].
    pub const MANIFEST: Limit = Limit::new(super::MAX_FILE_BYTES as u64, "a manifest");
    /// `contrib.toml`: real ones are a few kilobytes.
    pub const CONFIG: Limit = Limit::new(MIB, "a configuration");
    /// A session, a turns file, a cache profiles file.
    pub const RUNTIME_INPUT: Limit = Limit::new(MIB, "a runtime input file");
    /// A bundle: a 4 MiB manifest's text, escaped as JSON, with room.
    pub const BUNDLE: Limit = Limit::new(32 * MIB, "a bundle");
    /// `catalog.lock`: about 300 bytes per published version.
    pub const LOCK: Limit = Limit::new(64 * MIB, "a catalog lock");
    /// A key or a detached signature: under 200 bytes.
    pub const KEY: Limit = Limit::new(64 * KIB, "a key or signature file");
    /// A `README.md` read for its attribution table.
    pub const README: Limit = Limit::new(MIB, "a README read for attribution");
    /// A usage file (one JSON line per recorded turn, about 150 bytes
    /// each): a million turns with room.
    pub const USAGE: Limit = Limit::new(256 * MIB, "a usage file");
    /// The check cache's index.
    pub const CACHE_INDEX: Limit = Limit::new(256 * MIB, "the check cache");
    /// `check --baseline`: about 300 bytes per recorded finding.
    pub const BASELINE: Limit = Limit::new(256 * MIB, "a baseline");
}

/// Largest magnitude of an integer in a manifest (a call argument, a
/// duration in seconds): 2^53 − 1. A bundle is canonical JSON (RFC 8785),
/// whose numbers every reader takes as IEEE doubles, which hold integers
/// exactly only up to here: `9007199254740993` would be published as
/// `…992`, and `i64::MAX` as a number no bundle loader accepts.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

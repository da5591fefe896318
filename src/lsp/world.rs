//! What every handler may read and change: the open documents and their
//! analyses ([`State`]), where rule explanations live, and what the client
//! said it can do. taplo calls this its `world`; it is the one place the
//! server keeps state a handler can see.

use super::rule_docs::RuleDocs;
use super::state::State;

/// The state the handlers share.
#[derive(Default)]
pub struct World {
    /// The documents, their versions and analyses.
    pub state: State,
    /// Where a diagnostic's rule is explained (`ruleDocsUrl`).
    pub docs: RuleDocs,
    /// What the client said it can do.
    pub client: ClientFlags,
}

/// What the client said it can do, as far as the server cares.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClientFlags {
    /// Whether completions may be snippets.
    pub snippets: bool,
    /// Whether it takes a `client/registerCapability` for file watching.
    pub watches_files: bool,
}

//! Why a plugin version was refused: the one answer every step of the
//! trust stage gives (reading the approved copy, loading, fetching,
//! installing), kept below them all so that none depends on another for
//! it.

use contrib_core::diagnostic::Rule;

/// A plugin version refused where trust changes hands.
#[derive(Debug, Clone)]
pub struct Refused {
    /// `scope/name@version`.
    pub plugin: String,
    pub rule: &'static Rule,
    pub reason: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} [{}]: {}", self.plugin, self.rule.name, self.reason)
    }
}

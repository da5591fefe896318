//! The workspace configuration, `contrib.toml`.

use crate::diagnostic::Rule;

/// The configuration's own diagnostics.
pub static RULES: &[&Rule] = &[];

//! The checker's semantic rules: one file per rule, listed in [`registry`].

use crate::diagnostic::Rule;

/// A semantic rule and the function that applies it.
pub struct CheckRule {
    pub rule: &'static Rule,
}

/// Every checker rule.
pub fn registry() -> &'static [CheckRule] {
    &[]
}

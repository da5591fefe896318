//! The canonical order of fields, documented in the module above.
//!
//! A contributor's fields follow the order of its kind's row in the table of
//! kinds (`ir::kinds`), the same for every kind: owner, placement, priority,
//! reach, applies, when, source, origin, heading, budget, then what it adds.
//! Sorting is stable: anything without a place keeps the order it was
//! written in, after the fields that have one.

use crate::ir::Kind;

/// What ordering needs to know of a block's item: the word it starts with,
/// and whether it is a block. The tree of comments and items
/// (`super::attach`) implements it; this module knows nothing else of it.
pub(super) trait Item {
    fn keyword(&self) -> &str;
    fn is_block(&self) -> bool;
}

/// What a block is, which decides how its items are ordered and spaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// The top of the file.
    File,
    Plugin,
    Contributor(Kind),
    Call,
    /// Any other block: a misspelt kind, a nested plugin. Kept as written.
    Other,
}

impl Role {
    /// Whether blocks among this block's items are set apart by blank
    /// lines.
    pub(super) fn spaces_blocks(self) -> bool {
        matches!(self, Role::File | Role::Plugin)
    }
}

/// The role of a block named `keyword` inside a block of role `parent`.
pub(super) fn role(parent: Role, keyword: &str) -> Role {
    match (parent, keyword) {
        (_, "call") => Role::Call,
        (Role::File, "plugin") => Role::Plugin,
        (Role::Plugin, keyword) => Kind::parse(keyword).map_or(Role::Other, Role::Contributor),
        _ => Role::Other,
    }
}

const PLUGIN: &[&str] = &["owner", "summary", "requires"];

/// Puts a block's entries in canonical order for its role.
pub(super) fn sort(entries: &mut [impl Item], role: Role) {
    match role {
        Role::Plugin => entries.sort_by_key(plugin_rank),
        Role::Contributor(kind) => entries.sort_by_key(|entry| contributor_rank(kind, entry)),
        Role::File | Role::Call | Role::Other => {}
    }
}

/// The plugin's own fields first, in `PLUGIN` order, then any other field,
/// then the blocks (contributors) in the order written.
fn plugin_rank(entry: &impl Item) -> usize {
    if entry.is_block() {
        return PLUGIN.len() + 1;
    }
    position(PLUGIN.iter(), entry.keyword()).unwrap_or(PLUGIN.len())
}

/// A contributor's fields in the table's canonical order (`ir::kinds`):
/// who and where, when, what it claims, its budget, what it adds.
fn contributor_rank(kind: Kind, entry: &impl Item) -> usize {
    position(kind.spec().fields.iter(), entry.keyword()).unwrap_or(usize::MAX)
}

fn position<'k>(mut order: impl Iterator<Item = &'k &'static str>, keyword: &str) -> Option<usize> {
    order.position(|name| *name == keyword)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles() {
        assert_eq!(role(Role::File, "plugin"), Role::Plugin);
        assert_eq!(role(Role::Plugin, "text"), Role::Contributor(Kind::Text));
        assert_eq!(role(Role::Plugin, "txt"), Role::Other);
        assert_eq!(role(Role::Contributor(Kind::EagerRun), "call"), Role::Call);
        assert_eq!(role(Role::Plugin, "plugin"), Role::Other);
    }
}

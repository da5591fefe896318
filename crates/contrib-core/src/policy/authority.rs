//! Authority flows down: a contributor's owner may only narrow its
//! plugin's, and its placement and priority stay within what its owner may
//! claim. What a plugin's owner says is a request; the authority granted
//! is decided when it is installed ([`narrower`]).

use std::fmt;

use crate::vocabulary::{Owner, Placement, Priority};

/// The narrower of two owners: authority only narrows. A person
/// installing an operator's plugin does not make it platform text.
pub fn narrower(owner: Owner, granted: Owner) -> Owner {
    if owner.is_within(granted) {
        owner
    } else {
        granted
    }
}

/// A contributor that claims more authority than its plugin's owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerWiderThanPlugin<'a> {
    pub contributor: &'a str,
    pub owner: Owner,
    pub plugin: Owner,
}

impl fmt::Display for OwnerWiderThanPlugin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` claims to be owned by `{}`, but its plugin is owned by `{}`",
            self.contributor, self.owner, self.plugin
        )
    }
}

/// `contributor`'s `owner`, if it is wider than its plugin's.
pub fn owner_wider<'a>(
    contributor: &'a str,
    owner: Owner,
    plugin: Owner,
) -> Option<OwnerWiderThanPlugin<'a>> {
    (!owner.is_within(plugin)).then_some(OwnerWiderThanPlugin {
        contributor,
        owner,
        plugin,
    })
}

/// A placement wider than its owner may add at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerCannotPlace<'a> {
    pub contributor: &'a str,
    pub owner: Owner,
    pub placement: Placement,
    /// The widest placement the owner may add at.
    pub widest: Placement,
}

impl fmt::Display for OwnerCannotPlace<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a `{}` owner cannot add at {} placement, as `{}` does",
            self.owner, self.placement, self.contributor
        )
    }
}

/// `contributor`'s `placement`, if its `owner` may not add there.
pub fn cannot_place<'a>(
    contributor: &'a str,
    owner: Owner,
    placement: Placement,
) -> Option<OwnerCannotPlace<'a>> {
    let widest = owner.widest_placement();
    (placement < widest).then_some(OwnerCannotPlace {
        contributor,
        owner,
        placement,
        widest,
    })
}

/// A priority above what its owner may claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorityAboveOwner<'a> {
    pub contributor: &'a str,
    pub owner: Owner,
    pub priority: Priority,
    /// The highest priority the owner may claim.
    pub highest: Priority,
}

impl fmt::Display for PriorityAboveOwner<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` claims {} priority, above what a `{}` owner may claim",
            self.contributor, self.priority, self.owner
        )
    }
}

/// `contributor`'s `priority`, if its `owner` may not claim it.
pub fn priority_above<'a>(
    contributor: &'a str,
    owner: Owner,
    priority: Priority,
) -> Option<PriorityAboveOwner<'a>> {
    let highest = owner.highest_priority();
    (priority < highest).then_some(PriorityAboveOwner {
        contributor,
        owner,
        priority,
        highest,
    })
}

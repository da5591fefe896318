//! The approval delta between two versions of a plugin: what the new one
//! asks for beyond the old (needs a person's approval) and what merely
//! changed (an update, approved already).

use std::collections::BTreeSet;

use serde::Serialize;

use super::{Bundle, BundledContributor, Permissions};
use crate::config::Effect;

/// Whether a change needs a new approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Asks for more: a person must approve it before it applies.
    NeedsApproval,
    /// Within what was approved.
    Update,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub class: Class,
    /// The contributor it concerns, or `None` for the plugin as a whole.
    pub contributor: Option<String>,
    pub message: String,
}

impl Change {
    fn new(class: Class, contributor: Option<&str>, message: String) -> Self {
        Change {
            class,
            contributor: contributor.map(str::to_string),
            message,
        }
    }
}

/// Whether `old` and `new` are versions of one plugin: a delta between
/// two different plugins would read as an approval of one by the other.
pub fn comparable(old: &Bundle, new: &Bundle) -> Result<(), String> {
    if old.plugin == new.plugin {
        Ok(())
    } else {
        Err(format!(
            "`{}` and `{}` are different plugins; `contrib diff` compares two versions of one plugin",
            old.id(),
            new.id()
        ))
    }
}

/// Every change from `old` to `new`, escalations first.
pub fn diff(old: &Bundle, new: &Bundle) -> Vec<Change> {
    let mut changes = Vec::new();
    if new.version < old.version {
        // An older version may lack a fix the approved one has, and a
        // catalog never installs it over a newer one: a person decides.
        changes.push(Change::new(
            Class::NeedsApproval,
            None,
            format!(
                "the version goes down from {} to {}",
                old.version, new.version
            ),
        ));
    }
    if old.requested_owner != new.requested_owner {
        changes.push(Change::new(
            Class::NeedsApproval,
            None,
            format!(
                "the plugin's owner changes from {} to {}",
                old.requested_owner, new.requested_owner
            ),
        ));
    }
    for contributor in &new.contributors {
        match old
            .contributors
            .iter()
            .find(|previous| previous.id == contributor.id)
        {
            None => changes.push(Change::new(
                Class::NeedsApproval,
                Some(&contributor.id),
                format!(
                    "adds {} at {} placement, {} priority, budget {} tokens",
                    contributor.kind.with_article(),
                    contributor.placement,
                    contributor.priority,
                    contributor.budget
                ),
            )),
            Some(previous) => compare(previous, contributor, &mut changes),
        }
    }
    for previous in &old.contributors {
        if !new
            .contributors
            .iter()
            .any(|contributor| contributor.id == previous.id)
        {
            changes.push(Change::new(
                Class::Update,
                Some(&previous.id),
                format!("removes the `{}`", previous.kind),
            ));
        }
    }
    compare_tools(&old.permissions, &new.permissions, &mut changes);
    changes.sort_by_key(|change| change.class);
    changes
}

/// What `new` asks for beyond `old`, and what it asks for less of, from the
/// permissions alone: tools loaded and run, effects, gates and hosts, then
/// placements, budgets, priority and reaches. An installer compares a
/// bundle's own permissions with those its tools make of it, and a load
/// compares what was approved with what is asked for now.
pub fn permissions(old: &Permissions, new: &Permissions) -> Vec<Change> {
    let mut changes = Vec::new();
    compare_tools(old, new, &mut changes);
    compare_totals(old, new, &mut changes);
    changes.sort_by_key(|change| change.class);
    changes
}

/// Whether any change needs approval.
pub fn needs_approval(changes: &[Change]) -> bool {
    changes
        .iter()
        .any(|change| change.class == Class::NeedsApproval)
}

fn compare(old: &BundledContributor, new: &BundledContributor, changes: &mut Vec<Change>) {
    let id = Some(new.id.as_str());
    let mut push = |class, message: String| changes.push(Change::new(class, id, message));
    if new.owner != old.owner {
        push(
            Class::NeedsApproval,
            format!("owner changes from {} to {}", old.owner, new.owner),
        );
    }
    if new.placement < old.placement {
        push(
            Class::NeedsApproval,
            format!(
                "placement widens from {} to {}",
                old.placement, new.placement
            ),
        );
    } else if new.placement > old.placement {
        push(
            Class::Update,
            format!(
                "placement narrows from {} to {}",
                old.placement, new.placement
            ),
        );
    }
    if new.budget > old.budget {
        push(
            Class::NeedsApproval,
            format!("budget rises from {} to {} tokens", old.budget, new.budget),
        );
    } else if new.budget < old.budget {
        push(
            Class::Update,
            format!("budget falls from {} to {} tokens", old.budget, new.budget),
        );
    }
    if new.priority < old.priority {
        push(
            Class::NeedsApproval,
            format!("priority rises from {} to {}", old.priority, new.priority),
        );
    } else if new.priority > old.priority {
        push(
            Class::Update,
            format!("priority falls from {} to {}", old.priority, new.priority),
        );
    }
    if new.reach < old.reach {
        push(
            Class::NeedsApproval,
            format!("reach widens from {} to {}", old.reach, new.reach),
        );
    } else if new.reach > old.reach {
        push(
            Class::Update,
            format!("reach narrows from {} to {}", old.reach, new.reach),
        );
    }
    compare_activation(old, new, &mut push);
    if new.template != old.template
        || new.call != old.call
        || new.heading != old.heading
        || new.condition != old.condition
        || new.says != old.says
    {
        push(
            Class::Update,
            "content changes within its budget".to_string(),
        );
    }
}

/// A text that applied only when something happened and now applies always
/// joins every conversation: it asks for more. One that now applies only
/// sometimes asks for less. Any other change of when it applies (other
/// files, another command) changes which conversations it joins, which a
/// person approves again.
fn compare_activation(
    old: &BundledContributor,
    new: &BundledContributor,
    push: &mut impl FnMut(Class, String),
) {
    let describe = |activation: &Option<super::BundledActivation>| match activation {
        None => "always".to_string(),
        Some(activation) => activation.kind().as_str().to_string(),
    };
    match (&old.activation, &new.activation) {
        (a, b) if a == b => {}
        (Some(_), None) => push(
            Class::NeedsApproval,
            format!(
                "now applies always, where it applied on {}",
                describe(&old.activation)
            ),
        ),
        (None, Some(_)) => push(
            Class::Update,
            format!("now applies only on {}", describe(&new.activation)),
        ),
        _ => push(
            Class::NeedsApproval,
            format!(
                "applies on {} now, where it applied on {}",
                describe(&new.activation),
                describe(&old.activation)
            ),
        ),
    }
}

fn compare_tools(
    old_permissions: &Permissions,
    new_permissions: &Permissions,
    changes: &mut Vec<Change>,
) {
    let old_loaded: BTreeSet<&String> = old_permissions.tools_loaded.iter().collect();
    for tool in &new_permissions.tools_loaded {
        if !old_loaded.contains(tool) {
            changes.push(Change::new(
                Class::NeedsApproval,
                None,
                format!("newly loads `{tool}` when a conversation starts"),
            ));
        }
    }
    for run in &new_permissions.tools_run {
        match old_permissions
            .tools_run
            .iter()
            .find(|previous| previous.tool == run.tool)
        {
            None => changes.push(Change::new(
                Class::NeedsApproval,
                None,
                format!(
                    "newly runs `{}` ({}{}) with nobody asking",
                    run.tool,
                    run.effect.as_str(),
                    if run.gated { ", gated" } else { "" }
                ),
            )),
            Some(previous) => {
                if run.effect == Effect::Write && previous.effect != Effect::Write {
                    changes.push(Change::new(
                        Class::NeedsApproval,
                        None,
                        format!("`{}` now writes", run.tool),
                    ));
                }
                if previous.gated && !run.gated {
                    changes.push(Change::new(
                        Class::NeedsApproval,
                        None,
                        format!("`{}` is no longer gated", run.tool),
                    ));
                }
            }
        }
    }
    for host in &new_permissions.egress_hosts {
        if !old_permissions.egress_hosts.contains(host) {
            changes.push(Change::new(
                Class::NeedsApproval,
                None,
                format!("newly reaches the host `{host}`"),
            ));
        }
    }
}

/// Placements, budgets per placement, the highest priority and reaches.
fn compare_totals(old: &Permissions, new: &Permissions, changes: &mut Vec<Change>) {
    let mut push = |class, message: String| changes.push(Change::new(class, None, message));
    for placement in &new.placements {
        if !old.placements.contains(placement) {
            push(
                Class::NeedsApproval,
                format!("newly adds at {placement} placement"),
            );
        }
    }
    for (placement, budget) in &new.budgets {
        let before = old.budgets.get(placement).copied().unwrap_or(0);
        if *budget > before {
            push(
                Class::NeedsApproval,
                format!(
                    "its budgets at {placement} placement rise from {before} to {budget} tokens"
                ),
            );
        } else if *budget < before {
            push(
                Class::Update,
                format!(
                    "its budgets at {placement} placement fall from {before} to {budget} tokens"
                ),
            );
        }
    }
    if new.highest_priority < old.highest_priority {
        push(
            Class::NeedsApproval,
            format!(
                "its highest priority rises from {} to {}",
                old.highest_priority, new.highest_priority
            ),
        );
    }
    for reach in &new.reaches {
        if !old.reaches.contains(reach) {
            push(Class::NeedsApproval, format!("newly reaches {reach} turns"));
        }
    }
}

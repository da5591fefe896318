//! One contributor against its previous version, field by field, each
//! classed as [`crate::surface::CONTRIBUTOR_FIELDS`] says: what
//! widens what it reaches or runs asks for more; words changed within the
//! budget are an update.

use std::collections::BTreeSet;

use super::{kept_placement, Change, Class};
use crate::surface::{self, tier};
use crate::{BundledActivation, BundledCondition, BundledContributor};

/// Every change from `old` to `new`, one contributor's two versions.
pub(super) fn compare(
    old: &BundledContributor,
    new: &BundledContributor,
    changes: &mut Vec<Change>,
) {
    // Every field, named: one added to the model does not compile here
    // until it is compared (and classed in `surface`).
    let BundledContributor {
        id,
        kind,
        owner,
        placement,
        priority,
        reach,
        activation,
        delivery: _,
        budget,
        measured_tokens: _,
        template,
        framing,
        tools,
        operations,
        call,
        condition,
        source,
        origin,
        heading,
        says,
        choice,
    } = new;
    let invalidated = kept_placement(Some(old), Some(new));
    let mut push = |class, message: String| {
        let change = Change::new(class, Some(id), message);
        // A budget is approved, never sent: it changes no cached byte.
        let change = if change.message.starts_with("budget ") {
            change
        } else {
            change.invalidating(invalidated)
        };
        changes.push(change);
    };
    if *kind != old.kind {
        // A system message sent when something happens, turned into a text
        // told every turn, is not the contributor that was approved.
        push(
            Class::NeedsApproval,
            format!(
                "changes from {} to {}",
                old.kind.with_article(),
                kind.with_article()
            ),
        );
    }
    if *owner != old.owner {
        push(
            Class::NeedsApproval,
            format!("owner changes from {} to {owner}", old.owner),
        );
    }
    ordered(
        &mut push,
        (*placement < old.placement, *placement > old.placement),
        format!("placement widens from {} to {placement}", old.placement),
        format!("placement narrows from {} to {placement}", old.placement),
    );
    ordered(
        &mut push,
        (*budget > old.budget, *budget < old.budget),
        format!("budget rises from {} to {budget} tokens", old.budget),
        format!("budget falls from {} to {budget} tokens", old.budget),
    );
    ordered(
        &mut push,
        (*priority < old.priority, *priority > old.priority),
        format!("priority rises from {} to {priority}", old.priority),
        format!("priority falls from {} to {priority}", old.priority),
    );
    ordered(
        &mut push,
        (*reach < old.reach, *reach > old.reach),
        format!("reach widens from {} to {reach}", old.reach),
        format!("reach narrows from {} to {reach}", old.reach),
    );
    compare_activation(old.activation.as_ref(), activation.as_ref(), &mut push);
    compare_condition(old.condition.as_ref(), condition.as_ref(), &mut push);
    if *call != old.call {
        let shown = |call: &Option<crate::BundledCall>| {
            call.as_ref()
                .map_or_else(|| "nothing".to_string(), surface::call)
        };
        // What an unattended run is given is what it reads or fetches: a
        // `path` that becomes `~/.ssh/id_rsa` is a new approval.
        push(
            Class::NeedsApproval,
            format!(
                "its run changes from `{}` to `{}`",
                shown(&old.call),
                shown(call)
            ),
        );
    }
    compare_provenance(old, source.as_ref(), origin.as_ref(), &mut push);
    let old_says: BTreeSet<_> = old.says.iter().collect();
    let added: Vec<String> = says
        .iter()
        .filter(|section| !old_says.contains(section))
        .map(ToString::to_string)
        .collect();
    if !added.is_empty() {
        push(
            Class::NeedsApproval,
            format!("newly states {}", added.join(", ")),
        );
    } else if *says != old.says {
        push(Class::Update, "states fewer sections".to_string());
    }
    if old.framing.is_some() && framing.is_none() {
        push(
            Class::NeedsApproval,
            "is no longer framed as unable to override what is above it".to_string(),
        );
    } else if *framing != old.framing {
        push(Class::Update, "its framing changes".to_string());
    }
    if *template != old.template {
        push(
            Class::Update,
            "its text changes within its budget".to_string(),
        );
    }
    if *heading != old.heading {
        let shown = |heading: &Option<String>| {
            heading
                .as_deref()
                .map_or_else(|| "none".to_string(), |heading| format!("\"{heading}\""))
        };
        push(
            Class::Update,
            format!(
                "its heading changes from {} to {}",
                shown(&old.heading),
                shown(heading)
            ),
        );
    }
    // New tools and operations are asked for in the plugin's permissions;
    // here, which contributor loads them.
    if *tools != old.tools || *operations != old.operations || *choice != old.choice {
        push(
            Class::Update,
            "what it loads changes within its budget".to_string(),
        );
    }
}

/// Pushes `wider` when the first test holds (asks for more), `narrower`
/// when the second does.
fn ordered(
    push: &mut impl FnMut(Class, String),
    (widens, narrows): (bool, bool),
    wider: String,
    narrower: String,
) {
    if widens {
        push(Class::NeedsApproval, wider);
    } else if narrows {
        push(Class::Update, narrower);
    }
}

/// A text that applied only when something happened and now applies always
/// joins every conversation: it asks for more. One that now applies only
/// sometimes asks for less. Any other change of when it applies (other
/// files, another command) changes which conversations it joins, which a
/// person approves again; a request's description changed is words the
/// model reads, an update.
fn compare_activation(
    old: Option<&BundledActivation>,
    new: Option<&BundledActivation>,
    push: &mut impl FnMut(Class, String),
) {
    let (was, is) = (surface::applies(old), surface::applies(new));
    match (old, new) {
        (a, b) if a == b => {}
        (Some(_), None) => push(
            Class::NeedsApproval,
            format!("now applies always, where it applied {was}"),
        ),
        (None, Some(_)) => push(Class::Update, format!("now applies only {is}")),
        (Some(BundledActivation::Request { .. }), Some(BundledActivation::Request { .. })) => push(
            Class::Update,
            format!("the description the model is shown changes: now applies {is}"),
        ),
        (
            Some(BundledActivation::Files { globs: before }),
            Some(BundledActivation::Files { globs }),
        ) if globs.iter().all(|glob| before.contains(glob)) => push(
            Class::Update,
            format!("now applies {is}, where it applied {was}"),
        ),
        _ => push(
            Class::NeedsApproval,
            format!("now applies {is}, where it applied {was}"),
        ),
    }
}

/// A system message that fires more often (a shorter idle threshold),
/// on another event or always asks for more; a longer threshold is an
/// update.
fn compare_condition(
    old: Option<&BundledCondition>,
    new: Option<&BundledCondition>,
    push: &mut impl FnMut(Class, String),
) {
    let shown = |condition: Option<&BundledCondition>| {
        condition.map_or_else(|| "always".to_string(), surface::when)
    };
    let (was, is) = (shown(old), shown(new));
    match (old, new) {
        (a, b) if a == b => {}
        (Some(before), Some(after))
            if before.kind == after.kind
                && before.skill == after.skill
                && after.idle_seconds > before.idle_seconds =>
        {
            push(
                Class::Update,
                format!("is sent less often: when {is}, where it was sent when {was}"),
            )
        }
        _ => push(
            Class::NeedsApproval,
            format!(
                "is sent more often or on other events: when {is}, where it was sent when {was}"
            ),
        ),
    }
}

/// Retrieved content labelled more trusted than approved (`external` →
/// `system-config`), or from another origin, asks for more: the model
/// weighs what it reads by that label.
fn compare_provenance(
    old: &BundledContributor,
    source: Option<&contrib_core::vocabulary::Source>,
    origin: Option<&String>,
    push: &mut impl FnMut(Class, String),
) {
    let shown = |source: Option<&contrib_core::vocabulary::Source>| {
        source.map_or_else(|| "none".to_string(), ToString::to_string)
    };
    let rank =
        |source: Option<&contrib_core::vocabulary::Source>| source.map(|source| tier(*source));
    if source != old.source.as_ref() {
        let (was, is) = (shown(old.source.as_ref()), shown(source));
        if rank(source) > rank(old.source.as_ref()) {
            push(
                Class::NeedsApproval,
                format!("its retrieved content is labelled `{is}`, more trusted than `{was}`"),
            );
        } else {
            push(
                Class::Update,
                format!("its retrieved content is labelled `{is}`, less trusted than `{was}`"),
            );
        }
    }
    if origin != old.origin.as_ref() {
        let shown = |origin: Option<&String>| {
            origin.map_or_else(|| "none".to_string(), |origin| format!("\"{origin}\""))
        };
        push(
            Class::NeedsApproval,
            format!(
                "its retrieved content's origin changes from {} to {}",
                shown(old.origin.as_ref()),
                shown(origin)
            ),
        );
    }
}

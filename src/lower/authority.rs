//! Authority flows down: a contributor's owner may only narrow its plugin's,
//! and its placement and priority stay within what its owner may claim.
//!
//! The owners, from the most authority: `operator`, `agent-author`,
//! `workspace`, `person` (ranked by the highest priority each may claim).
//! What a plugin's owner says is a request; who actually grants it is
//! decided when the plugin is installed.

use super::Lowerer;
use crate::codes::{OWNER_CANNOT_PLACE, OWNER_WIDER_THAN_PLUGIN, PRIORITY_ABOVE_OWNER};
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::ir::{Owner, Placement, Priority, Setting};
use crate::source::{Span, Spanned};
use contrib_core::policy::authority;

impl Lowerer<'_> {
    /// Reports a contributor owner wider than its plugin's.
    /// `field` is the whole `owner …` field, which the fix removes.
    pub(super) fn check_owner_narrows(
        &mut self,
        owner: &Setting<Owner>,
        field: Span,
        plugin_owner: Option<&Spanned<Owner>>,
        id: &str,
    ) -> bool {
        let (Some(span), Some(plugin)) = (owner.written, plugin_owner) else {
            return true;
        };
        let Some(wider) = authority::owner_wider(id, owner.value, plugin.value) else {
            return true;
        };
        let (owner, plugin_value) = (owner.value, plugin.value);
        self.report(
            Diagnostic::new(&OWNER_WIDER_THAN_PLUGIN, wider.to_string())
            .primary(span, format!("more authority than `{plugin_value}`"))
            .secondary(plugin.span, "the plugin's owner")
            .help(format!(
                "a contributor may only narrow its plugin's owner: remove this line to inherit `{plugin_value}`, or publish it in a plugin owned by `{owner}`"
            ))
            .fix(Fix::replace(
                format!("Inherit `{plugin_value}`"),
                Applicability::Unsafe,
                self.removal(field),
                "",
            )),
        );
        false
    }

    /// Reports a placement wider than the owner may add to.
    pub(super) fn check_owner_places(
        &mut self,
        owner: &Setting<Owner>,
        placement: &Setting<Placement>,
        id: &str,
        header: Span,
    ) -> bool {
        let Some(cannot) = authority::cannot_place(id, owner.value, placement.value) else {
            return true;
        };
        let (owner_value, value, widest) = (owner.value, placement.value, cannot.widest);
        let mut diagnostic = Diagnostic::new(&OWNER_CANNOT_PLACE, cannot.to_string())
            .primary(
                placement.span_or(header),
                format!("{value} is wider than a `{owner_value}` may add"),
            )
            .secondary(owner.span_or(header), format!("owned by `{owner_value}`"))
            .help(format!(
                "place it at `{widest}` or narrower: a `{owner_value}` may add no wider"
            ));
        if let Some(written) = placement.written {
            diagnostic = diagnostic.fix(Fix::replace(
                format!("Narrow the placement to `{widest}`"),
                Applicability::Unsafe,
                written,
                widest.as_str(),
            ));
        }
        self.report(diagnostic);
        false
    }

    /// Reports a priority above what the owner may claim.
    pub(super) fn check_priority(
        &mut self,
        owner: &Setting<Owner>,
        priority: &Setting<Priority>,
        id: &str,
        header: Span,
    ) -> bool {
        let Some(span) = priority.written else {
            return true;
        };
        let Some(above) = authority::priority_above(id, owner.value, priority.value) else {
            return true;
        };
        let (owner_value, highest) = (owner.value, above.highest);
        self.report(
            Diagnostic::new(&PRIORITY_ABOVE_OWNER, above.to_string())
            .primary(span, format!("a `{owner_value}` may claim at most `{highest}`"))
            .secondary(owner.span_or(header), format!("owned by `{owner_value}`"))
            .help(format!(
                "lower the priority to `{highest}`, or leave it out: it defaults to the owner's highest"
            ))
            .fix(Fix::replace(
                format!("Lower the priority to `{highest}`"),
                Applicability::Unsafe,
                span,
                highest.as_str(),
            )),
        );
        false
    }
}

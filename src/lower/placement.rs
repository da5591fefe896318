//! The combinations the table of kinds rules out: a setting a kind does not
//! have, a placement it cannot go at, a reach the runtime cannot honour
//! there, an activation that cannot work there, a variable that varies
//! more finely than the placement, or that has no value in this body.
//!
//! Each is a language error with a located message and, where one is
//! certain, a fix: these are not judgment calls, and `[lints]` cannot
//! change them.

use super::Lowerer;
use crate::codes::{
    ACTIVATION_NOT_FOR_PLACEMENT, FIELD_NOT_FOR_KIND, PLACEMENT_NOT_FOR_KIND, PLACEMENT_TOO_WIDE,
    REACH_NOT_FOR_PLACEMENT, VARIABLE_NOT_AVAILABLE,
};
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::ir::kinds::{self, KindSpec};
use crate::ir::variables::Availability;
use crate::ir::variance::{self, Cause};
use crate::ir::{
    Activation, ConditionKind, Contributor, ContributorBody, Kind, Placement, Reach, Setting,
};
use crate::source::Span;
use crate::suggest;

/// What a contributor of `kind` says about a field it does not take: a
/// setting the kind does not have, or a field of another kind. `None` for
/// a name that is no field at all (an unknown field).
pub(super) fn not_for_kind(kind: Kind, name: &str, key: Span, removal: Span) -> Option<Diagnostic> {
    kinds::field(name)?;
    let spec = kind.spec();
    if name == "placement" {
        let fixed = spec.fixed_placement()?;
        return Some(
            Diagnostic::new(
                &PLACEMENT_NOT_FOR_KIND,
                format!(
                    "{} is always placed at `{fixed}`, so it has no `placement`",
                    kind.with_article()
                ),
            )
            .primary(key, "not a setting of this kind")
            .help(match spec.why_placements {
                Some(why) => format!("{why}; remove this line"),
                None => "remove this line".to_string(),
            })
            .fix(Fix::replace(
                "Remove `placement`",
                Applicability::Safe,
                removal,
                "",
            )),
        );
    }
    let diagnostic = Diagnostic::new(
        &FIELD_NOT_FOR_KIND,
        format!("{} has no `{name}`", kind.with_article()),
    )
    .primary(key, "not a setting of this kind");
    Some(match spec.why_not(name) {
        Some(why) => diagnostic
            .help(format!("{why}; remove this line"))
            .fix(Fix::replace(
                format!("Remove `{name}`"),
                Applicability::Safe,
                removal,
                "",
            )),
        None => {
            let owners: Vec<&str> = kinds::KINDS
                .iter()
                .filter(|other| other.has_field(name))
                .map(|other| other.kind.as_str())
                .collect();
            diagnostic.help(format!(
                "`{name}` belongs to {} contributors; the fields of {} are {}",
                suggest::list(owners),
                kind.with_article(),
                suggest::list(spec.fields.iter().copied())
            ))
        }
    })
}

impl Lowerer<'_> {
    /// Reports a placement the kind cannot take.
    pub(super) fn check_placement(
        &mut self,
        spec: &KindSpec,
        placement: &Setting<Placement>,
    ) -> bool {
        if spec.allows_placement(placement.value) {
            return true;
        }
        let Some(span) = placement.written else {
            return true;
        };
        let kind = spec.kind;
        let allowed = suggest::list(spec.placements.iter().map(|p| p.as_str()));
        let widest_allowed = spec
            .placements
            .iter()
            .copied()
            .filter(|p| *p >= placement.value)
            .chain(spec.placements.iter().rev().copied())
            .next();
        let mut diagnostic = Diagnostic::new(
            &PLACEMENT_NOT_FOR_KIND,
            format!(
                "{} cannot be placed at `{}`",
                kind.with_article(),
                placement.value
            ),
        )
        .primary(span, format!("not a placement for `{kind}`"))
        .help(
            match spec.why_placements.filter(|_| spec.has_field("placement")) {
                Some(why) => format!("{why}: place it at {allowed}"),
                None => format!("{} goes at {allowed}", kind.with_article()),
            },
        );
        if let Some(suggested) = widest_allowed {
            diagnostic = diagnostic.fix(Fix::replace(
                format!("Place it at `{suggested}`"),
                Applicability::Unsafe,
                span,
                suggested.as_str(),
            ));
        }
        self.report(diagnostic);
        false
    }

    /// Reports a reach the runtime cannot honour at the placement.
    pub(super) fn check_reach(
        &mut self,
        spec: &KindSpec,
        placement: Placement,
        reach: &Setting<Reach>,
    ) -> bool {
        let allowed = spec.reaches_at(placement);
        let Some(span) = reach.written else {
            return true;
        };
        if allowed.contains(&reach.value) {
            return true;
        }
        let diagnostic = Diagnostic::new(
            &REACH_NOT_FOR_PLACEMENT,
            format!("reach `{}` cannot be honoured at {placement} placement", reach.value),
        )
        .primary(span, "not a reach here")
        .help(format!(
            "what is placed at `{placement}` is composed once, when the conversation starts (or compacts), so it cannot change from turn to turn: `with-person` includes it in conversations that start with a person, `every-turn` in all; for a text that must reach only replies, place it at `message`"
        ))
        .fix(Fix::replace(
            "Reach `with-person`",
            Applicability::Unsafe,
            span,
            Reach::WithPerson.as_str(),
        ));
        self.report(diagnostic);
        false
    }

    /// Reports an activation the kind cannot take at its placement.
    pub(super) fn check_activation(
        &mut self,
        placement: &Setting<Placement>,
        activation: &Setting<Activation>,
        header: Span,
    ) -> bool {
        let Some(span) = activation.written else {
            return true;
        };
        let kind = activation.value.kind();
        if !kinds::activation_needs_system_prompt(kind) || placement.value.is_system_prompt() {
            return true;
        }
        self.report(
            Diagnostic::new(
                &ACTIVATION_NOT_FOR_PLACEMENT,
                format!(
                    "`applies on request` needs a placement in the system prompt, not `{}`",
                    placement.value
                ),
            )
            .primary(span, "listed where the model reads what it may ask for")
            .secondary(placement.span_or(header), format!("placed at `{}`", placement.value))
            .help("place it at `platform`, `agent` or `person`, where its description is kept for the model to read"),
        );
        false
    }

    /// Reports a variable that varies more finely than the placement
    /// (`placement-too-wide`), or that has no value in this body
    /// (`variable-not-available`).
    pub(super) fn check_variables(&mut self, contributor: &Contributor) -> bool {
        let available = self.check_availability(contributor);
        let placed = self.check_variance(contributor);
        available && placed
    }

    fn check_variance(&mut self, contributor: &Contributor) -> bool {
        let (varies, cause) = variance::of(contributor);
        let placement = contributor.placement.value;
        // A person owner's text out of its placement is `owner-cannot-place`'s
        // to report, and a kind's own variance is fixed by the table: only a
        // variable is this rule's.
        let (true, Some(Cause::Variable(used))) = (varies > placement, cause) else {
            return true;
        };
        let id = &contributor.id.value;
        let name = used.variable.name;
        let help = if used.variable.is_time() && placement.is_system_prompt() {
            "a time in the system prompt changes every request: take it once with an `eager-run` of `get_current_time`, and add a `system-message` (`when idle > 4h` or `when date-crossed`) to say that time has moved on".to_string()
        } else {
            format!("place it at `{varies}` or narrower, or remove `{{{name}}}` from it")
        };
        let mut diagnostic = Diagnostic::new(
            &PLACEMENT_TOO_WIDE,
            format!(
                "`{id}` uses `{{{name}}}`, which varies per {varies}, at {placement} placement"
            ),
        )
        .primary(
            contributor.placement.span_or(contributor.header),
            format!("shared at {placement}"),
        )
        .secondary(used.span, format!("varies per {varies}"))
        .help(help);
        if let Some(span) = contributor.placement.written {
            diagnostic = diagnostic.fix(Fix::replace(
                format!("Narrow the placement to `{varies}`"),
                Applicability::Unsafe,
                span,
                varies.as_str(),
            ));
        }
        self.report(diagnostic);
        false
    }

    fn check_availability(&mut self, contributor: &Contributor) -> bool {
        let Some(template) = contributor.template() else {
            return true;
        };
        let condition = match &contributor.body {
            ContributorBody::SystemMessage { condition, .. } => Some(condition),
            _ => None,
        };
        let mut fine = true;
        for used in template.variables() {
            let Availability::When(needed) = used.variable.available else {
                continue;
            };
            if condition.is_some_and(|condition| condition.kind == needed) {
                continue;
            }
            fine = false;
            let example = match needed {
                ConditionKind::Idle => "when idle > 4h".to_string(),
                ConditionKind::SkillUpdated => "when skill-updated NAME".to_string(),
                other => format!("when {other}"),
            };
            let name = used.variable.name;
            let diagnostic = Diagnostic::new(
                &VARIABLE_NOT_AVAILABLE,
                format!("`{{{name}}}` has a value only in a system message `{example}`"),
            )
            .primary(used.span, "no value here");
            self.report(match condition {
                Some(condition) => diagnostic
                    .secondary(condition.span, "fires on another condition")
                    .help(format!(
                        "say what uses `{{{name}}}` in a `system-message` of its own, `{example}`"
                    )),
                None => diagnostic.help(format!(
                    "move this text into a `system-message` with `{example}`"
                )),
            });
        }
        fine
    }
}

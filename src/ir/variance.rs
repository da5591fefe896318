//! How finely what a contributor adds varies, and why.
//!
//! The variance is the narrowest of: its template variables' variance, its
//! owner's (a person owner's text varies per person), and its kind's (a
//! run's result per conversation, a message per turn). Lowering compares it
//! with the contributor's placement (`placement-too-wide`), and the checker
//! with the placements it could have (`placement-could-be-wider`).

use super::{Contributor, Placement, VariableUse, Variance};
use crate::source::Span;

/// What makes a contributor vary as finely as it does.
#[derive(Debug, Clone, Copy)]
pub enum Cause<'a> {
    Variable(&'a VariableUse),
    /// The owner, and where it was written (or the header when inherited).
    Owner(Span),
    /// The kind itself.
    Kind(Span),
}

impl Cause<'_> {
    pub fn span(&self) -> Span {
        match self {
            Cause::Variable(variable) => variable.span,
            Cause::Owner(span) | Cause::Kind(span) => *span,
        }
    }
}

/// The variance of a contributor and, when it is narrower than `platform`,
/// what causes it (the first cause found at that variance).
pub fn of(contributor: &Contributor) -> (Variance, Option<Cause<'_>>) {
    let causes = [
        (contributor.spec().variance, Cause::Kind(contributor.header)),
        (
            contributor.owner.value.variance(),
            Cause::Owner(contributor.owner.span_or(contributor.header)),
        ),
    ];
    let variables = contributor
        .template()
        .into_iter()
        .flat_map(|template| template.variables())
        .map(|used| (used.variable.variance, Cause::Variable(used)));
    let mut variance = Placement::Platform;
    let mut cause = None;
    for (candidate, why) in causes.into_iter().chain(variables) {
        if candidate > variance {
            variance = candidate;
            cause = Some(why);
        }
    }
    (variance, cause)
}

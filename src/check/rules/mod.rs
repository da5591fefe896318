//! The registry: one line per rule. A rule is a file in this folder with a
//! `RULE` (its code, name, default level and explanation) and a `check`
//! function; adding one is that file and one line below.

use super::{CheckRule, TextRule};

macro_rules! registry {
    ($($rule:ident),* $(,)?) => {
        $(pub mod $rule;)*

        /// Every checker rule, in the order they run.
        pub static REGISTRY: &[CheckRule] = &[
            $(CheckRule { rule: &$rule::RULE, check: $rule::check },)*
        ];
    };
}

registry![
    placement_could_be_wider,
    override_attempt,
    unknown_tool,
    eager_run_writes,
    egress_not_allowed,
    eager_run_gated,
    invalid_tool_arguments,
    unknown_operation,
    unsatisfied_requirement,
    unused_requirement,
    external_preface,
    over_budget,
    system_prompt_over_budget,
    budget_unused,
    reach_without_audience,
    duplicate_fact_section,
    fact_over_budget,
    invalid_origin_placeholder,
];

/// Rules over the manifest's text as written, whatever it declares: they
/// run on every file that parses, beside the rules above.
pub mod hidden_character;

/// Every text rule, in the order they run.
pub static TEXT_REGISTRY: &[TextRule] = &[TextRule {
    rule: &hidden_character::RULE,
    check: hidden_character::check_text,
}];

/// What every rule file needs.
mod prelude {
    pub(super) use crate::check::Context;
    pub(super) use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
    pub(super) use crate::ir::{Contributor, ContributorBody, Kind, Owner, Placement, Reach};
    pub(super) use crate::source::Span;
    pub(super) use contrib_core::policy::tokens;
}

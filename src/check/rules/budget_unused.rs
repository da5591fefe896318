use super::prelude::*;

pub use crate::codes::BUDGET_UNUSED as RULE;

/// How many times the measured size a budget may be before it is unused.
const SLACK: u64 = 4;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (index, contributor) in cx.contributors() {
        let measure = cx.measure(index);
        if !measure.complete || measure.chosen_within_budget {
            continue;
        }
        let budget = contributor.budget.value;
        if budget <= measure.tokens_at_least().saturating_mul(SLACK) {
            continue;
        }
        let measured = measure.tokens();
        if budget <= measured.saturating_mul(SLACK) {
            continue;
        }
        let honest = measured.max(1);
        out.push(
            Diagnostic::new(
                &RULE,
                format!("`{}` is budgeted {budget} tokens but adds {}", contributor.id.value, tokens(measured)),
            )
            .primary(contributor.budget.span, format!("more than {SLACK}× the {} measured", tokens(measured)))
            .help(format!(
                "lower the budget toward {}, or record why it is larger: `# contrib: allow(budget-unused) -- reason`",
                tokens(honest)
            ))
            .fix(Fix::replace(
                format!("Lower the budget to {honest} tokens"),
                Applicability::Unsafe,
                contributor.budget.span,
                format!("budget {honest} tokens"),
            )),
        );
    }
}

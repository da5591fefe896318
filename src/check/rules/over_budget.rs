use super::prelude::*;
use crate::check::Measure;
use crate::tokenizer::TokenizerKind;
use contrib_core::policy::budget;

pub use crate::codes::OVER_BUDGET as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (index, contributor) in cx.contributors() {
        let measure = cx.measure(index);
        let Some(over) = budget::over_budget(&contributor.id.value, contributor.budget.value, measure) else {
            continue;
        };
        let measured = over.measured;
        out.push(
            Diagnostic::new(&RULE, over.to_string())
                .primary(contributor.budget.span, format!("{} declared", tokens(over.budget)))
                .secondary(contributor.header, how_measured(measure, measured, cx.config.tokenizer))
                .help(format!(
                    "raise the budget to at least {measured} (`budget {measured} tokens`), or shorten what it adds"
                ))
                .fix(Fix::replace(
                    format!("Raise the budget to {measured} tokens"),
                    Applicability::Unsafe,
                    contributor.budget.span,
                    format!("budget {measured} tokens"),
                )),
        );
    }
}

/// Where the measured tokens come from: counted text, the workspace's
/// declared costs, or both.
fn how_measured(measure: &Measure, measured: u64, tokenizer: TokenizerKind) -> String {
    let declared = measure.configured_tokens;
    match measured - declared {
        _ if declared == 0 => format!("measures {} with {tokenizer}", tokens(measured)),
        0 => format!("loads {}, as `contrib.toml` declares", tokens(declared)),
        counted => format!(
            "loads {} as `contrib.toml` declares, and {counted} more counted with {tokenizer}",
            tokens(declared)
        ),
    }
}

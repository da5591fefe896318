use super::prelude::*;
use crate::ir::facts::{sections_of, worst_case, MAX_ITEMS, MAX_ITEM_CHARS};

pub use crate::codes::FACT_OVER_BUDGET as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let ContributorBody::Fact { heading, says } = &contributor.body else { continue };
        let values: Vec<_> = says.iter().map(|item| item.value).collect();
        let worst: u64 = sections_of(heading.as_ref().map(|h| h.value.as_str()), &values)
            .iter()
            .map(|(heading, says)| {
                let worst = worst_case(heading, says);
                cx.config.tokenizer.count(&worst.fixed) as u64 + worst.value_bytes
            })
            .sum();
        let budget = contributor.budget.value;
        if worst <= budget {
            continue;
        }
        let says_span = says
            .first()
            .zip(says.last())
            .map_or(contributor.header, |(first, last)| first.span.to(last.span));
        out.push(
            Diagnostic::new(
                &RULE,
                format!("`{}` can add up to {}, over its budget of {budget}", contributor.id.value, tokens(worst)),
            )
            .primary(contributor.budget.span, format!("{} declared", tokens(budget)))
            .secondary(
                says_span,
                format!(
                    "at most {MAX_ITEMS} items a list and {MAX_ITEM_CHARS} characters an item or value, each character up to 4 tokens"
                ),
            )
            .help(format!(
                "raise the budget to {worst} (`budget {worst} tokens`), or, if what the host supplies is known to be short, record why with `# contrib: allow(fact-over-budget) -- reason`; over its budget at run time a fact is refused whole"
            ))
            .fix(Fix::replace(
                format!("Raise the budget to {worst} tokens"),
                Applicability::Unsafe,
                contributor.budget.span,
                format!("budget {worst} tokens"),
            )),
        );
    }
}

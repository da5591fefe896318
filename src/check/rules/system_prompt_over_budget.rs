use super::prelude::*;
use crate::ir::{framing, Activation};
use contrib_core::policy::budget::{self, Share};

pub use crate::codes::SYSTEM_PROMPT_OVER_BUDGET as RULE;

/// What one contributor adds to the part of every request that precedes
/// the conversation ([`budget::kept_share`]).
fn share(cx: &Context<'_>, contributor: &Contributor) -> Option<(u64, budget::Kept)> {
    let name = format!(
        "{}@{}/{}",
        cx.plugin.name.value, cx.plugin.version.value, contributor.id.value
    );
    let framing = framing(&cx.plugin.name.value, contributor);
    let on_request = match &contributor.activation.value {
        Activation::Request(description) => Some(description.value.as_str()),
        _ => None,
    };
    let share = Share {
        delivery: contributor.delivery(),
        placement: contributor.placement.value,
        budget: contributor.budget.value,
        on_request,
        name: &name,
        framing: framing.as_deref(),
    };
    budget::kept_share(&share, cx.config.tokenizer)
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let shares: Vec<(&Contributor, u64, budget::Kept)> = cx
        .plugin
        .contributors
        .iter()
        .filter_map(|contributor| share(cx, contributor).map(|(tokens, kept)| (contributor, tokens, kept)))
        .collect();
    let total: u64 = shares.iter().map(|(_, tokens, _)| tokens).sum();
    let Some(over) = budget::system_prompt_over(total, cx.config) else { return };
    let mut diagnostic = Diagnostic::new(&RULE, over.to_string())
        .primary(cx.plugin.name.span, format!("{total} tokens before the conversation"));
    for (contributor, tokens, kept) in &shares {
        diagnostic = diagnostic.secondary(contributor.budget.span, format!("{tokens} tokens {}", kept.place()));
    }
    out.push(diagnostic.help(format!(
        "the share is context_budget × system_prompt_share = {} × {}; lower these budgets, or make text that is not needed every turn apply only when it is (`applies …`)",
        cx.config.context_budget, cx.config.system_prompt_share
    )));
}

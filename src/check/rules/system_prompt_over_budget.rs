use super::prelude::*;

pub use crate::rules::SYSTEM_PROMPT_OVER_BUDGET as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let limit = cx.config.system_prompt_budget();
    let in_prompt: Vec<&Contributor> = cx
        .plugin
        .contributors
        .iter()
        .filter(|contributor| contributor.placement.value.is_system_prompt())
        .collect();
    let total: u64 = in_prompt.iter().map(|contributor| contributor.budget.value).sum();
    if total <= limit {
        return;
    }
    let mut diagnostic = Diagnostic::new(
        &RULE,
        format!("the system prompt's budgets add up to {total} tokens, over the workspace's {limit}"),
    )
    .primary(cx.plugin.name.span, format!("{total} tokens in the system prompt"));
    for contributor in &in_prompt {
        diagnostic = diagnostic.secondary(
            contributor.budget.span,
            format!("{} tokens at {}", contributor.budget.value, contributor.placement.value),
        );
    }
    out.push(diagnostic.help(format!(
        "the share is context_budget × system_prompt_share = {} × {}; lower these budgets, or move text that is not needed every turn out of the system prompt",
        cx.config.context_budget, cx.config.system_prompt_share
    )));
}

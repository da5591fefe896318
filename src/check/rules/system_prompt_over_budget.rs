use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0119",
    name: "system-prompt-over-budget",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "the budgets in the system prompt exceed the workspace's share",
    explanation: r#"
## What it does
Adds up the budgets of the contributors at `platform`, `agent` and
`person` placements (the kept system prompt) and compares the sum with
`context_budget × system_prompt_share` from the workspace configuration
(200,000 × 0.25 = 50,000 tokens by default).

## Why is this bad?
The system prompt is sent with every request. What it takes is not
available to the conversation, and a plugin that claims most of it leaves
nothing for others.

## Example
Three agent-placement texts budgeted 20,000 tokens each, against a
50,000-token share: lower the budgets, or move what is not needed on every
turn to an `eager-load` or a narrower placement.
"#,
};

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

use super::prelude::*;
use crate::ir::{framing, on_request_listing, Activation, Delivery};

pub use crate::codes::SYSTEM_PROMPT_OVER_BUDGET as RULE;

/// What one contributor adds to the part of every request that precedes
/// the conversation, counted where it really goes: its budget when it is
/// kept in the system prompt or preloaded before the first turn; for a
/// text the model may ask for, the line that lists it (its text joins the
/// conversation only when asked for); nothing for the rest.
fn share(cx: &Context<'_>, contributor: &Contributor) -> Option<(u64, &'static str)> {
    match (contributor.delivery(), &contributor.activation.value) {
        (Delivery::SystemPrompt, _) => Some((contributor.budget.value, "in the system prompt")),
        (Delivery::Preloaded, _) => Some((contributor.budget.value, "preloaded before the first turn")),
        (_, Activation::Request(description)) if contributor.placement.value.is_system_prompt() => {
            let name = format!(
                "{}@{}/{}",
                cx.plugin.name.value, cx.plugin.version.value, contributor.id.value
            );
            let framing = framing(&cx.plugin.name.value, contributor);
            let listing = on_request_listing(&name, &description.value, framing.as_deref());
            Some((cx.config.tokenizer.count(&listing) as u64, "listed for the model to ask for"))
        }
        _ => None,
    }
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let limit = cx.config.system_prompt_budget();
    let shares: Vec<(&Contributor, u64, &str)> = cx
        .plugin
        .contributors
        .iter()
        .filter_map(|contributor| {
            share(cx, contributor).map(|(tokens, where_)| (contributor, tokens, where_))
        })
        .collect();
    let total: u64 = shares.iter().map(|(_, tokens, _)| tokens).sum();
    if total <= limit {
        return;
    }
    let mut diagnostic = Diagnostic::new(
        &RULE,
        format!("what this plugin puts before every conversation adds up to {total} tokens, over the workspace's {limit}"),
    )
    .primary(cx.plugin.name.span, format!("{total} tokens before the conversation"));
    for (contributor, tokens, where_) in &shares {
        diagnostic = diagnostic.secondary(
            contributor.budget.span,
            format!("{tokens} tokens {where_}"),
        );
    }
    out.push(diagnostic.help(format!(
        "the share is context_budget × system_prompt_share = {} × {}; lower these budgets, or make text that is not needed every turn apply only when it is (`applies …`)",
        cx.config.context_budget, cx.config.system_prompt_share
    )));
}

use super::prelude::*;
use crate::source::Spanned;

pub static RULE: Rule = Rule {
    code: "C0123",
    name: "list-too-long",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a list of tools, operations or fact sections has more than 64 items",
    explanation: r#"
## What it does
Reports a `tools`, `operations` or `says` list with more than 64 items.

## Why is this bad?
Every item is something a person approves and the runtime loads at
conversation start. A list that long is almost always generated rather than
chosen, and costs more than anyone reviewed.

## Example
`tools` listing a hundred tools: load the few a conversation needs up
front, and let the model load the rest with `load_tools` when it asks.
"#,
};

/// Most items in one list.
pub const MAX_ITEMS: usize = 64;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let lists: Vec<(&str, Vec<Span>)> = match &contributor.body {
            ContributorBody::EagerLoad { tools, skill } => {
                let mut lists = vec![("tools", spans(tools))];
                if let Some(skill) = skill {
                    lists.push(("operations", spans(&skill.operations)));
                }
                lists
            }
            ContributorBody::Fact { says } => vec![("says", says.iter().map(|item| item.span).collect())],
            _ => continue,
        };
        for (name, items) in lists {
            if items.len() <= MAX_ITEMS {
                continue;
            }
            let extra = items[MAX_ITEMS].to(items[items.len() - 1]);
            out.push(
                Diagnostic::new(&RULE, format!("`{name}` in `{}` lists {} items, over {MAX_ITEMS}", contributor.id.value, items.len()))
                    .primary(extra, format!("items past the {MAX_ITEMS}th"))
                    .help("list the few that every conversation needs; split the rest into another contributor, or load them when asked"),
            );
        }
    }
}

fn spans(items: &[Spanned<String>]) -> Vec<Span> {
    items.iter().map(|item| item.span).collect()
}

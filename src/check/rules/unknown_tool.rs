use super::prelude::*;
use crate::ir::ContributorBody;
use crate::source::Spanned;
use crate::suggest;

pub static RULE: Rule = Rule {
    code: "C0107",
    name: "unknown-tool",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a contributor loads or calls a tool the workspace does not have",
    explanation: r#"
## What it does
Reports a tool in `tools …` or `call …` that neither the platform nor the
workspace's `contrib.toml` declares, suggesting a close name.

## Why is this bad?
The checker cannot know what an undeclared tool does: whether it writes,
whether it reaches the network, what arguments it takes, what its schema
costs. Every other tool rule depends on that declaration.

## Example
```
call get_curent_time {}
```
```
call get_current_time {}
```
Or declare the tool in `contrib.toml`:
```toml
[tools.search_code]
effect = "read"
params = { query = "string" }
schema_tokens = 150
```
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let names: Vec<&Spanned<String>> = match &contributor.body {
            ContributorBody::EagerLoad { tools, .. } => tools.iter().collect(),
            _ => contributor.call().map(|call| &call.tool).into_iter().collect(),
        };
        for name in names {
            if cx.config.tools.contains_key(&name.value) {
                continue;
            }
            let diagnostic = Diagnostic::new(&RULE, format!("unknown tool `{}`", name.value))
                .primary(name.span, "not a tool of this workspace");
            let known = cx.config.tools.keys().map(String::as_str);
            out.push(match suggest::closest(&name.value, known) {
                Some(suggestion) => diagnostic
                    .suggest(name.span, suggestion),
                None => diagnostic.help(format!(
                    "declare it in `contrib.toml` as `[tools.{}]` with its effect, parameters and schema tokens",
                    name.value
                )),
            });
        }
    }
}

use super::prelude::*;
use crate::suggest;

pub static RULE: Rule = Rule {
    code: "C0113",
    name: "unknown-operation",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "an eager-load names an operation the skill does not have",
    explanation: r#"
## What it does
Reports an operation in `skill NAME operations …` that the workspace's
`[skills.NAME]` does not list.

## Why is this bad?
The operation cannot be loaded, and its cost cannot be counted against the
contributor's budget.

## Example
```
skill code-review operations dif
```
```
skill code-review operations diff
```
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let ContributorBody::EagerLoad { skill: Some(load), .. } = &contributor.body else { continue };
        let Some(skill) = cx.config.skills.get(&load.skill.value) else { continue };
        for operation in &load.operations {
            if skill.operations.contains_key(&operation.value) {
                continue;
            }
            let diagnostic = Diagnostic::new(
                &RULE,
                format!("the skill `{}` has no operation `{}`", load.skill.value, operation.value),
            )
            .primary(operation.span, "not an operation of this skill");
            let known = skill.operations.keys().map(String::as_str);
            out.push(match suggest::closest(&operation.value, known.clone()) {
                Some(suggestion) => diagnostic
                    .suggest(operation.span, suggestion),
                None => diagnostic.help(format!("`{}` has the operations {}", load.skill.value, suggest::list(known))),
            });
        }
    }
}

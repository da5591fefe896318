use super::prelude::*;
use crate::ir::variables::Availability;

pub static RULE: Rule = Rule {
    code: "C0122",
    name: "variable-not-available",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a body uses a variable that has no value where it is used",
    explanation: r#"
## What it does
Reports `{idle}` outside a system message `when idle > …`, and
`{skill.version}` outside one `when skill-updated …`.

## Why is this bad?
Those values exist only when their condition fires: there is no idle gap to
report in a text that is always there, and no new skill version when no
skill was updated. The platform would have nothing to put in the braces.

## Example
```
text stance {
    placement conversation
    budget 30 tokens
    body "It has been {idle}."
}
```
```
system-message idle {
    when idle > 4h
    budget 30 tokens
    body "It has been {idle}."
}
```
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let Some(template) = contributor.template() else { continue };
        let condition = match &contributor.body {
            ContributorBody::SystemMessage { condition, .. } => Some(condition),
            _ => None,
        };
        for used in template.variables() {
            let Availability::When(needed) = used.variable.available else { continue };
            if condition.is_some_and(|condition| condition.kind == needed) {
                continue;
            }
            let example = match needed {
                crate::ir::ConditionKind::Idle => "when idle > 4h".to_string(),
                crate::ir::ConditionKind::SkillUpdated => "when skill-updated NAME".to_string(),
                other => format!("when {other}"),
            };
            let name = used.variable.name;
            let diagnostic = Diagnostic::new(
                &RULE,
                format!("`{{{name}}}` has a value only in a system message `{example}`"),
            )
            .primary(used.span, "no value here");
            out.push(match condition {
                Some(condition) => diagnostic
                    .secondary(condition.span, "fires on another condition")
                    .help(format!("say what uses `{{{name}}}` in a `system-message` of its own, `{example}`")),
                None => diagnostic.help(format!("move this text into a `system-message` with `{example}`")),
            });
        }
    }
}

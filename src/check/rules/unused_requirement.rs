use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0115",
    name: "unused-requirement",
    group: RuleGroup::Check,
    default_level: Level::Warn,
    summary: "the plugin requires a skill that no contributor uses",
    explanation: r#"
## What it does
Reports a `requires skill NAME` when no `eager-load` loads the skill and no
`system-message` watches it with `skill-updated`.

## Why is this bad?
A requirement is part of what a person approves and what a workspace must
install. One that nothing uses asks for more than the plugin needs.

## Example
```
requires skill code-review "^2.1"
```
with no contributor naming `code-review`: remove the line.
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for requirement in &cx.plugin.requires {
        if cx.skill_uses().any(|skill| skill.value == requirement.skill.value) {
            continue;
        }
        out.push(
            Diagnostic::new(&RULE, format!("the plugin requires `{}` but nothing uses it", requirement.skill.value))
                .primary(requirement.span, "not used by any contributor")
                .help("remove the requirement, or load the skill with an `eager-load`")
                .fix(Fix::replace("Remove the requirement", Applicability::Unsafe, requirement.span, "")),
        );
    }
}

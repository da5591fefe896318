use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0114",
    name: "unsatisfied-requirement",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "the workspace's skill version does not match the plugin's requirement",
    explanation: r#"
## What it does
Compares each `requires skill NAME "REQ"` with the version in the
workspace's `[skills.NAME]`, and reports a version outside the requirement
or a skill the workspace does not have.

## Why is this bad?
The plugin was written against the skill's operations at those versions;
with another version its eager loads may name operations that no longer
exist, or mean something else.

## Example
```
requires skill code-review "^3"
```
with `version = "2.3.0"` in `contrib.toml`: require `"^2.3"`, or upgrade
the workspace's skill.
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for requirement in &cx.plugin.requires {
        let name = &requirement.skill.value;
        let wanted = &requirement.version.value;
        match cx.config.skills.get(name) {
            None => out.push(
                Diagnostic::new(&RULE, format!("the plugin requires the skill `{name}`, which the workspace does not have"))
                    .primary(requirement.skill.span, "not a skill of this workspace")
                    .help(format!("declare it in `contrib.toml` as `[skills.{name}]` with its version and operations")),
            ),
            Some(skill) if !wanted.matches(&skill.version) => out.push(
                Diagnostic::new(
                    &RULE,
                    format!("the workspace has `{name}` {}, which does not match `{wanted}`", skill.version),
                )
                .primary(requirement.version.span, format!("{} does not match", skill.version))
                .help(format!(
                    "require a range that holds {} (such as \"^{}.{}\"), or install a matching version of `{name}`",
                    skill.version, skill.version.major, skill.version.minor
                )),
            ),
            Some(_) => {}
        }
    }
}

use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0112",
    name: "missing-requirement",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a contributor uses a skill the plugin does not require",
    explanation: r#"
## What it does
Reports `skill NAME operations …` in an `eager-load`, or `when
skill-updated NAME`, for a skill the plugin has no `requires skill NAME
"…"` for.

## Why is this bad?
The requirement is how a plugin says which versions of a skill it was
written against; without it, the plugin would load whatever version is
installed, including one whose operations changed.

## Example
```
plugin acme/review 1.0.0 {
    owner agent-author
    eager-load ops {
        placement agent
        budget 900 tokens
        skill code-review operations diff
    }
}
```
```
plugin acme/review 1.0.0 {
    owner agent-author
    requires skill code-review "^2.1"
    ...
```
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let mut reported = std::collections::HashSet::new();
    for skill in cx.skill_uses() {
        if cx.plugin.requirement(&skill.value).is_some() || !reported.insert(skill.value.as_str()) {
            continue;
        }
        let version = cx
            .config
            .skills
            .get(&skill.value)
            .map_or("1.0".to_string(), |configured| format!("{}.{}", configured.version.major, configured.version.minor));
        let line = format!("requires skill {} \"^{version}\"", skill.value);
        let insert_at = cx.plugin.owner.span.end;
        out.push(
            Diagnostic::new(&RULE, format!("the plugin uses the skill `{}` but does not require it", skill.value))
                .primary(skill.span, "used here")
                .secondary(cx.plugin.name.span, "no `requires` for it in this plugin")
                .help(format!("add `{line}` to the plugin"))
                // Unsafe: a requirement is part of what a workspace must
                // install and a person approves, and its range is a guess.
                .fix(Fix::replace(
                    format!("Add `{line}`"),
                    Applicability::Unsafe,
                    Span::point(insert_at),
                    format!("\n    {line}"),
                )),
        );
    }
}

use super::prelude::*;
use crate::ir::ContributorBody;

pub static RULE: Rule = Rule {
    code: "C0124",
    name: "name-too-long",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a name is longer than 200 characters",
    explanation: r#"
## What it does
Reports a plugin name, contributor id, tool, skill or operation name longer
than 200 characters.

## Why is this bad?
Names appear in bundle paths, approval screens and every turn record. A
name that long is generated or pasted by mistake, and breaks the screens a
person reads it on.

## Example
A contributor id made of a whole sentence: name it in a few words.
"#,
};

/// Longest name, in characters.
pub const MAX_NAME_CHARS: usize = 200;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let plugin_name = cx.plugin.name.value.to_string();
    let mut names: Vec<(&str, &str, Span)> = vec![("plugin name", plugin_name.as_str(), cx.plugin.name.span)];
    for requirement in &cx.plugin.requires {
        names.push(("skill name", &requirement.skill.value, requirement.skill.span));
    }
    for (_, contributor) in cx.contributors() {
        names.push(("contributor id", &contributor.id.value, contributor.id.span));
        if let ContributorBody::EagerLoad { tools, skill } = &contributor.body {
            names.extend(tools.iter().map(|tool| ("tool name", tool.value.as_str(), tool.span)));
            if let Some(skill) = skill {
                names.extend(skill.operations.iter().map(|op| ("operation name", op.value.as_str(), op.span)));
            }
        }
        if let Some(call) = contributor.call() {
            names.push(("tool name", &call.tool.value, call.tool.span));
        }
    }
    for (what, name, span) in names {
        let length = name.chars().count();
        if length > MAX_NAME_CHARS {
            out.push(
                Diagnostic::new(&RULE, format!("this {what} is {length} characters long, over {MAX_NAME_CHARS}"))
                    .primary(span, "too long")
                    .help("name it in a few words; names appear in paths, approval screens and turn records"),
            );
        }
    }
}

use super::prelude::*;

pub use crate::codes::UNSATISFIED_REQUIREMENT as RULE;

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

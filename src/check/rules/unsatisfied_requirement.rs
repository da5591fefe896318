use super::prelude::*;
use contrib_core::policy::skills;

pub use crate::codes::UNSATISFIED_REQUIREMENT as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for requirement in &cx.plugin.requires {
        let name = &requirement.skill.value;
        let Some(unsatisfied) = skills::unsatisfied(cx.config, name, &requirement.version.value) else { continue };
        let diagnostic = Diagnostic::new(&RULE, unsatisfied.to_string());
        out.push(match unsatisfied.have {
            None => diagnostic
                .primary(requirement.skill.span, "not a skill of this workspace")
                .help(format!("declare it in `contrib.toml` as `[skills.{name}]` with its version and operations")),
            Some(have) => diagnostic
                .primary(requirement.version.span, format!("{have} does not match"))
                .help(format!(
                    "require a range that holds {have} (such as \"^{}.{}\"), or install a matching version of `{name}`",
                    have.major, have.minor
                )),
        });
    }
}

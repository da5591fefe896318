use super::prelude::*;

pub use crate::codes::UNUSED_REQUIREMENT as RULE;

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

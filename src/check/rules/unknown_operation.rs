use super::prelude::*;
use crate::suggest;

pub use crate::codes::UNKNOWN_OPERATION as RULE;

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

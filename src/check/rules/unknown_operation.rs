use super::prelude::*;
use crate::suggest;
use contrib_core::policy::skills;

pub use crate::codes::UNKNOWN_OPERATION as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let ContributorBody::EagerLoad { skill: Some(load), .. } = &contributor.body else { continue };
        for operation in &load.operations {
            let Some(unknown) = skills::unknown_operation(cx.config, &load.skill.value, &operation.value) else { continue };
            let diagnostic = Diagnostic::new(&RULE, unknown.to_string())
                .primary(operation.span, "not an operation of this skill");
            out.push(match unknown.suggestion {
                Some(suggestion) => diagnostic.suggest(operation.span, suggestion),
                None => diagnostic.help(format!(
                    "`{}` has the operations {}",
                    load.skill.value,
                    suggest::list(unknown.known.iter().copied())
                )),
            });
        }
    }
}

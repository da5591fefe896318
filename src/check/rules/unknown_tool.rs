use super::prelude::*;
use crate::ir::ContributorBody;
use crate::source::Spanned;
use crate::suggest;

pub use crate::codes::UNKNOWN_TOOL as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let names: Vec<&Spanned<String>> = match &contributor.body {
            ContributorBody::EagerLoad { tools, .. } => tools.iter().collect(),
            _ => contributor.call().map(|call| &call.tool).into_iter().collect(),
        };
        for name in names {
            if cx.config.tools.contains_key(&name.value) {
                continue;
            }
            let diagnostic = Diagnostic::new(&RULE, format!("unknown tool `{}`", name.value))
                .primary(name.span, "not a tool of this workspace");
            let known = cx.config.tools.keys().map(String::as_str);
            out.push(match suggest::closest(&name.value, known) {
                Some(suggestion) => diagnostic
                    .suggest(name.span, suggestion),
                None => diagnostic.help(format!(
                    "declare it in `contrib.toml` as `[tools.{}]` with its effect, parameters and schema tokens",
                    name.value
                )),
            });
        }
    }
}

use super::prelude::*;
use crate::ir::ContributorBody;
use crate::source::Spanned;
use contrib_core::policy::call;

pub use crate::codes::UNKNOWN_TOOL as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let names: Vec<&Spanned<String>> = match &contributor.body {
            ContributorBody::EagerLoad { tools, .. } => tools.iter().collect(),
            _ => contributor.call().map(|call| &call.tool).into_iter().collect(),
        };
        for name in names {
            let Some(unknown) = call::unknown_tool(cx.config, &name.value) else { continue };
            let diagnostic = Diagnostic::new(&RULE, unknown.to_string())
                .primary(name.span, "not a tool of this workspace");
            out.push(match unknown.suggestion {
                Some(suggestion) => diagnostic.suggest(name.span, suggestion),
                None => diagnostic.help(format!(
                    "declare it in `contrib.toml` as `[tools.{}]` with its effect, parameters and schema tokens",
                    name.value
                )),
            });
        }
    }
}

use super::prelude::*;
use crate::check::url;

pub use crate::codes::EGRESS_NOT_ALLOWED as RULE;

/// Every host an argument carries, whatever its parameter is called (the
/// registry's `hosts` says which do), must be allowed; a host built from a
/// variable cannot be shown to be, so it is refused too.
pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (contributor, call) in cx.calls() {
        let Some(tool) = cx.config.tools.get(&call.tool.value) else { continue };
        let arguments = call.arguments.iter().map(|(name, argument)| (name.as_str(), &argument.value.value));
        for found in url::hosts(tool, arguments) {
            let span = call.arguments.get(found.param).map_or(call.tool.span, |argument| argument.value.span);
            let id = &contributor.id.value;
            let diagnostic = match found.host {
                Ok(host) if cx.config.egress_allows(&host) => continue,
                Ok(host) => Diagnostic::new(&RULE, format!("`{id}` reaches `{host}`, which the workspace does not allow"))
                    .primary(span, format!("`{host}` is not in `[egress] allow`"))
                    .help(format!("add \"{host}\" to `allow` in the `[egress]` table of `contrib.toml`, or fetch from an allowed host")),
                Err(why) if why.from_variable => Diagnostic::new(&RULE, format!("`{id}` reaches a host built from a variable, which no allow-list can be shown to hold"))
                    .primary(span, format!("`{}` carries a host", found.param))
                    .help(why.help),
                Err(_) => continue,
            };
            out.push(diagnostic);
        }
    }
}

use super::prelude::*;
use crate::check::url;
use crate::ir::Value;

pub use crate::rules::EGRESS_NOT_ALLOWED as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (contributor, call) in cx.calls() {
        let Some(tool) = cx.config.tools.get(&call.tool.value) else { continue };
        if !tool.egress {
            continue;
        }
        let Some(argument) = call.arguments.get("url") else { continue };
        let Value::String(text) = &argument.value.value else { continue };
        let Ok(host) = url::host(text) else { continue };
        if cx.config.egress_allows(&host) {
            continue;
        }
        out.push(
            Diagnostic::new(
                &RULE,
                format!("`{}` reaches `{host}`, which the workspace does not allow", contributor.id.value),
            )
            .primary(argument.value.span, format!("`{host}` is not in `[egress] allow`"))
            .help(format!("add \"{host}\" to `allow` in the `[egress]` table of `contrib.toml`, or fetch from an allowed host")),
        );
    }
}

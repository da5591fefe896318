use super::prelude::*;
use contrib_core::policy::call;

pub use crate::codes::EAGER_RUN_GATED as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for site in cx.calls() {
        let Some(gated) = call::gated(cx.config, &site.judged()) else { continue };
        out.push(
            Diagnostic::new(&RULE, gated.to_string())
                .primary(site.call.tool.span, "gated")
                .help("eager calls run before anyone asks; ungate the tool if it is safe, or `eager-load` it so the model calls it when asked"),
        );
    }
}

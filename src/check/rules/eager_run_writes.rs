use super::prelude::*;
use contrib_core::policy::call;

pub use crate::codes::EAGER_RUN_WRITES as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for site in cx.calls() {
        let Some(writes) = call::writes(cx.config, &site.judged()) else { continue };
        let name = writes.tool;
        let diagnostic = Diagnostic::new(&RULE, writes.to_string())
            .primary(site.call.tool.span, "a tool with `effect = \"write\"`");
        out.push(if writes.opted_in {
            diagnostic
                .with_severity(Severity::Warning)
                .help(format!("allowed by `eager = true` in `[tools.{name}]`; make sure a person would approve this run at every conversation start"))
        } else {
            diagnostic.help(format!("eager runs and prefaces call read-only tools; if this one must run, opt it in with `eager = true` in `[tools.{name}]`"))
        });
    }
}

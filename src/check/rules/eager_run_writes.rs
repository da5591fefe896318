use super::prelude::*;

pub use crate::codes::EAGER_RUN_WRITES as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (contributor, call) in cx.calls() {
        let Some(tool) = cx.config.tools.get(&call.tool.value) else { continue };
        if tool.effect != crate::config::Effect::Write {
            continue;
        }
        let name = &call.tool.value;
        let diagnostic = Diagnostic::new(
            &RULE,
            format!("`{}` runs `{name}` with nobody asking, and `{name}` writes", contributor.id.value),
        )
        .primary(call.tool.span, "a tool with `effect = \"write\"`");
        out.push(if tool.eager {
            diagnostic
                .with_severity(Severity::Warning)
                .help(format!("allowed by `eager = true` in `[tools.{name}]`; make sure a person would approve this run at every conversation start"))
        } else {
            diagnostic.help(format!("eager runs and prefaces call read-only tools; if this one must run, opt it in with `eager = true` in `[tools.{name}]`"))
        });
    }
}

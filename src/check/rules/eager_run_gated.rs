use super::prelude::*;

pub use crate::codes::EAGER_RUN_GATED as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (contributor, call) in cx.calls() {
        let Some(tool) = cx.config.tools.get(&call.tool.value) else { continue };
        if !tool.gated {
            continue;
        }
        out.push(
            Diagnostic::new(
                &RULE,
                format!("`{}` calls the gated tool `{}`, which waits for approval", contributor.id.value, call.tool.value),
            )
            .primary(call.tool.span, "gated")
            .help("eager calls run before anyone asks; ungate the tool if it is safe, or `eager-load` it so the model calls it when asked"),
        );
    }
}

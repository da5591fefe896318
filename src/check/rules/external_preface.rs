use super::prelude::*;
use crate::ir::Source;

pub use crate::codes::EXTERNAL_PREFACE as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let ContributorBody::Preface { source, .. } = &contributor.body else { continue };
        if source.value != Source::External {
            continue;
        }
        out.push(
            Diagnostic::new(&RULE, format!("the preface `{}` brings in external content", contributor.id.value))
                .primary(source.span, "untrusted content")
                .help("the runtime marks it as untrusted in its envelope; if that is intended, record why with `# contrib: allow(external-preface) -- reason`"),
        );
    }
}

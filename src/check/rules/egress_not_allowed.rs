use super::prelude::*;
use contrib_core::policy::call::{self, Egress};

pub use crate::codes::EGRESS_NOT_ALLOWED as RULE;

/// Every host an argument carries, whatever its parameter is called (the
/// registry's `hosts` says which do), must be allowed; a host built from a
/// variable cannot be shown to be, so it is refused too. A value that is
/// not a URL at all is `invalid-tool-arguments`' to report.
pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for site in cx.calls() {
        for found in call::egress(cx.config, &site.judged()) {
            let span = site.argument_span(found.param());
            let diagnostic = match &found {
                Egress::NotAllowed { host, .. } => Diagnostic::new(&RULE, found.to_string())
                    .primary(span, format!("`{host}` is not in `[egress] allow`"))
                    .help(format!("add \"{host}\" to `allow` in the `[egress]` table of `contrib.toml`, or fetch from an allowed host")),
                Egress::Unprovable { param, why, .. } if why.from_variable => Diagnostic::new(&RULE, found.to_string())
                    .primary(span, format!("`{param}` carries a host"))
                    .help(why.help),
                Egress::Unprovable { .. } => continue,
            };
            out.push(diagnostic);
        }
    }
}

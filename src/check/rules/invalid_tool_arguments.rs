use super::prelude::*;
use crate::config::ParamKind;
use crate::suggest;
use contrib_core::policy::call::{self, a, Argument};

pub use crate::codes::INVALID_TOOL_ARGUMENTS as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for site in cx.calls() {
        for found in call::arguments(cx.config, &site.judged()) {
            let at = site.argument_span(found.name());
            let diagnostic = Diagnostic::new(&RULE, found.to_string());
            out.push(match &found {
                Argument::Unknown { tool, name, suggestion, params } => {
                    let key = site.call.arguments.get(*name).map_or(at, |argument| argument.key);
                    let diagnostic = diagnostic.primary(key, "not a parameter of this tool");
                    match suggestion {
                        Some(suggestion) => diagnostic.suggest(key, suggestion),
                        None if params.is_empty() => diagnostic.help(format!("`{tool}` takes no arguments: write `call {tool} {{}}`")),
                        None => diagnostic.help(format!("`{tool}` takes {}", suggest::list(params.iter().copied()))),
                    }
                }
                Argument::WrongType { name, expected, .. } => diagnostic
                    .primary(at, format!("expected {}", a(expected.as_str())))
                    .help(format!("give `{name}` {} value, such as `{name}: {}`", a(expected.as_str()), example(*expected))),
                Argument::NotFetchable { why, .. } => diagnostic.primary(at, "not a fetchable URL").help(why.help),
                Argument::Missing { name, kind, .. } => diagnostic
                    .primary(site.call.tool.span, format!("`{name}` is missing"))
                    .help(format!("add `{name}: {}` to the call's arguments", example(*kind))),
            });
        }
    }
}

/// A value of the kind, as written in a call.
fn example(kind: ParamKind) -> &'static str {
    match kind {
        ParamKind::String => "\"…\"",
        ParamKind::Integer => "10",
        ParamKind::Boolean => "true",
        ParamKind::List => "[\"…\"]",
    }
}

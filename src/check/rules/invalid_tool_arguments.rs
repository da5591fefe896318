use super::prelude::*;
use crate::check::url;
use crate::config::ParamKind;
use crate::ir::{Call, Value};
use crate::suggest;

pub use crate::codes::INVALID_TOOL_ARGUMENTS as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, call) in cx.calls() {
        let Some(tool) = cx.config.tools.get(&call.tool.value) else { continue };
        // Parameters an unknown argument is taken to be a misspelling of:
        // the fix renames it, so they are not reported missing as well.
        let mut misspelt = Vec::new();
        for (name, argument) in &call.arguments {
            let Some(param) = tool.params.get(name) else {
                let known = || tool.params.keys().map(String::as_str);
                let suggestion = suggest::closest(name, known());
                misspelt.extend(suggestion);
                out.push(unknown_argument(call, name, argument.key, suggestion, known()));
                continue;
            };
            let expected = param.kind.as_str();
            if !matches_kind(&argument.value.value, param.kind) {
                out.push(
                    Diagnostic::new(
                        &RULE,
                        format!(
                            "`{}` takes {} for `{name}`, not {}",
                            call.tool.value,
                            a(expected),
                            a(argument.value.value.type_name())
                        ),
                    )
                    .primary(argument.value.span, format!("expected {}", a(expected)))
                    .help(format!("give `{name}` {} value, such as `{name}: {}`", a(expected), example(param.kind))),
                );
                continue;
            }
            for found in url::hosts(tool, [(name.as_str(), &argument.value.value)]) {
                match found.host {
                    Err(unfetchable) if !unfetchable.from_variable => out.push(
                        Diagnostic::new(&RULE, format!("`{}` is not a URL that can be fetched: {}", found.text, unfetchable.why))
                            .primary(argument.value.span, "not a fetchable URL")
                            .help(unfetchable.help),
                    ),
                    _ => {}
                }
            }
        }
        for (name, param) in &tool.params {
            if param.required && !call.arguments.contains_key(name) && !misspelt.contains(&name.as_str()) {
                out.push(
                    Diagnostic::new(&RULE, format!("`{}` needs the argument `{name}`", call.tool.value))
                        .primary(call.tool.span, format!("`{name}` is missing"))
                        .help(format!("add `{name}: {}` to the call's arguments", example(param.kind))),
                );
            }
        }
    }
}

/// A type's name with its article: "a string", "an integer".
fn a(kind: &str) -> String {
    match kind.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {kind}"),
        _ => format!("a {kind}"),
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

fn matches_kind(value: &Value, kind: ParamKind) -> bool {
    matches!(
        (value, kind),
        (Value::String(_), ParamKind::String)
            | (Value::Integer(_), ParamKind::Integer)
            | (Value::Boolean(_), ParamKind::Boolean)
            | (Value::List(_), ParamKind::List)
    )
}

fn unknown_argument<'k>(call: &Call, name: &str, span: Span, suggestion: Option<&str>, known: impl Iterator<Item = &'k str>) -> Diagnostic {
    let tool = &call.tool.value;
    let diagnostic = Diagnostic::new(&RULE, format!("`{tool}` takes no argument `{name}`"))
        .primary(span, "not a parameter of this tool");
    if let Some(suggestion) = suggestion {
        return diagnostic
            .suggest(span, suggestion);
    }
    let params: Vec<&str> = known.collect();
    if params.is_empty() {
        diagnostic.help(format!("`{tool}` takes no arguments: write `call {tool} {{}}`"))
    } else {
        diagnostic.help(format!("`{tool}` takes {}", suggest::list(params)))
    }
}

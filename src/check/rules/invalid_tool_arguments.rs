use super::prelude::*;
use crate::check::url;
use crate::config::ParamKind;
use crate::ir::{Call, Value};
use crate::suggest;

pub static RULE: Rule = Rule {
    code: "C0111",
    name: "invalid-tool-arguments",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a call's arguments do not match the tool's parameters",
    explanation: r#"
## What it does
Checks each call against the tool's `params` in the configuration: an
argument the tool does not take, a required one that is missing, a value of
the wrong type (`string`, `integer`, `boolean`, `list`), and for tools with
`egress = true` a `url` that is not an `http(s)` URL with a host name.

## Why is this bad?
An eager run happens with nobody watching: a call that fails on its
arguments fails at every conversation start, and nobody sees why.

## Example
```
call fetch_url { uri: "https://docs.acme.dev/style" }
```
```
call fetch_url { url: "https://docs.acme.dev/style" }
```
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, call) in cx.calls() {
        let Some(tool) = cx.config.tools.get(&call.tool.value) else { continue };
        for (name, argument) in &call.arguments {
            let Some(param) = tool.params.get(name) else {
                out.push(unknown_argument(call, name, argument.key, tool.params.keys().map(String::as_str)));
                continue;
            };
            if !matches_kind(&argument.value.value, param.kind) {
                out.push(
                    Diagnostic::new(
                        &RULE,
                        format!(
                            "`{}` takes a {} for `{name}`, not a {}",
                            call.tool.value,
                            param.kind.as_str(),
                            argument.value.value.type_name()
                        ),
                    )
                    .primary(argument.value.span, format!("expected a {}", param.kind.as_str()))
                    .help(format!("give `{name}` a {} value", param.kind.as_str())),
                );
                continue;
            }
            if tool.egress && name == "url" {
                if let Value::String(text) = &argument.value.value {
                    if let Err(why) = url::host(text) {
                        out.push(
                            Diagnostic::new(&RULE, format!("`{text}` is not a URL that can be fetched: {why}"))
                                .primary(argument.value.span, "not a fetchable URL")
                                .help("write a full URL such as \"https://docs.acme.dev/style\""),
                        );
                    }
                }
            }
        }
        for (name, param) in &tool.params {
            if param.required && !call.arguments.contains_key(name) {
                out.push(
                    Diagnostic::new(&RULE, format!("`{}` needs the argument `{name}`", call.tool.value))
                        .primary(call.tool.span, format!("`{name}` is missing"))
                        .help(format!("add `{name}: <{}>` to the call's arguments", param.kind.as_str())),
                );
            }
        }
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

fn unknown_argument<'k>(call: &Call, name: &str, span: Span, known: impl Iterator<Item = &'k str> + Clone) -> Diagnostic {
    let diagnostic = Diagnostic::new(&RULE, format!("`{}` takes no argument `{name}`", call.tool.value))
        .primary(span, "not a parameter of this tool");
    match suggest::closest(name, known.clone()) {
        Some(suggestion) => diagnostic
            .help(format!("did you mean `{suggestion}`?"))
            .fix(Fix::replace(format!("Replace with `{suggestion}`"), Applicability::Safe, span, suggestion)),
        None => {
            let params: Vec<&str> = known.collect();
            if params.is_empty() {
                diagnostic.help(format!("`{}` takes no arguments: write `call {} {{}}`", call.tool.value, call.tool.value))
            } else {
                diagnostic.help(format!("`{}` takes {}", call.tool.value, suggest::list(params)))
            }
        }
    }
}

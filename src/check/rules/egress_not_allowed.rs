use super::prelude::*;
use crate::check::url;
use crate::ir::Value;

pub static RULE: Rule = Rule {
    code: "C0109",
    name: "egress-not-allowed",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a call reaches a host the workspace does not allow",
    explanation: r#"
## What it does
For tools declared with `egress = true`, reads the host of the `url`
argument and reports it when no `[egress] allow` entry matches (an exact
host, or `*.domain` for its subdomains). A URL that does not parse is
`invalid-tool-arguments`.

## Why is this bad?
An eager run or preface fetches with nobody watching. Which hosts it may
reach is the workspace's decision, made once in `contrib.toml`, not each
plugin's.

## Example
```
call fetch_url { url: "https://pastebin.example/raw/x" }
```
Allow the host in `contrib.toml`, or fetch from one that is allowed:
```toml
[egress]
allow = ["docs.acme.dev"]
```
"#,
};

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

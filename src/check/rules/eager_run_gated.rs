use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0110",
    name: "eager-run-gated",
    group: RuleGroup::Check,
    default_level: Level::Warn,
    summary: "an eager call uses a gated tool and will wait for approval",
    explanation: r#"
## What it does
Reports an `eager-run` or `preface` whose tool is `gated = true`.

## Why is this bad?
A gated tool waits for a person's approval before it runs. At conversation
start that means the conversation opens with an approval prompt nobody
asked for, or the run is refused and its contribution is missing.

## Example
```toml
[tools.read_calendar]
effect = "read"
gated = true
```
Ungate the tool in the workspace if it is safe to run unasked, or load it
with `eager-load` so the model can call it when a person asks.
"#,
};

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

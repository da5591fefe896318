use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0108",
    name: "eager-run-writes",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a call made with nobody asking uses a tool that writes",
    explanation: r#"
## What it does
Reports an `eager-run` or `preface` whose tool has `effect = "write"`.
A workspace may opt a tool in with `eager = true` in its `[tools.NAME]`; the
rule then warns and names the opt-in.

## Why is this bad?
Eager runs happen when a conversation starts and prefaces before each turn,
on nobody's instruction. Read-only tools only, by default: a call that
writes, sends or deletes at conversation start acts for a person who has
not asked for anything yet.

## Example
```
eager-run greet {
    placement conversation
    budget 50 tokens
    call send_message { to: "team" }
}
```
Run it as a tool the model calls when asked, not as an eager run.
"#,
};

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

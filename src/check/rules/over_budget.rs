use super::prelude::*;
use crate::check::Measure;
use crate::tokenizer::TokenizerKind;

pub static RULE: Rule = Rule {
    code: "C0118",
    name: "over-budget",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "what a contributor adds is larger than its budget",
    explanation: r#"
## What it does
Measures what a contributor adds with the workspace's tokenizer and
compares it with its `budget`: the body with every variable at its
worst-case length (`{person.name}` counts as 64 characters), the framing
added to text below agent priority, and for eager loads each tool's
`schema_tokens`, the skill's `manifest_tokens` and each operation's
`tokens`. For eager runs, prefaces and facts only the call is known before
run time; the runtime refuses a result over the budget.

## Why is this bad?
A budget is what a person approves. A contributor over its budget is
refused, never cut: cutting text changes its meaning in ways nobody
reviewed.

## Example
```
text stance {
    placement agent
    budget 5 tokens
    body "Challenge premises; do not call a design good when it is merely fine."
}
```
Raise the budget to what the text needs (the help says how much), or
shorten the text.
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (index, contributor) in cx.contributors() {
        let budget = contributor.budget.value;
        let measure = cx.measure(index);
        if measure.fits(budget) {
            continue;
        }
        let measured = measure.tokens();
        let what = if measure.complete { "adds" } else { "is known to add at least" };
        out.push(
            Diagnostic::new(
                &RULE,
                format!("`{}` {what} {}, over its budget of {budget}", contributor.id.value, tokens(measured)),
            )
            .primary(contributor.budget.span, format!("{} declared", tokens(budget)))
            .secondary(contributor.header, how_measured(measure, measured, cx.config.tokenizer))
            .help(format!(
                "raise the budget to at least {measured} (`budget {measured} tokens`), or shorten what it adds"
            ))
            .fix(Fix::replace(
                format!("Raise the budget to {measured} tokens"),
                Applicability::Unsafe,
                contributor.budget.span,
                format!("budget {measured} tokens"),
            )),
        );
    }
}

/// Where the measured tokens come from: counted text, the workspace's
/// declared costs, or both.
fn how_measured(measure: &Measure, measured: u64, tokenizer: TokenizerKind) -> String {
    let declared = measure.configured_tokens;
    match measured - declared {
        _ if declared == 0 => format!("measures {} with {tokenizer}", tokens(measured)),
        0 => format!("loads {}, as `contrib.toml` declares", tokens(declared)),
        counted => format!(
            "loads {} as `contrib.toml` declares, and {counted} more counted with {tokenizer}",
            tokens(declared)
        ),
    }
}

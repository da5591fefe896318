use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0120",
    name: "budget-unused",
    group: RuleGroup::Check,
    default_level: Level::Warn,
    summary: "a budget is more than four times what the contributor adds",
    explanation: r#"
## What it does
Reports a `text`, `system-message` or `eager-load` whose budget is more
than 4× its measured size. It does not apply to eager runs, prefaces and
facts, whose size is only known at run time, nor to an eager load of a
tool, skill or operation the workspace does not declare, whose cost is not
known.

## Why is this bad?
A budget is what a person approves, and what the system-prompt share is
planned with. An inflated budget asks for room it does not use and crowds
out other contributors; it should be honest. If the room is for planned
growth, say so in a suppression:
`# contrib: allow(budget-unused) -- approved at 4x for growth`.

## Example
```
text stance {
    placement agent
    budget 2000 tokens
    body "Challenge premises."
}
```
```
    budget 10 tokens
```
"#,
};

/// How many times the measured size a budget may be before it is unused.
const SLACK: u64 = 4;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (index, contributor) in cx.contributors() {
        let measure = cx.measure(index);
        if !measure.complete {
            continue;
        }
        let budget = contributor.budget.value;
        if budget <= measure.tokens_at_least().saturating_mul(SLACK) {
            continue;
        }
        let measured = measure.tokens();
        if budget <= measured.saturating_mul(SLACK) {
            continue;
        }
        let honest = measured.max(1);
        out.push(
            Diagnostic::new(
                &RULE,
                format!("`{}` is budgeted {budget} tokens but adds {}", contributor.id.value, tokens(measured)),
            )
            .primary(contributor.budget.span, format!("more than {SLACK}× the {} measured", tokens(measured)))
            .help(format!(
                "lower the budget toward {}, or record why it is larger: `# contrib: allow(budget-unused) -- reason`",
                tokens(honest)
            ))
            .fix(Fix::replace(
                format!("Lower the budget to {honest} tokens"),
                Applicability::Unsafe,
                contributor.budget.span,
                format!("budget {honest} tokens"),
            )),
        );
    }
}

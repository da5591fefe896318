use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0105",
    name: "priority-above-owner",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a contributor claims a priority its owner may not claim",
    explanation: r#"
## What it does
Reports a `priority` above what the owner may claim: an `operator` up to
`platform`, an `agent-author` up to `agent`, a `workspace` up to
`workspace`, a `person` up to `person`. When `priority` is left out it is
the owner's highest.

## Why is this bad?
Priority is the chain of authority the model is told to follow. Text below
agent priority is framed as such, so a person's preference cannot soften a
refusal however it is worded. A contributor that claims a higher priority
than its owner holds would escape that framing.

## Example
```
text voice {
    owner person
    placement person
    priority agent
    ...
```
```
    priority person
```
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let owner = contributor.owner.value;
        let highest = owner.highest_priority();
        let priority = contributor.priority.value;
        let Some(span) = contributor.priority.written else { continue };
        if priority >= highest {
            continue;
        }
        out.push(
            Diagnostic::new(
                &RULE,
                format!("`{}` claims {priority} priority, above what a `{owner}` owner may claim", contributor.id.value),
            )
            .primary(span, format!("a `{owner}` may claim at most `{highest}`"))
            .secondary(contributor.owner.span_or(contributor.header), format!("owned by `{owner}`"))
            .help(format!("lower the priority to `{highest}`, or leave it out: it defaults to the owner's highest"))
            .fix(Fix::replace(
                format!("Lower the priority to `{highest}`"),
                Applicability::Unsafe,
                span,
                highest.as_str(),
            )),
        );
    }
}

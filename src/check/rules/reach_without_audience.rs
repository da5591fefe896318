use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0121",
    name: "reach-without-audience",
    group: RuleGroup::Check,
    default_level: Level::Warn,
    summary: "a person's contribution reaches turns no person is waiting on",
    explanation: r#"
## What it does
Reports a contributor at `person` placement, or owned by a `person`, whose
reach is `every-turn` (the default).

## Why is this bad?
Agents also take turns nobody is waiting on: scheduled work, tool loops,
other agents' calls. A person's voice ("answer tersely, call me Sam") has no
one to reach there, and spends tokens on every one of them.

## Example
```
text voice {
    owner person
    placement person
    budget 60 tokens
    body "Answer tersely."
}
```
```
    reach replies
```
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let personal = contributor.placement.value == Placement::Person || contributor.owner.value == Owner::Person;
        if !personal || contributor.reach.value != Reach::EveryTurn {
            continue;
        }
        let why = if contributor.owner.value == Owner::Person {
            "speaks for a person"
        } else {
            "is placed per person"
        };
        let diagnostic = Diagnostic::new(
            &RULE,
            format!("`{}` {why} but reaches every turn, including those nobody is waiting on", contributor.id.value),
        );
        out.push(match contributor.reach.written {
            Some(span) => diagnostic
                .primary(span, "every turn")
                .help("use `reach replies` (turns that answer the person) or `reach with-person` (turns while they are present)")
                .fix(Fix::replace("Reach replies only", Applicability::Unsafe, span, "replies")),
            None => diagnostic
                .primary(contributor.header, "reach defaults to `every-turn`")
                .help("add `reach replies` (turns that answer the person) or `reach with-person` (turns while they are present)"),
        });
    }
}

use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0104",
    name: "owner-cannot-place",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "an owner adds at a placement wider than its authority",
    explanation: r#"
## What it does
Reports a contributor placed wider than its owner may add: an `operator`
may add anywhere; a `workspace` or `agent-author` at `agent` or narrower; a
`person` at `person` or narrower.

## Why is this bad?
A placement is shared by everyone under it. Platform text reaches every
agent's every conversation; only the operator may speak there. A person's
voice placed at agent would speak to everybody else who uses the agent.

## Example
```
plugin acme/voice 1.0.0 {
    owner person
    text voice {
        placement agent
        ...
```
```
    text voice {
        placement person
        ...
```
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let owner = contributor.owner.value;
        let widest = owner.widest_placement();
        let placement = contributor.placement.value;
        if placement >= widest {
            continue;
        }
        let span = contributor.placement.span_or(contributor.header);
        let mut diagnostic = Diagnostic::new(
            &RULE,
            format!("a `{owner}` owner cannot add at {placement} placement, as `{}` does", contributor.id.value),
        )
        .primary(span, format!("{placement} is wider than a `{owner}` may add"))
        .secondary(contributor.owner.span_or(contributor.header), format!("owned by `{owner}`"))
        .help(format!("place it at `{widest}` or narrower: a `{owner}` may add no wider"));
        if let Some(written) = contributor.placement.written {
            diagnostic = diagnostic.fix(Fix::replace(
                format!("Narrow the placement to `{widest}`"),
                Applicability::Unsafe,
                written,
                widest.as_str(),
            ));
        }
        out.push(diagnostic);
    }
}

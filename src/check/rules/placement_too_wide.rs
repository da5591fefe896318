use super::prelude::*;
use crate::check::variance::{self, Cause};
use crate::ir::VariableUse;

pub static RULE: Rule = Rule {
    code: "C0101",
    name: "placement-too-wide",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a contributor varies more finely than the placement it is shared at",
    explanation: r#"
## What it does
Compares a contributor's placement with its variance: the narrowest of its
template variables' variance, its owner's (a `person` owner's text varies
per person) and its kind's (a run's result varies per conversation, a
message per turn). Placements, from the most widely shared: platform, agent,
person, conversation, message.

This rule reports the variables that vary too finely; a kind placed where it
cannot go is `placement-not-for-kind`, and a person's text placed wider than
`person` is `owner-cannot-place`, so each mistake is reported once.

## Why is this bad?
The provider caches a prompt's prefix and shares it with every request that
starts the same way. Agent-placement text is shared by every conversation of
the agent; if it holds `{person.name}` or `{now}`, every request differs and
nobody gets a cache hit, for any person, ever.

## Example
```
text greeting {
    placement agent
    budget 40 tokens
    body "The time is {now}."
}
```
Take the time once, when the conversation starts, and say when it moves on:
```
eager-run started-at {
    placement conversation
    budget 50 tokens
    call get_current_time {}
}

system-message new-day {
    when date-crossed
    budget 30 tokens
    body "It is now {date}."
}
```
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let (variance, cause) = variance::of(contributor);
        let placement = contributor.placement.value;
        if variance <= placement {
            continue;
        }
        // A kind out of its placement is `placement-not-for-kind`'s to
        // report, and a person owner's text out of its placement
        // `owner-cannot-place`'s: only a variable is this rule's own.
        let Some(Cause::Variable(used)) = cause else {
            continue;
        };
        out.push(diagnostic(contributor, placement, variance, used));
    }
}

fn diagnostic(
    contributor: &Contributor,
    placement: Placement,
    variance: Placement,
    used: &VariableUse,
) -> Diagnostic {
    let id = &contributor.id.value;
    let name = used.variable.name;
    let help = if used.variable.is_time() && placement.is_system_prompt() {
        "a time in the system prompt changes every request: take it once with an `eager-run` of `get_current_time` at conversation placement, and add a `system-message` (`when idle > 4h` or `when date-crossed`) to say that time has moved on".to_string()
    } else {
        format!("place it at `{variance}` or narrower, or remove `{{{name}}}` from it")
    };
    let mut diagnostic = Diagnostic::new(
        &RULE,
        format!("`{id}` uses `{{{name}}}`, which varies per {variance}, at {placement} placement"),
    )
    .primary(
        contributor.placement.span_or(contributor.header),
        format!("shared at {placement}"),
    )
    .secondary(used.span, format!("varies per {variance}"))
    .help(help);
    if let Some(span) = contributor.placement.written {
        diagnostic = diagnostic.fix(Fix::replace(
            format!("Narrow the placement to `{variance}`"),
            Applicability::Unsafe,
            span,
            variance.as_str(),
        ));
    }
    diagnostic
}

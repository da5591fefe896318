use super::prelude::*;
use crate::check::variance::{self, Cause};

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
        // A kind out of its placement is `placement-not-for-kind`'s to report.
        let Some(cause) = cause.filter(|cause| !matches!(cause, Cause::Kind(_))) else {
            continue;
        };
        out.push(diagnostic(contributor, placement, variance, cause));
    }
}

fn diagnostic(contributor: &Contributor, placement: Placement, variance: Placement, cause: Cause<'_>) -> Diagnostic {
    let id = &contributor.id.value;
    let placement_span = contributor.placement.span_or(contributor.header);
    let (message, label) = match cause {
        Cause::Variable(used) => (
            format!("`{id}` uses `{{{}}}`, which varies per {variance}, at {placement} placement", used.variable.name),
            format!("varies per {variance}"),
        ),
        Cause::Owner(_) => (
            format!("`{id}` is owned by a person, so it varies per person, but is placed at {placement}"),
            "a person's text varies per person".to_string(),
        ),
        Cause::Kind(_) => (
            format!("a `{}` varies per {variance}, but `{id}` is placed at {placement}", contributor.kind()),
            format!("a `{}` varies per {variance}", contributor.kind()),
        ),
    };
    let is_time = matches!(cause, Cause::Variable(used) if used.variable.is_time());
    let help = if is_time && placement.is_system_prompt() {
        "a time in the system prompt changes every request: take it once with an `eager-run` of `get_current_time` at conversation placement, and add a `system-message` (`when idle > 4h` or `when date-crossed`) to say that time has moved on".to_string()
    } else {
        format!("place it at `{variance}` or narrower, or remove what varies from it")
    };
    let mut diagnostic = Diagnostic::new(&RULE, message)
        .primary(placement_span, format!("shared at {placement}"))
        .secondary(cause.span(), label)
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

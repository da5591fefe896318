use super::prelude::*;
use crate::check::variance;

pub static RULE: Rule = Rule {
    code: "C0103",
    name: "placement-could-be-wider",
    group: RuleGroup::Check,
    default_level: Level::Warn,
    summary: "a text is placed narrower than its content and owner need",
    explanation: r#"
## What it does
Reports a `text` whose variance and owner would allow a more widely shared
placement than the one it names: for example agent-author text with no
per-person or per-conversation variables, placed at `conversation`.

## Why is this bad?
A narrower placement is cached for fewer people: text that is the same for
everyone who talks to an agent, placed per conversation, is re-sent and
re-cached for each conversation instead of once for the agent.

It warns by default: the fix changes where the text goes, and an author may
have a reason (ordering, a text meant to vanish at compaction). Silence it
with a suppression that gives the reason, or in `[lints]`.

## Example
```
text tone {
    placement conversation
    budget 30 tokens
    body "Prefer short answers."
}
```
```
text tone {
    placement agent
    budget 30 tokens
    body "Prefer short answers."
}
```
"#,
};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        if contributor.kind() != Kind::Text {
            continue;
        }
        let (variance, _) = variance::of(contributor);
        let widest = variance.max(contributor.owner.value.widest_placement());
        let placement = contributor.placement.value;
        let Some(span) = contributor.placement.written else { continue };
        if widest >= placement {
            continue;
        }
        out.push(
            Diagnostic::new(
                &RULE,
                format!("`{}` could be placed at {widest}, shared by {}", contributor.id.value, widest.shared_by()),
            )
            .primary(span, format!("placed at {placement}, shared by {}", placement.shared_by()))
            .help(format!("nothing in it varies more finely than {widest}: place it at `{widest}` so it is cached once for all who share it"))
            .fix(Fix::replace(
                format!("Widen the placement to `{widest}`"),
                Applicability::Unsafe,
                span,
                widest.as_str(),
            )),
        );
    }
}

use super::prelude::*;

pub static RULE: Rule = Rule {
    code: "C0102",
    name: "placement-not-for-kind",
    group: RuleGroup::Check,
    default_level: Level::Deny,
    summary: "a contributor's kind cannot go at the placement it names",
    explanation: r#"
## What it does
Reports an `eager-run` outside conversation placement; a `system-message`,
`fact` or `preface` outside message placement; an `eager-load` narrower than
conversation.

## Why is this bad?
Each kind happens at one moment. An eager run happens once, when a
conversation starts, so its result belongs to the conversation; system
messages, facts and prefaces are rebuilt before each turn; an eager load
happens at conversation start and cannot be per message.

## Example
```
eager-run started-at {
    placement agent
    budget 50 tokens
    call get_current_time {}
}
```
```
eager-run started-at {
    placement conversation
    budget 50 tokens
    call get_current_time {}
}
```
"#,
};

/// The placements a kind may take, and how to say so.
fn allowed(kind: Kind) -> (&'static [Placement], &'static str) {
    match kind {
        Kind::EagerRun => (&[Placement::Conversation], "an `eager-run` happens once per conversation: it goes at `conversation` placement"),
        Kind::SystemMessage | Kind::Fact | Kind::Preface => (&[Placement::Message], "it is rebuilt before each turn: it goes at `message` placement"),
        Kind::EagerLoad => (
            &[Placement::Platform, Placement::Agent, Placement::Person, Placement::Conversation],
            "an `eager-load` happens when a conversation starts: it goes at `conversation` placement or wider",
        ),
        Kind::Text => (Placement::ALL, ""),
    }
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let kind = contributor.kind();
        let placement = contributor.placement.value;
        let (placements, help) = allowed(kind);
        if placements.contains(&placement) {
            continue;
        }
        let span = contributor.placement.span_or(contributor.header);
        let mut diagnostic = Diagnostic::new(
            &RULE,
            format!("`{kind}` contributors cannot go at {placement} placement, as `{}` does", contributor.id.value),
        )
        .primary(span, format!("not a placement for `{kind}`"))
        .help(help);
        if let (Some(written), Some(default)) = (contributor.placement.written, kind.default_placement()) {
            diagnostic = diagnostic.fix(Fix::replace(
                format!("Place it at `{default}`"),
                Applicability::Unsafe,
                written,
                default.as_str(),
            ));
        }
        out.push(diagnostic);
    }
}

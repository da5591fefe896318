use super::prelude::*;

pub use crate::codes::REACH_WITHOUT_AUDIENCE as RULE;

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

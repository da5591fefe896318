use super::prelude::*;
use crate::ir::facts::sections_of;
use crate::ir::FactSection;
use crate::source::Spanned;

pub use crate::codes::DUPLICATE_FACT_SECTION as RULE;

/// A fact: its contributor, its heading if written, what it says.
type Fact<'c> = (&'c Contributor, Option<&'c Spanned<String>>, &'c [Spanned<FactSection>]);

/// A section a fact states, and where.
struct Stated<'c> {
    contributor: &'c Contributor,
    heading: String,
    /// The heading as written, when it is.
    heading_span: Option<Span>,
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    // The runtime tells a section with the first fact to state it, in
    // composition order: priority, then id.
    let mut facts: Vec<Fact<'_>> = cx
        .contributors()
        .filter_map(|(_, contributor)| match &contributor.body {
            ContributorBody::Fact { heading, says } => Some((contributor, heading.as_ref(), says.as_slice())),
            _ => None,
        })
        .collect();
    facts.sort_by(|a, b| (a.0.priority.value, &a.0.id.value).cmp(&(b.0.priority.value, &b.0.id.value)));
    let mut sections: Vec<Stated<'_>> = Vec::new();
    let mut items: Vec<(FactSection, &Contributor, Span, String)> = Vec::new();
    for (contributor, heading, says) in facts {
        let values: Vec<FactSection> = says.iter().map(|item| item.value).collect();
        for (title, stated) in sections_of(heading.map(|h| h.value.as_str()), &values) {
            for item in stated {
                let span = says.iter().find(|s| s.value == item).map_or(contributor.header, |s| s.span);
                match items.iter().find(|(other, ..)| *other == item) {
                    Some((_, first, first_span, first_heading)) if first.id.value != contributor.id.value => {
                        out.push(twice(item, contributor, span, first, *first_span, first_heading));
                    }
                    Some(_) => {}
                    None => items.push((item, contributor, span, title.clone())),
                }
            }
            let heading_span = heading.map(|h| h.span);
            match sections.iter().find(|s| s.heading == title) {
                Some(first) if first.contributor.id.value != contributor.id.value => {
                    out.push(same_heading(&title, contributor, heading_span, first));
                }
                Some(_) => {}
                None => sections.push(Stated { contributor, heading: title, heading_span }),
            }
        }
    }
}

fn twice(item: FactSection, second: &Contributor, span: Span, first: &Contributor, first_span: Span, heading: &str) -> Diagnostic {
    Diagnostic::new(
        &RULE,
        format!("`{item}` is stated by both `{}` and `{}`", first.id.value, second.id.value),
    )
    .primary(span, "stated again here")
    .secondary(first_span, "first stated here")
    .help(format!(
        "state it once: remove `{item}` from `{}`; the runtime tells it once, under `{heading}`",
        second.id.value
    ))
}

fn same_heading(heading: &str, second: &Contributor, span: Option<Span>, first: &Stated<'_>) -> Diagnostic {
    let primary = span.unwrap_or(second.header);
    let label = if span.is_some() { "the same heading again" } else { "headed the same by default" };
    let mut diagnostic = Diagnostic::new(
        &RULE,
        format!("the section `{heading}` is stated by both `{}` and `{}`", first.contributor.id.value, second.id.value),
    )
    .primary(primary, label);
    diagnostic = match first.heading_span {
        Some(span) => diagnostic.secondary(span, "first headed here"),
        None => diagnostic.secondary(first.contributor.header, "first stated here"),
    };
    diagnostic.help(format!(
        "state the section in one fact, or give `{}` a heading of its own; the runtime sends one message per section, merged",
        second.id.value
    ))
}

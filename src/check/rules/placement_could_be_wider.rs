use super::prelude::*;
use crate::ir::{variance, ActivationKind};

pub use crate::codes::PLACEMENT_COULD_BE_WIDER as RULE;

/// What the placement of a text decides, by its activation.
enum Decides {
    /// Where an always-on text is kept and cached.
    Text,
    /// Where an `on request` text's listing is kept; the text itself is a
    /// note told when the model asks for it.
    Listing,
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        if contributor.kind() != Kind::Text {
            continue;
        }
        // A text told when a command, skill, subagent or files call for it
        // is a note kept in the conversation wherever it is placed: its
        // placement says only how widely it is shared, and caches nothing.
        let decides = match contributor.activation.value.kind() {
            ActivationKind::Always => Decides::Text,
            ActivationKind::Request => Decides::Listing,
            _ => continue,
        };
        let (variance, _) = variance::of(contributor);
        let widest = variance.max(contributor.owner.value.widest_placement());
        let placement = contributor.placement.value;
        let Some(span) = contributor.placement.written else { continue };
        if widest >= placement {
            continue;
        }
        let id = &contributor.id.value;
        let (message, label, help) = match decides {
            Decides::Text => (
                format!("`{id}` could be placed at {widest}, shared by {}", widest.shared_by()),
                format!("placed at {placement}, shared by {}", placement.shared_by()),
                format!("nothing in it varies more finely than {widest}: place it at `{widest}` so it is cached once for all who share it"),
            ),
            Decides::Listing => (
                format!("the listing of `{id}` could be kept at {widest}, shared by {}", widest.shared_by()),
                format!("listed at {placement}, shared by {}", placement.shared_by()),
                format!("nothing in it varies more finely than {widest}: place it at `{widest}` so its description is cached once for all who share it; the text is still told only when the model asks for it"),
            ),
        };
        out.push(
            Diagnostic::new(&RULE, message)
                .primary(span, label)
                .help(help)
                .fix(Fix::replace(
                    format!("Widen the placement to `{widest}`"),
                    Applicability::Unsafe,
                    span,
                    widest.as_str(),
                )),
        );
    }
}

use super::prelude::*;
use crate::ir::variance;

pub use crate::rules::PLACEMENT_COULD_BE_WIDER as RULE;

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

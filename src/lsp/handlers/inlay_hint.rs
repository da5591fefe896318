//! `textDocument/inlayHint`: each contributor's measure against its budget,
//! after its `budget` field, as it would read in `contrib check`'s report:
//! `87/120 tokens (72%)`.
//!
//! Only contributors that lower have a measure (a contributor with an error
//! is not measured, as the checker does not measure it). Kinds whose
//! content is only known at run time (`eager-run`, `preface`, `fact`) show
//! what is known before then, as a lower bound. Measures are counted once
//! per version and only for the contributors in the requested range (see
//! `version::Checked::measured`), so scrolling costs nothing new.

use lsp_types::{
    InlayHint, InlayHintKind, InlayHintLabel, InlayHintParams, InlayHintTooltip, Range,
};

use crate::lsp::convert;
use crate::lsp::state::Snapshot;
use crate::lsp::world::World;

/// The route's handler: the hints in the requested range.
pub fn request(world: &mut World, params: InlayHintParams) -> Option<Vec<InlayHint>> {
    let snapshot = world.state.snapshot(&params.text_document.uri)?;
    Some(inlay_hints(&snapshot, params.range))
}

pub fn inlay_hints(snapshot: &Snapshot<'_>, range: Range) -> Vec<InlayHint> {
    let Some(plugin) = snapshot.analysis.plugin.as_ref() else {
        return Vec::new();
    };
    let wanted = convert::span(snapshot.source, range);
    let mut hints = Vec::new();
    for (index, contributor) in plugin.contributors.iter().enumerate() {
        let at = contributor.budget.span.end;
        if at < wanted.start || at > wanted.end {
            continue;
        }
        let Some((tokens, complete)) = snapshot.checked.measured(index, &snapshot.config) else {
            continue;
        };
        let budget = contributor.budget.value;
        hints.push(InlayHint {
            position: convert::position(snapshot.source, at),
            label: InlayHintLabel::String(label(tokens, budget, complete)),
            kind: Some(InlayHintKind::TYPE),
            text_edits: None,
            tooltip: Some(InlayHintTooltip::String(format!(
                "measured with {}, as `contrib check` measures it",
                snapshot.config.tokenizer
            ))),
            padding_left: Some(true),
            padding_right: None,
            data: None,
        });
    }
    hints
}

/// `87/120 tokens (72%)`, `150/120 tokens, over budget`, or for what is
/// known only in part, `≥ 12/50 tokens before run time`.
pub fn label(tokens: u64, budget: u64, complete: bool) -> String {
    if !complete {
        return format!("≥ {tokens}/{budget} tokens before run time");
    }
    if tokens > budget {
        return format!("{tokens}/{budget} tokens, over budget");
    }
    let percent = (tokens * 100).checked_div(budget).unwrap_or(0);
    format!("{tokens}/{budget} tokens ({percent}%)")
}

#[cfg(test)]
mod tests {
    use super::label;

    #[test]
    fn labels_read_like_the_report() {
        assert_eq!(label(87, 120, true), "87/120 tokens (72%)");
        assert_eq!(label(150, 120, true), "150/120 tokens, over budget");
        assert_eq!(label(12, 50, false), "≥ 12/50 tokens before run time");
    }
}

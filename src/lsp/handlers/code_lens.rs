//! `textDocument/codeLens`: above the plugin's header, what it adds at each
//! placement: the budgets a person approves and, where it is known before
//! run time, what is measured. The plugin's hover says the same.
//!
//! `agent: 2160 budgeted, 1342 measured · conversation: 1550 budgeted, ≥ 9 measured`
//!
//! A lens carries no command to run: it is a line to read (clients show a
//! lens whose command is empty as plain text).

use std::fmt::Write as _;

use lsp_types::{CodeLens, CodeLensParams, Command};

use crate::ir::Placement;
use crate::lsp::convert;
use crate::lsp::state::Snapshot;
use crate::lsp::world::World;
use crate::source::Span;

/// One placement's totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Total {
    pub budgeted: u64,
    pub measured: u64,
    /// Whether every measure in it is the whole of what its contributor
    /// adds; when not, `measured` is a lower bound.
    pub complete: bool,
    pub contributors: usize,
}

/// The route's handler: the lenses of the open manifest.
pub fn request(world: &mut World, params: CodeLensParams) -> Option<Vec<CodeLens>> {
    let snapshot = world.state.snapshot(&params.text_document.uri)?;
    Some(code_lenses(&snapshot))
}

pub fn code_lenses(snapshot: &Snapshot<'_>) -> Vec<CodeLens> {
    let Some(plugin) = snapshot.analysis.plugin.as_ref() else {
        return Vec::new();
    };
    let line = totals_line(snapshot);
    if line.is_empty() {
        return Vec::new();
    }
    let at = plugin.name.span.start;
    vec![CodeLens {
        range: convert::range(snapshot.source, Span::new(at, at)),
        command: Some(Command {
            title: line,
            command: String::new(),
            arguments: None,
        }),
        data: None,
    }]
}

/// What the plugin adds at each placement, widest first; placements it
/// adds nothing at are left out.
pub fn totals(snapshot: &Snapshot<'_>) -> Vec<(Placement, Total)> {
    let Some(plugin) = snapshot.analysis.plugin.as_ref() else {
        return Vec::new();
    };
    let mut totals: Vec<(Placement, Total)> = Placement::ALL
        .iter()
        .map(|&placement| {
            (
                placement,
                Total {
                    complete: true,
                    ..Total::default()
                },
            )
        })
        .collect();
    for (index, contributor) in plugin.contributors.iter().enumerate() {
        let Some((_, total)) = totals
            .iter_mut()
            .find(|(placement, _)| *placement == contributor.placement.value)
        else {
            continue;
        };
        total.budgeted += contributor.budget.value;
        total.contributors += 1;
        if let Some((tokens, complete)) = snapshot.checked.measured(index, &snapshot.config) {
            total.measured += tokens;
            total.complete &= complete;
        }
    }
    totals.retain(|(_, total)| total.contributors > 0);
    totals
}

/// `agent: 2160 budgeted, 1342 measured · message: 100 budgeted, ≥ 0 measured`.
pub fn totals_line(snapshot: &Snapshot<'_>) -> String {
    let mut line = String::new();
    for (placement, total) in totals(snapshot) {
        if !line.is_empty() {
            line.push_str(" · ");
        }
        let bound = if total.complete { "" } else { "≥ " };
        let _ = write!(
            line,
            "{placement}: {} budgeted, {bound}{} measured",
            total.budgeted, total.measured
        );
    }
    line
}

//! The language's own rules on the imported meaning of a source, located
//! in the source: `contrib check DIR` on a folder of native plugins runs
//! placement, budgets, eager runs, egress and override attempts on what
//! `contrib import` makes of it, and points at the file and line the
//! contributor came from, never at a manifest that was never written.

use super::problem::{first_line, frontmatter_key, json_span};
use super::{InputFile, Manifest, SourceTree};
use crate::config::Config;
use crate::diagnostic::{Diagnostic, Label};
use crate::ir::{Contributor, Plugin};
use crate::source::{SourceFile, Span};

/// The rules about what a contributor means rather than how a manifest is
/// written: they apply to an imported source as to a manifest.
const MEANING_RULES: &[&str] = &[
    "placement-too-wide",
    "over-budget",
    "system-prompt-over-budget",
    "eager-run-writes",
    "eager-run-gated",
    "egress-not-allowed",
    "override-attempt",
];

/// The diagnostics of those rules on each imported manifest, each moved to
/// the source file its contributor came from: `(file, diagnostic)`.
pub(super) fn diagnostics(
    tree: &SourceTree,
    manifests: &[Manifest],
    config: &Config,
) -> Vec<(String, Diagnostic)> {
    let mut found = Vec::new();
    for manifest in manifests {
        let source = SourceFile::new(manifest.path.clone(), manifest.text.clone());
        let analysis = crate::analyze(&source, config);
        let Some(plugin) = &analysis.plugin else {
            continue;
        };
        for diagnostic in &analysis.diagnostics {
            if !MEANING_RULES.contains(&diagnostic.rule.name) {
                continue;
            }
            if let Some(located) = locate(diagnostic, plugin, manifest, tree) {
                found.push(located);
            }
        }
    }
    found
}

/// The diagnostic moved into its contributor's source file: the words it
/// underlines when the body is the file's own text, else the frontmatter
/// line or JSON key the contributor was made from, else the file's first
/// line. Secondary labels point into the manifest, and are dropped.
fn locate(
    diagnostic: &Diagnostic,
    plugin: &Plugin,
    manifest: &Manifest,
    tree: &SourceTree,
) -> Option<(String, Diagnostic)> {
    let at = diagnostic.span();
    let contributor = plugin.contributors.iter().find(|contributor| {
        contributor.span.start <= at.start && at.start < contributor.span.end
    })?;
    let produced = manifest
        .contributors
        .iter()
        .find(|produced| produced.id == contributor.id.value)?;
    let file = tree
        .files
        .iter()
        .find(|file| file.path == produced.source)?;
    let span = in_body(contributor, at, produced, file).unwrap_or_else(|| anchor(file));
    let label = diagnostic
        .labels
        .iter()
        .find(|label| label.primary)
        .map_or_else(String::new, |label| label.message.clone());
    let mut moved = diagnostic.clone();
    moved.labels = vec![Label {
        span,
        message: label,
        primary: true,
    }];
    moved.fixes.clear();
    Some((file.path.clone(), moved))
}

/// Where in the file the underlined words of a body are, when the body is
/// the file's own text.
fn in_body(
    contributor: &Contributor,
    at: Span,
    produced: &super::Produced,
    file: &InputFile,
) -> Option<Span> {
    let template = contributor.template()?;
    if !produced.verbatim || at.start < template.span.start || at.end > template.span.end {
        return None;
    }
    let body = produced.body.as_deref()?;
    let decoded = |offset: usize| {
        (0..=template.text.len())
            .filter(|i| template.text.is_char_boundary(*i))
            .find(|i| template.map.source_offset(*i) >= offset)
    };
    let start = decoded(at.start)?;
    let end = decoded(at.end).unwrap_or(template.text.len()).max(start);
    // The decoded text is the body as written, braces doubled back.
    if template.text.len() != body.len() {
        return None;
    }
    let base = file.text.find(body)?;
    Some(Span::new(base + start, base + end))
}

/// The line a contributor made from `file` is best pointed at.
fn anchor(file: &InputFile) -> Span {
    if file.path.ends_with(".json") {
        for event in ["SessionStart", "sessionStart"] {
            let span = json_span(&file.text, &["hooks", event]);
            if span != Span::point(0) {
                return span;
            }
        }
        return first_line(&file.text);
    }
    let description = frontmatter_key(&file.text, "description");
    if description != first_line(&file.text) {
        return description;
    }
    first_line(&file.text)
}

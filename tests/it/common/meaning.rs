//! Helpers shared by the integration tests: what a manifest means, spans
//! aside, and which comments it holds.
// Each test binary uses a different part of this module.
use std::path::{Path, PathBuf};

use contrib::{lower, syntax};

/// What lowering makes of a manifest, with every span removed: the plugin's
/// IR as its `Debug` text, and each diagnostic's code and message, sorted.
///
/// `Debug` covers every field of the IR, including ones added later, so
/// this comparison cannot silently skip one. Spans are replaced by `Span`,
/// keeping whether an optional span (a written setting) was there.
#[derive(Debug, PartialEq, Eq)]
pub struct Meaning {
    pub plugin: String,
    pub diagnostics: Vec<(&'static str, String)>,
}

/// The meaning of `text`, or `None` when it does not parse.
pub fn meaning(text: &str) -> Option<Meaning> {
    let tree = syntax::parse(text).ok()?;
    let lowered = lower::lower(&tree);
    let mut diagnostics: Vec<(&'static str, String)> = lowered
        .diagnostics
        .iter()
        .map(|diagnostic| (diagnostic.rule.code, diagnostic.message.clone()))
        .collect();
    diagnostics.sort();
    Some(Meaning {
        plugin: strip_spans(&format!("{:?}", lowered.plugin)),
        diagnostics,
    })
}

/// Replaces every `Span { start: N, end: M }` in a `Debug` text by `Span`,
/// and every template's map back to source offsets by `OffsetMap`: both
/// say where text was written, not what it means.
pub fn strip_spans(debug: &str) -> String {
    let spans = strip(debug, "Span { start: ", "Span");
    strip(&spans, "OffsetMap { runs: ", "OffsetMap")
}

/// Replaces each `open … }` (up to the first `}`) by `with`.
fn strip(debug: &str, open: &str, with: &str) -> String {
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug;
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        out.push_str(with);
        let after = &rest[at + open.len()..];
        let close = after.find('}').map_or(after.len(), |i| i + 1);
        rest = &after[close..];
    }
    out.push_str(rest);
    out
}

/// The texts of a manifest's comments, trailing white space trimmed, in
/// source order.
pub fn comments(text: &str) -> Vec<String> {
    let Ok(tree) = syntax::parse(text) else {
        return Vec::new();
    };
    let mut comments = tree.comments.clone();
    comments.sort_by_key(|comment| comment.span.start);
    comments
        .iter()
        .map(|comment| comment.text.trim_end_matches([' ', '\t']).to_string())
        .collect()
}

/// Every `.contrib` file under `examples/` but the deliberately broken
/// ones (`examples/broken/`), in name order.
pub fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut found = Vec::new();
    collect(&root, &mut found);
    found.retain(|path| !path.starts_with(root.join("broken")));
    found.sort();
    found
}

/// The editor grammar's test manifests: more real-world layouts (comments
/// after `{`, calls over several lines, `"""` blocks) for the properties.
pub fn editor_samples() -> Vec<PathBuf> {
    let mut found = Vec::new();
    collect(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode/test"),
        &mut found,
    );
    found.sort();
    found
}

fn collect(folder: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, found);
        } else if path
            .extension()
            .is_some_and(|extension| extension == "contrib")
        {
            found.push(path);
        }
    }
}

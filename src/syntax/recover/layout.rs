//! Step 1 of recovery: the layout of a file (the plugin's header, each
//! contributor's line, the plugin's close) read from lines and indentation
//! rather than braces, so one unclosed block cannot hide the rest. Apart
//! from the chunk reading, which trusts it.

use crate::ir::Kind;

use super::line_start;

/// Where the chunks of a file start, read from its layout.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Layout {
    /// The start of the plugin's header line.
    pub(super) plugin: usize,
    /// Just after the `{` of the plugin's header.
    pub(super) open: usize,
    /// Where each contributor starts (its kind's keyword), ascending.
    pub(super) contributors: Vec<usize>,
    /// The plugin's closing `}`.
    pub(super) close: Option<usize>,
}

impl Layout {
    pub(super) fn of(text: &str) -> Option<Layout> {
        let mut plugin: Option<(usize, usize)> = None;
        let mut candidates: Vec<(usize, usize)> = Vec::new();
        let mut closes: Vec<usize> = Vec::new();
        for (start, end) in lines(text) {
            let line = &text[start..end];
            let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
            let rest = &line[indent..];
            let Some((plugin_start, plugin_indent)) = plugin else {
                if is_header(rest, |word| word == "plugin") {
                    plugin = Some((start, indent));
                }
                continue;
            };
            let _ = plugin_start;
            if rest.starts_with('}') && indent <= plugin_indent {
                closes.push(start + indent);
            }
            // A header may follow the brackets a slip left before it on
            // its line: `}    text b {`, `{text b {`.
            let after_braces = rest.trim_start_matches(['{', '}', '[', ']', ',', ' ', '\t']);
            if is_header(after_braces, |word| Kind::parse(word).is_some()) {
                candidates.push((end - after_braces.len(), indent));
            }
        }
        let (plugin, _) = plugin?;
        let open = plugin + text[plugin..].find('{')? + 1;
        // Contributors sit at one indentation; a header a whole step deeper
        // than most is text in a body or a block nested by mistake, not a
        // boundary.
        let usual = mode(candidates.iter().map(|&(_, indent)| indent));
        let deepest = usual.map_or(0, |usual| if usual == 0 { 1 } else { 2 * usual - 1 });
        let contributors: Vec<usize> = candidates
            .into_iter()
            .filter(|&(_, indent)| indent <= deepest)
            .map(|(at, _)| at)
            .collect();
        let last = contributors.last().copied().unwrap_or(plugin);
        let close = closes.into_iter().rev().find(|&at| at > last);
        let contributors = contributors
            .into_iter()
            .filter(|&at| close.is_none_or(|close| at < close))
            .map(|at| comments_above(text, at))
            .collect();
        Some(Layout {
            plugin,
            open,
            contributors,
            close,
        })
    }
}

/// Where a contributor starting at `at` really starts: at the comment
/// lines right above its header, which speak of it (a suppression there
/// governs it), when the header starts its line.
fn comments_above(text: &str, at: usize) -> usize {
    let mut start = line_start(text, at);
    if !text[start..at].trim().is_empty() {
        return at;
    }
    while start > 0 {
        let above = line_start(text, start - 1);
        if !text[above..start].trim_start().starts_with('#') {
            break;
        }
        start = above;
    }
    start
}

/// Whether `rest` (a line without its indentation) opens a block whose
/// keyword passes `keyword`: `keyword word… {`, the `{` before any comment.
fn is_header(rest: &str, keyword: impl Fn(&str) -> bool) -> bool {
    let word_end = rest.find([' ', '\t']).unwrap_or(rest.len());
    if word_end == rest.len() || !keyword(&rest[..word_end]) {
        return false;
    }
    let code = rest.split('#').next().unwrap_or("");
    code.contains('{')
}

/// The most common value, the largest of those tied (a header just typed
/// at the margin must not hide the one contributor already there).
fn mode(values: impl Iterator<Item = usize>) -> Option<usize> {
    let mut counts: std::collections::BTreeMap<usize, usize> = std::collections::BTreeMap::new();
    for value in values {
        *counts.entry(value).or_default() += 1;
    }
    let most = counts.values().copied().max()?;
    counts
        .into_iter()
        .rev()
        .find(|&(_, count)| count == most)
        .map(|(value, _)| value)
}

/// The lines of `text` as `(start, end)` without their line breaks;
/// `\n`, `\r\n` and a lone `\r` each end one.
pub(super) fn lines(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                out.push((start, i));
                i += 1;
                start = i;
            }
            b'\r' => {
                out.push((start, i));
                i += if bytes.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < bytes.len() {
        out.push((start, bytes.len()));
    }
    out
}

//! Reading a manifest while a person types it: one broken construct costs
//! that construct, not the file.
//!
//! pest stops at the first error, and the grammar's loose recovery (a
//! string without its closing quote, a block without its `}`) still lets
//! one slip swallow everything after it: an unclosed `text a {` makes every
//! later contributor a child of `a`, an unterminated `"""` runs to the end
//! of the file. So when the whole file does not read cleanly, it is read
//! again in pieces, re-synchronised at block boundaries found from the
//! layout rather than from the braces:
//!
//! 1. **Layout.** The plugin's header line, the line of each contributor
//!    (`kind id… {` at the contributors' usual indentation, possibly after
//!    the `}` that closes the one before), and the plugin's closing `}` (the
//!    last line starting with `}` no deeper than the plugin) cut the file
//!    into chunks: before the plugin, the plugin's own fields, one chunk per
//!    contributor, after the plugin.
//! 2. **Chunks.** Each chunk is parsed on its own with the same grammar, so
//!    an untouched contributor reads exactly as it would in the whole file.
//!    An unclosed block ends with its chunk; so does an unterminated `"""`.
//! 3. **Regions.** In a chunk that does not parse, the broken region is
//!    found by reading ever shorter prefixes until one parses (the error's
//!    own offset first, then the starts of the lines before it): the region
//!    runs from there to the end of the error's line. It is blanked out
//!    (same offsets, line breaks kept) and the chunk read again, until it
//!    parses. The first error of the chunk is reported, once, where the
//!    parser stopped; the block that holds it is marked
//!    [`damaged`](super::tree::Block::damaged), so that lowering does not
//!    report what the region took from it as missing.
//!
//! A file that reads cleanly never gets here, and its tree is the same as
//! before; so is the tree of every chunk that parses.

use super::build::{self, Piece};
use super::tree::{Block, Comment, File, Item};
use super::{errors, parser};
use crate::diagnostic::Diagnostic;
use crate::ir::Kind;
use crate::source::Span;

/// At most this many regions are blanked in one chunk; past it the rest of
/// the chunk is given up.
const MAX_REGIONS: usize = 16;

/// What the recovering parser read.
pub struct Parsed<'a> {
    /// The tree, or `None` when nothing could be read: the file nests too
    /// deeply, or it does not parse and has no plugin block to
    /// re-synchronise in.
    pub file: Option<File<'a>>,
    /// One syntax error per broken construct.
    pub errors: Vec<Diagnostic>,
}

/// Reads the file in chunks (see the module's documentation); `None` when
/// it has no plugin block whose layout could guide the reading.
pub(super) fn in_chunks(text: &str) -> Option<Parsed<'_>> {
    let layout = Layout::of(text)?;
    let mut errors = Vec::new();
    let mut comments: Vec<Comment<'_>> = Vec::new();
    let end_of_plugin = layout.close.unwrap_or(text.len());

    let prelude = read(text, Chunk::outside(0, layout.plugin), &mut errors);
    comments.extend(prelude.comments);
    let mut items = prelude.items;
    let bom = prelude.bom;

    let first = layout
        .contributors
        .first()
        .copied()
        .unwrap_or(end_of_plugin);
    // The header line up to its `{`, which reads as a block open to the
    // end of its chunk; then the plugin's own fields, read on their own so
    // that a stray `}` among them closes nothing instead of the plugin.
    let header = read(
        text,
        Chunk::outside(layout.plugin, layout.open),
        &mut errors,
    );
    comments.extend(header.comments);
    let mut header_items = header.items.into_iter();
    let Some(Item::Block(mut plugin)) = header_items.next() else {
        return None;
    };
    plugin.damaged = false;
    let mut tail: Vec<Item<'_>> = header_items.collect();
    // Each chunk ends where its last line with anything on it does, so that
    // what runs to the end of a chunk (an unterminated `"""`) is reported
    // there, not at the next contributor.
    let fields = Chunk {
        start: layout.open,
        end: chunk_end(text, layout.open, first),
        cut: Cut::AtError,
        in_plugin: true,
    };
    let fields = read(text, fields, &mut errors);
    comments.extend(fields.comments);
    plugin.items.extend(fields.items);

    let mut starts = layout.contributors.clone();
    starts.push(end_of_plugin);
    // Two broken chunks in a row are most likely one construct a false
    // boundary cut in two (a header typed inside a list): read as one, they
    // make one error. Only two: a chunk read as a pair is not joined again,
    // so that a run of contributors each with an error of its own is read
    // once each (joining every one to the next would re-read the whole run
    // at each, quadratic in its length) and reported once each.
    let mut read_so_far: Vec<(Chunk, Piece<'_>, Option<usize>, bool)> = Vec::new();
    for pair in starts.windows(2) {
        let mut chunk = Chunk {
            start: pair[0],
            end: chunk_end(text, pair[0], pair[1]),
            cut: Cut::AtItem,
            in_plugin: true,
        };
        let mut errors_before = errors.len();
        let mut joined = false;
        if let Some((last, _, Some(last_errors), false)) = read_so_far.last() {
            if broken(text, chunk) {
                chunk.start = last.start;
                errors.truncate(*last_errors);
                errors_before = *last_errors;
                read_so_far.pop();
                joined = true;
            }
        }
        let piece = read(text, chunk, &mut errors);
        let broke = (errors.len() > errors_before).then_some(errors_before);
        read_so_far.push((chunk, piece, broke, joined));
    }
    for (_, mut piece, _, _) in read_so_far {
        close_at_chunk_end(text, &mut piece, &mut errors);
        comments.extend(piece.comments);
        plugin.items.extend(piece.items);
    }
    plugin.close = layout.close.map(|at| Span::new(at, at + 1));
    plugin.span = Span::new(plugin.span.start, content_end(text, end_of_plugin));
    if let Some(close) = plugin.close {
        plugin.span.end = close.end;
    }
    items.push(Item::Block(plugin));
    items.append(&mut tail);
    if let Some(close) = layout.close {
        let postlude = read(text, Chunk::outside(close + 1, text.len()), &mut errors);
        comments.extend(postlude.comments);
        items.extend(postlude.items);
    }
    comments.sort_by_key(|comment| comment.span.start);
    Some(Parsed {
        file: Some(File {
            source: text,
            items,
            comments,
            bom,
            ends_inside_string: false,
        }),
        errors,
    })
}

/// A contributor that runs to the end of its chunk for want of its `}`:
/// the next contributor's header is where it ends. It is reported once, at
/// the `{` the layout says is unclosed, and counts as damaged, so that the
/// fields not written yet are not reported missing while it is typed.
fn close_at_chunk_end(text: &str, piece: &mut Piece<'_>, errors: &mut Vec<Diagnostic>) {
    for block in piece.items.iter_mut().filter_map(block_mut) {
        if block.close.is_some() || block.damaged {
            continue;
        }
        block.damaged = true;
        block.span.end = content_end(text, block.span.end).max(block.open.end);
        errors.push(super::unclosed(innermost_unclosed(text, block)));
    }
}

/// The block whose `{` the layout says is unclosed: the deepest block
/// inside `block` whose `}` stands on a line less indented than the block's
/// own line (that `}` was written for a block around it), else `block`.
fn innermost_unclosed<'b, 'a>(text: &str, block: &'b Block<'a>) -> &'b Block<'a> {
    for item in block.items.iter().rev() {
        let Item::Block(inner) = item else { continue };
        let found = innermost_unclosed(text, inner);
        if !std::ptr::eq(found, inner) {
            return found;
        }
        if let Some(close) = inner.close {
            if indent_at(text, close.start) < indent_at(text, inner.keyword.span.start)
                && text[line_start(text, close.start)..close.start]
                    .trim()
                    .is_empty()
            {
                return inner;
            }
        }
    }
    block
}

/// The indentation of the line holding `at`.
fn indent_at(text: &str, at: usize) -> usize {
    let start = line_start(text, at);
    let line = &text[start..line_end(text, start)];
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// The end of the chunk `start..next`: after its last character that is not
/// white space.
fn chunk_end(text: &str, start: usize, next: usize) -> usize {
    content_end(text, next).max(start)
}

/// Whether a tree read in one go has the shape its author meant: no block
/// runs to the end of the file for want of its `}`, and no `"""` does.
pub(super) fn is_sound(file: &File<'_>) -> bool {
    fn closed(items: &[Item<'_>]) -> bool {
        items.iter().all(|item| match item {
            Item::Block(block) => block.close.is_some() && closed(&block.items),
            _ => true,
        })
    }
    !file.ends_inside_string && closed(&file.items)
}

/// Where a broken region starts on the error's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// At the start of the item the error is in: the item is left out
    /// whole, so that what remains of it is not reported as well. For
    /// contributors, which are damaged anyway.
    AtItem,
    /// At the error: what came before it in its item is kept. For the
    /// plugin's own fields, which everything depends on: `owner operator ]`
    /// keeps its owner.
    AtError,
}

/// A piece of the file read on its own.
#[derive(Debug, Clone, Copy)]
struct Chunk {
    start: usize,
    end: usize,
    cut: Cut,
    /// Whether it lies inside the plugin's braces, so that its own end
    /// stands for the plugin's `}` in what an error says was expected.
    in_plugin: bool,
}

impl Chunk {
    fn outside(start: usize, end: usize) -> Chunk {
        Chunk {
            start,
            end,
            cut: Cut::AtItem,
            in_plugin: false,
        }
    }
}

/// Whether a chunk does not parse.
fn broken(text: &str, chunk: Chunk) -> bool {
    parser::parse_file(&text[chunk.start..chunk.end]).is_err()
}

/// Reads a chunk of `text`, recovering from its syntax errors; the first
/// is added to `errors`.
fn read<'a>(text: &'a str, chunk: Chunk, errors: &mut Vec<Diagnostic>) -> Piece<'a> {
    let Chunk {
        start,
        end,
        cut,
        in_plugin,
    } = chunk;
    let chunk = &text[start..end];
    let first = match parser::parse_file(chunk) {
        Ok(pairs) => {
            let mut piece = build::piece(text, start, pairs);
            if piece.ends_inside_string {
                // Lowering reports the string; the braces it swallowed are
                // not missing. The block it is in is the one left open.
                for block in piece.items.iter_mut().filter_map(block_mut) {
                    block.damaged |= block.close.is_none();
                }
            }
            return piece;
        }
        Err(error) => error,
    };
    errors.push(errors::from_pest_at(text, start, &first, in_plugin));
    let mut blanked = chunk.to_string();
    let mut error_at = offset_of(&first);
    let mut first_region = None;
    for _ in 0..MAX_REGIONS {
        let region = region(&blanked, error_at, cut);
        first_region.get_or_insert(region.start);
        blank(&mut blanked, region);
        match parser::parse_file(&blanked) {
            Ok(pairs) => {
                let mut piece = build::piece(text, start, pairs);
                mark_damaged(&mut piece, start + region_start(first_region));
                return piece;
            }
            Err(error) => error_at = offset_of(&error),
        }
    }
    // Give up on the rest of the chunk.
    let from = region_start(first_region);
    let len = blanked.len();
    blank(&mut blanked, Span::new(from, len));
    match parser::parse_file(&blanked) {
        Ok(pairs) => {
            let mut piece = build::piece(text, start, pairs);
            mark_damaged(&mut piece, start + from);
            piece
        }
        Err(_) => Piece {
            items: Vec::new(),
            comments: Vec::new(),
            bom: None,
            ends_inside_string: false,
        },
    }
}

fn region_start(first: Option<usize>) -> usize {
    first.unwrap_or(0)
}

fn block_mut<'i, 'a>(item: &'i mut Item<'a>) -> Option<&'i mut Block<'a>> {
    match item {
        Item::Block(block) => Some(block),
        _ => None,
    }
}

/// Marks the top-level block of the piece that holds `at`, if any: the
/// contributor the broken region was in.
fn mark_damaged(piece: &mut Piece<'_>, at: usize) {
    let holder = piece
        .items
        .iter_mut()
        .filter_map(block_mut)
        .find(|block| block.span.start <= at && (block.close.is_none() || at < block.span.end));
    if let Some(block) = holder {
        block.damaged = true;
    }
}

fn offset_of(error: &pest::error::Error<parser::Rule>) -> usize {
    match error.location {
        pest::error::InputLocation::Pos(at) => at,
        pest::error::InputLocation::Span((at, _)) => at,
    }
}

/// The broken region around the error at `error_at`: from the end of the
/// longest prefix that parses, no later than where `at` says, to the end
/// of the error's line.
fn region(text: &str, error_at: usize, at: Cut) -> Span {
    let error_at = crate::source::floor_char_boundary(text, error_at.min(text.len()));
    let mut cut = match at {
        Cut::AtItem => item_start(text, error_at),
        Cut::AtError => error_at,
    };
    loop {
        cut = parsing_prefix(text, cut);
        // A block opened inside the contributor and left open at the cut
        // (`call t { url: …`) is part of what broke: it goes whole.
        match nested_open(text, cut) {
            Some(start) if start < cut => cut = start,
            _ => break,
        }
    }
    let mut end = line_end(text, error_at);
    if end <= cut {
        end = line_end(text, (end + 1).min(text.len()));
    }
    Span::new(cut, end.max(cut))
}

/// The end of the longest prefix of `text[..cut]` that parses, trying
/// `cut` itself first, then the starts of the lines before it.
fn parsing_prefix(text: &str, mut cut: usize) -> usize {
    while cut > 0 {
        let Err(error) = parser::parse_file(&text[..cut]) else {
            break;
        };
        let at = offset_of(&error);
        let content = content_end(text, cut);
        let next = if at >= content {
            // Stopped at the end: the construct began on the last line
            // that has anything on it.
            line_start(text, content.saturating_sub(1))
        } else {
            line_start(text, at)
        };
        cut = if next < cut {
            next
        } else {
            line_start(text, cut.saturating_sub(1))
        };
    }
    cut
}

/// Where the item starts that opened a block inside a top-level block of
/// `text[..cut]` and left it open there.
fn nested_open(text: &str, cut: usize) -> Option<usize> {
    let pairs = parser::parse_file(&text[..cut]).ok()?;
    let piece = build::piece(text, 0, pairs);
    fn open<'i, 'a>(item: Option<&'i Item<'a>>) -> Option<&'i Block<'a>> {
        match item {
            Some(Item::Block(block)) if block.close.is_none() => Some(block),
            _ => None,
        }
    }
    let top = open(piece.items.last())?;
    let inner = open(top.items.last())?;
    Some(item_start(text, inner.keyword.span.start))
}

/// Where the item holding `at` starts: after the last `,` or `{` before it
/// on its line, outside strings, or at the line's start.
fn item_start(text: &str, at: usize) -> usize {
    let line = line_start(text, at);
    let bytes = text.as_bytes();
    let mut start = line;
    let mut in_string = false;
    let mut i = line;
    while i < at {
        match bytes[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => i += 1,
            b',' | b'{' if !in_string => start = i + 1,
            _ => {}
        }
        i += 1;
    }
    start.min(at)
}

/// `text` with `region` replaced by spaces, its line breaks kept, so that
/// every offset stays where it was.
fn blank(text: &mut String, region: Span) {
    let region = Span::new(region.start.min(text.len()), region.end.min(text.len()));
    let replaced: String = text[region.range()]
        .chars()
        .map(|c| match c {
            '\n' | '\r' => c.to_string(),
            other => " ".repeat(other.len_utf8()),
        })
        .collect();
    text.replace_range(region.range(), &replaced);
}

/// The offset after the last character before `at` that is not white
/// space or a line break.
fn content_end(text: &str, at: usize) -> usize {
    text[..at].trim_end_matches([' ', '\t', '\n', '\r']).len()
}

/// The start of the line holding `at`.
fn line_start(text: &str, at: usize) -> usize {
    let at = crate::source::floor_char_boundary(text, at.min(text.len()));
    text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1)
}

/// The end of the line holding `at`, before its line break.
fn line_end(text: &str, at: usize) -> usize {
    let at = crate::source::floor_char_boundary(text, at.min(text.len()));
    text[at..].find(['\n', '\r']).map_or(text.len(), |i| at + i)
}

/// Where the chunks of a file start, read from its layout.
#[derive(Debug, PartialEq, Eq)]
struct Layout {
    /// The start of the plugin's header line.
    plugin: usize,
    /// Just after the `{` of the plugin's header.
    open: usize,
    /// Where each contributor starts (its kind's keyword), ascending.
    contributors: Vec<usize>,
    /// The plugin's closing `}`.
    close: Option<usize>,
}

impl Layout {
    fn of(text: &str) -> Option<Layout> {
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
fn lines(text: &str) -> Vec<(usize, usize)> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_finds_the_plugin_its_contributors_and_its_close() {
        let text = "# c\nplugin a/b 1.0.0 {\n    owner x\n    # note\n    text a {\n        body \"\"\"\n        text nested {\n        \"\"\"\n    }\n    }text b {\n    }\n}\n";
        let layout = Layout::of(text).unwrap();
        assert_eq!(&text[layout.plugin..layout.plugin + 6], "plugin");
        let starts: Vec<&str> = layout
            .contributors
            .iter()
            .map(|&at| &text[at..].trim_start()[..6])
            .collect();
        assert_eq!(starts, ["# note", "text b"]);
        assert_eq!(layout.close, Some(text.len() - 2));
    }

    #[test]
    fn a_region_runs_from_what_parses_to_the_end_of_the_error_line() {
        let text = "a {\n    b 1\n    call t { url: \n}\n";
        let at = text.find("}\n").unwrap();
        let region = region(text, at, Cut::AtItem);
        assert_eq!(&text[region.range()], "    call t { url: \n}");
    }

    #[test]
    fn lines_end_at_every_kind_of_line_break() {
        let text = "a\r\nb\rc\nd";
        let found: Vec<&str> = lines(text).into_iter().map(|(s, e)| &text[s..e]).collect();
        assert_eq!(found, ["a", "b", "c", "d"]);
    }
}

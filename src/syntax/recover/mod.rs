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

mod layout;
mod regions;

use layout::Layout;
use regions::read;

use super::build::Piece;
use super::parser;
use super::tree::{Block, Comment, File, Item};
use crate::diagnostic::Diagnostic;
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

/// The block an item is, if it is one.
fn block_mut<'i, 'a>(item: &'i mut Item<'a>) -> Option<&'i mut Block<'a>> {
    match item {
        Item::Block(block) => Some(block),
        _ => None,
    }
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

#[cfg(test)]
mod tests {
    use super::layout::lines;
    use super::regions::region;
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

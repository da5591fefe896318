//! Step 3 of recovery: reading one chunk, and where it does not parse,
//! finding the broken region, blanking it and reading again until it does,
//! with the block that held it marked damaged. Apart from the layout, which
//! only decides where chunks start.

use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::syntax::build::{self, Piece};
use crate::syntax::tree::{Block, Item};
use crate::syntax::{errors, parser};

use super::{block_mut, content_end, line_end, line_start, Chunk, Cut, MAX_REGIONS};

/// Reads a chunk of `text`, recovering from its syntax errors; the first
/// is added to `errors`.
pub(super) fn read<'a>(text: &'a str, chunk: Chunk, errors: &mut Vec<Diagnostic>) -> Piece<'a> {
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
pub(super) fn region(text: &str, error_at: usize, at: Cut) -> Span {
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

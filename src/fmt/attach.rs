//! Syntax tree + comments → the formatter's document: every item with the
//! comments that annotate it, in canonical order.
//!
//! The syntax tree keeps comments in one list beside the items. Here each
//! comment is given to exactly one place, by where it stands:
//!
//! - on its own line → before the next item of its block, or at the end of
//!   the block when no item follows;
//! - after an item on the same line → after that item;
//! - after a block's `{` on the same line → after the `{`;
//! - inside a field or call argument (inside a list, or between `:` and the
//!   value) → on its own line before that item.
//!
//! Walking each block once with a cursor over the sorted comments keeps
//! this linear in the size of the file.

use super::order::{self, Role};
use crate::syntax::tree::{Block, Comment, Field, File, Item, Pair};

/// A comment on a line of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Note<'a> {
    /// The comment with its `#`, trailing white space trimmed.
    pub text: &'a str,
    /// Whether the author left a blank line before it.
    pub blank_before: bool,
}

/// One item of a block with its comments.
#[derive(Debug)]
pub(super) struct Entry<'t, 'a> {
    pub leading: Vec<Note<'a>>,
    /// Whether the author left a blank line between the last leading
    /// comment and the item.
    pub blank_before_item: bool,
    pub node: Node<'t, 'a>,
    pub trailing: Option<&'a str>,
}

#[derive(Debug)]
pub(super) enum Node<'t, 'a> {
    Block(Group<'t, 'a>),
    Field(&'t Field<'a>),
    /// `key: value`, as call arguments are written.
    Pair(&'t Pair<'a>),
}

impl Node<'_, '_> {
    /// The word the item starts with.
    pub(super) fn keyword(&self) -> &str {
        match self {
            Node::Block(group) => group.block.keyword.text,
            Node::Field(field) => field.key.text,
            Node::Pair(pair) => pair.key.text,
        }
    }
}

impl order::Item for Entry<'_, '_> {
    fn keyword(&self) -> &str {
        self.node.keyword()
    }

    fn is_block(&self) -> bool {
        matches!(self.node, Node::Block(_))
    }
}

/// A block's header, contents and comments.
#[derive(Debug)]
pub(super) struct Group<'t, 'a> {
    pub block: &'t Block<'a>,
    pub role: Role,
    /// A comment after the `{` on the same line.
    pub after_open: Option<&'a str>,
    pub contents: Contents<'t, 'a>,
}

/// The items of a block or of the file, and the comments after the last.
#[derive(Debug, Default)]
pub(super) struct Contents<'t, 'a> {
    pub entries: Vec<Entry<'t, 'a>>,
    pub end: Vec<Note<'a>>,
}

impl Contents<'_, '_> {
    pub(super) fn has_comments(&self) -> bool {
        !self.end.is_empty()
            || self.entries.iter().any(|entry| {
                !entry.leading.is_empty()
                    || entry.trailing.is_some()
                    || matches!(&entry.node, Node::Block(group) if group.has_comments())
            })
    }
}

impl Group<'_, '_> {
    pub(super) fn has_comments(&self) -> bool {
        self.after_open.is_some() || self.contents.has_comments()
    }
}

/// The whole file as the formatter lays it out.
pub(super) fn document<'t, 'a>(text: &'a str, file: &'t File<'a>) -> Contents<'t, 'a> {
    let mut comments: Vec<Comment<'a>> = file.comments.clone();
    comments.sort_by_key(|comment| comment.span.start);
    let start = file.bom.map_or(0, |bom| bom.end);
    let mut region = Region::new(text, start, true);
    region.items(&file.items, &comments, Role::File);
    region.finish()
}

/// One block's contents being assembled.
struct Region<'t, 'a> {
    text: &'a str,
    /// Where the last thing placed (the `{`, an item, a comment) ends.
    last_end: usize,
    /// Whether only white space has come since the region started on a
    /// fresh line (true at the top of the file only).
    fresh_line: bool,
    after_open: Option<&'a str>,
    pending: Vec<Note<'a>>,
    contents: Contents<'t, 'a>,
}

impl<'t, 'a> Region<'t, 'a> {
    fn new(text: &'a str, start: usize, fresh_line: bool) -> Self {
        Region {
            text,
            last_end: start,
            fresh_line,
            after_open: None,
            pending: Vec::new(),
            contents: Contents::default(),
        }
    }

    /// Places `items` and the `comments` among them (sorted, all inside
    /// this region), then puts the items in canonical order for `role`.
    fn items(&mut self, items: &'t [Item<'a>], comments: &[Comment<'a>], role: Role) {
        let mut rest = comments;
        for item in items {
            let span = item.span();
            let before = rest.partition_point(|comment| comment.span.start < span.start);
            for comment in &rest[..before] {
                self.comment(*comment);
            }
            rest = &rest[before..];
            let inside = rest.partition_point(|comment| comment.span.start < span.end);
            self.item(item, &rest[..inside], role);
            rest = &rest[inside..];
        }
        for comment in rest {
            self.comment(*comment);
        }
        order::sort(&mut self.contents.entries, role);
    }

    fn item(&mut self, item: &'t Item<'a>, inside: &[Comment<'a>], parent: Role) {
        let span = item.span();
        let blank_before_item = !self.pending.is_empty() && self.blank_line_before(span.start);
        let mut leading = std::mem::take(&mut self.pending);
        let node = match item {
            Item::Block(block) => {
                Node::Block(group(self.text, block, inside, parent, &mut leading))
            }
            Item::Field(field) => Node::Field(field),
            Item::Pair(pair) => Node::Pair(pair),
        };
        if !matches!(node, Node::Block(_)) {
            // The line is printed whole, so what was inside goes above it.
            leading.extend(inside.iter().map(|comment| Note {
                text: trimmed(comment),
                blank_before: false,
            }));
        }
        self.contents.entries.push(Entry {
            leading,
            blank_before_item,
            node,
            trailing: None,
        });
        self.last_end = span.end;
        self.fresh_line = false;
    }

    fn comment(&mut self, comment: Comment<'a>) {
        let gap = self
            .text
            .get(self.last_end..comment.span.start)
            .unwrap_or("");
        let breaks = line_breaks(gap);
        let own_line = breaks > 0 || self.fresh_line;
        let text = trimmed(&comment);
        self.last_end = comment.span.end;
        self.fresh_line = false;
        if !own_line && self.pending.is_empty() {
            if let Some(entry) = self.contents.entries.last_mut() {
                if entry.trailing.is_none() {
                    entry.trailing = Some(text);
                    return;
                }
            } else if self.after_open.is_none() {
                self.after_open = Some(text);
                return;
            }
        }
        self.pending.push(Note {
            text,
            blank_before: breaks > 1,
        });
    }

    fn blank_line_before(&self, offset: usize) -> bool {
        line_breaks(self.text.get(self.last_end..offset).unwrap_or("")) > 1
    }

    /// The contents, with the comments after the last item at the end. A
    /// comment left after the `{` (only a group takes it) joins them rather
    /// than being lost.
    fn finish(mut self) -> Contents<'t, 'a> {
        if let Some(text) = self.after_open.take() {
            self.pending.insert(
                0,
                Note {
                    text,
                    blank_before: false,
                },
            );
        }
        self.contents.end = std::mem::take(&mut self.pending);
        self.contents
    }
}

/// A block item and the comments inside it.
fn group<'t, 'a>(
    text: &'a str,
    block: &'t Block<'a>,
    inside: &[Comment<'a>],
    parent: Role,
    leading: &mut Vec<Note<'a>>,
) -> Group<'t, 'a> {
    let role = order::role(parent, block.keyword.text);
    // Nothing but words stands before the `{`, so nothing should be here;
    // if something is, it is kept above the block.
    let header = inside.partition_point(|comment| comment.span.start < block.open.end);
    leading.extend(inside[..header].iter().map(|comment| Note {
        text: trimmed(comment),
        blank_before: false,
    }));
    let mut region = Region::new(text, block.open.end, false);
    region.items(&block.items, &inside[header..], role);
    let after_open = region.after_open.take();
    Group {
        block,
        role,
        after_open,
        contents: region.finish(),
    }
}

fn trimmed<'a>(comment: &Comment<'a>) -> &'a str {
    comment.text.trim_end_matches([' ', '\t'])
}

/// How many line breaks `text` holds: `\n`, `\r\n` and a lone `\r` count
/// one each, as in the grammar.
fn line_breaks(text: &str) -> usize {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax;

    #[test]
    fn line_breaks_count_crlf_and_lone_cr_once() {
        assert_eq!(line_breaks("a\r\nb\rc\nd"), 3);
        assert_eq!(line_breaks("  \t"), 0);
    }

    #[test]
    fn each_comment_finds_its_place() {
        let text = "# top\nplugin a/b 1.0.0 { # open\n    # before\n    owner x # after\n    # end\n} # close\n";
        let file = syntax::parse(text).unwrap();
        let document = document(text, &file);
        let [plugin] = document.entries.as_slice() else {
            panic!("one plugin");
        };
        assert_eq!(plugin.leading[0].text, "# top");
        assert_eq!(plugin.trailing, Some("# close"));
        let Node::Block(group) = &plugin.node else {
            panic!("a block");
        };
        assert_eq!(group.after_open, Some("# open"));
        assert_eq!(group.contents.entries[0].leading[0].text, "# before");
        assert_eq!(group.contents.entries[0].trailing, Some("# after"));
        assert_eq!(group.contents.end[0].text, "# end");
    }
}

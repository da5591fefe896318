//! Where the cursor is, in the language's terms: inside which blocks, on
//! which field, at which word, in a string or a comment.
//!
//! Hover and completion ask the same questions, and must answer them while
//! the author is typing, when the text is often not yet a manifest. The
//! enclosing blocks come from the syntax tree the recovering parser read
//! (once per version, see `version`): a broken construct is left out of it
//! and the rest is whole. The cursor's own line is read by a small
//! tokenizer of its own, which needs no tree at all, so a block opened on
//! a line the parser could not read is still seen.

use crate::limits::MAX_FILE_BYTES;
use crate::source::Span;
use crate::syntax::tree::{Block, File, Item, Token};

/// A block around the cursor: `keyword args… {`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub keyword: String,
    pub args: Vec<String>,
    /// Where its `{` is.
    pub open: usize,
    /// The whole block.
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    Word,
    /// A string literal, quotes included.
    Str,
    /// `{`, `}`, `[`, `]`, `,`, `:` or a comparison.
    Punct,
    /// A comment to the end of the line, `#` included.
    Comment,
}

/// A token of the cursor's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineToken {
    pub kind: TokenKind,
    pub span: Span,
}

/// The cursor inside a string literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InString {
    /// The field the string is the value of, when it is one.
    pub key: Option<String>,
    /// The string's text between its opening quotes and the cursor.
    pub before: Span,
}

#[derive(Debug)]
pub struct Cursor<'t> {
    pub text: &'t str,
    pub offset: usize,
    /// The blocks around the cursor, outermost first.
    pub blocks: Vec<Head>,
    /// The keys of the other items of the innermost block, in order.
    pub siblings: Vec<String>,
    /// The tokens of the item the cursor is in or at the end of, on its
    /// line: `placement agent`, `call fetch_url`, `url: "…"`.
    pub item: Vec<LineToken>,
    pub string: Option<InString>,
    /// The comment the cursor is in.
    pub comment: Option<Span>,
}

impl<'t> Cursor<'t> {
    /// The cursor at `offset` in `text`, whose tree (when it could be read)
    /// is `tree`.
    pub fn new(text: &'t str, tree: Option<&File<'_>>, offset: usize) -> Self {
        let offset = crate::source::floor_char_boundary(text, offset);
        let (line_start, line_end) = line_bounds(text, offset);
        let mut cursor = Cursor {
            text,
            offset,
            blocks: Vec::new(),
            siblings: Vec::new(),
            item: Vec::new(),
            string: None,
            comment: None,
        };
        if text.len() > MAX_FILE_BYTES {
            // Not read, as `contrib check` would not read it.
            return cursor;
        }
        if let Some(tree) = tree {
            cursor.read_tree(tree);
        }
        if cursor.string.is_none() {
            cursor.read_line(line_start, line_end);
        }
        cursor
    }

    /// The text of a span.
    pub fn slice(&self, span: Span) -> &'t str {
        self.text.get(span.range()).unwrap_or("")
    }

    /// The innermost block's keyword, or `None` at the top level.
    pub fn block(&self) -> Option<&Head> {
        self.blocks.last()
    }

    /// The word the cursor is on or at the end of.
    pub fn word(&self) -> Option<(usize, Span)> {
        self.item.iter().enumerate().find_map(|(index, token)| {
            (token.kind == TokenKind::Word
                && token.span.start <= self.offset
                && self.offset <= token.span.end)
                .then_some((index, token.span))
        })
    }

    /// The words of the item before the cursor's word (or before the
    /// cursor, when it is on no word), as written.
    pub fn words_before(&self) -> Vec<&'t str> {
        let end = self.word().map_or(self.offset, |(_, span)| span.start);
        self.item
            .iter()
            .filter(|token| token.kind == TokenKind::Word && token.span.end <= end)
            .map(|token| self.slice(token.span))
            .collect()
    }

    /// The item's words, as written.
    pub fn words(&self) -> Vec<&'t str> {
        self.item
            .iter()
            .filter(|token| token.kind == TokenKind::Word)
            .map(|token| self.slice(token.span))
            .collect()
    }

    /// The span completion replaces: the word at the cursor, or nothing.
    pub fn replace_span(&self) -> Span {
        self.word()
            .map_or(Span::point(self.offset), |(_, span)| span)
    }

    fn read_tree(&mut self, tree: &File<'_>) {
        let mut items = &tree.items;
        while let Some(block) = items.iter().find_map(|item| match item {
            Item::Block(block) if inside(block, self.offset) => Some(block),
            _ => None,
        }) {
            self.blocks.push(Head {
                keyword: block.keyword.text.to_string(),
                args: block
                    .args
                    .iter()
                    .map(|word| word.text.to_string())
                    .collect(),
                open: block.open.start,
                span: block.span,
            });
            items = &block.items;
        }
        let line = line_bounds(self.text, self.offset);
        for item in items {
            // The cursor's own line is read by `read_line`.
            let on_cursor_line = item.span().start >= line.0 && item.span().start <= line.1;
            if !on_cursor_line {
                self.siblings.push(item.keyword().text.to_string());
            }
        }
        self.string = items.iter().find_map(|item| string_at(item, self.offset));
    }

    fn read_line(&mut self, start: usize, end: usize) {
        let tokens = tokenize(self.text, start, end);
        if let Some(comment) = tokens.iter().find(|token| token.kind == TokenKind::Comment) {
            if comment.span.start < self.offset {
                self.comment = Some(comment.span);
                return;
            }
        }
        // A `{` before the cursor on this line opens a block the tree did
        // not see (the line was blanked to parse the rest).
        let mut item_start = 0;
        for (index, token) in tokens.iter().enumerate() {
            if token.span.start >= self.offset {
                break;
            }
            let punct = (token.kind == TokenKind::Punct).then(|| self.slice(token.span));
            match punct {
                Some("{") => {
                    let open = token.span.start;
                    if !self.blocks.iter().any(|head| head.open == open) {
                        let words: Vec<String> = tokens[item_start..index]
                            .iter()
                            .filter(|token| token.kind == TokenKind::Word)
                            .map(|token| self.slice(token.span).to_string())
                            .collect();
                        if let Some((keyword, args)) = words.split_first() {
                            self.blocks.push(Head {
                                keyword: keyword.clone(),
                                args: args.to_vec(),
                                open,
                                span: Span::new(tokens[item_start].span.start, end),
                            });
                        }
                    }
                    item_start = index + 1;
                }
                Some("}") => item_start = index + 1,
                Some(",") if self.block().is_some_and(|head| head.keyword == "call") => {
                    item_start = index + 1
                }
                _ => {}
            }
        }
        let item_end = tokens[item_start..]
            .iter()
            .position(|token| {
                token.span.start >= self.offset
                    && token.kind == TokenKind::Punct
                    && matches!(self.slice(token.span), "{" | "}")
            })
            .map_or(tokens.len(), |n| item_start + n);
        self.item = tokens[item_start..item_end].to_vec();
        if let Some(string) = self
            .item
            .iter()
            .find(|token| token.kind == TokenKind::Str && token.span.start < self.offset)
            .filter(|token| self.offset < token.span.end || !closed(self.slice(token.span)))
        {
            let quotes = if self.slice(string.span).starts_with("\"\"\"") {
                3
            } else {
                1
            };
            self.string = Some(InString {
                key: self
                    .item
                    .first()
                    .map(|token| self.slice(token.span).to_string()),
                before: Span::new(string.span.start + quotes, self.offset),
            });
        }
    }
}

/// Whether the cursor is between a block's braces (or, for a block whose
/// `}` never came, within the text it was read to).
fn inside(block: &Block<'_>, offset: usize) -> bool {
    let end = block.close.map_or(block.span.end, |close| close.start);
    block.open.end <= offset && offset <= end
}

/// The string token of `item` the cursor is inside, if any.
fn string_at(item: &Item<'_>, offset: usize) -> Option<InString> {
    let (key, tokens): (&str, Vec<&Token<'_>>) = match item {
        Item::Field(field) => (field.key.text, field.tokens.iter().collect()),
        Item::Pair(pair) => (pair.key.text, vec![&pair.value]),
        Item::Block(_) => return None,
    };
    tokens.into_iter().find_map(|token| match token {
        Token::Str(string)
            if string.body_span.start <= offset
                && (offset < string.span.end
                    || !string.terminated && offset <= string.span.end)
                && offset >= string.body_span.start =>
        {
            Some(InString {
                key: Some(key.to_string()),
                before: Span::new(string.body_span.start, offset),
            })
        }
        _ => None,
    })
}

/// Whether a string token's text ends with its closing quotes.
fn closed(token: &str) -> bool {
    if let Some(rest) = token.strip_prefix("\"\"\"") {
        rest.ends_with("\"\"\"")
    } else {
        token.len() >= 2 && token.ends_with('"') && !token.ends_with("\\\"")
    }
}

/// The start and end (before its line break) of the line holding `offset`.
pub fn line_bounds(text: &str, offset: usize) -> (usize, usize) {
    let start = text[..offset].rfind(['\n', '\r']).map_or(0, |at| at + 1);
    let end = text[offset..]
        .find(['\n', '\r'])
        .map_or(text.len(), |at| offset + at);
    (start, end)
}

/// The tokens of `text[start..end]`, one line, as the grammar would read
/// them: words, strings, punctuation and a trailing comment.
fn tokenize(text: &str, start: usize, end: usize) -> Vec<LineToken> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = start;
    while i < end {
        let token_start = i;
        let kind = match bytes[i] {
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            b'#' => {
                i = end;
                TokenKind::Comment
            }
            b'"' if text[i..end].starts_with("\"\"\"") => {
                i = text[i + 3..end]
                    .find("\"\"\"")
                    .map_or(end, |at| i + 3 + at + 3);
                TokenKind::Str
            }
            b'"' => {
                i += 1;
                while i < end && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(end);
                TokenKind::Str
            }
            b'>' | b'<' | b'=' => {
                i += if bytes.get(i + 1) == Some(&b'=') {
                    2
                } else {
                    1
                };
                TokenKind::Punct
            }
            b'{' | b'}' | b'[' | b']' | b',' | b':' => {
                i += 1;
                TokenKind::Punct
            }
            _ => {
                while i < end && !is_separator(bytes[i]) {
                    i += 1;
                }
                TokenKind::Word
            }
        };
        tokens.push(LineToken {
            kind,
            span: Span::new(token_start, i.min(end)),
        });
    }
    tokens
}

fn is_separator(byte: u8) -> bool {
    matches!(
        byte,
        b' ' | b'\t' | b'{' | b'}' | b'[' | b']' | b',' | b':' | b'"' | b'#' | b'>' | b'<' | b'='
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cursor at the `|` of `marked`.
    pub(crate) fn at(marked: &str) -> (String, usize) {
        let offset = marked.find('|').unwrap();
        (marked.replacen('|', "", 1), offset)
    }

    /// The cursor with the tree the server would have read.
    fn at_in(text: &str, offset: usize) -> Cursor<'_> {
        let parsed = crate::syntax::parse_recovering(text);
        Cursor::new(text, parsed.file.as_ref(), offset)
    }

    fn keywords(cursor: &Cursor<'_>) -> Vec<String> {
        cursor
            .blocks
            .iter()
            .map(|head| head.keyword.clone())
            .collect()
    }

    #[test]
    fn finds_blocks_item_and_word() {
        let (text, offset) =
            at("plugin a/b 1.0.0 {\n    text t {\n        placement ag|ent\n    }\n}\n");
        let cursor = at_in(&text, offset);
        assert_eq!(keywords(&cursor), ["plugin", "text"]);
        assert_eq!(cursor.words(), ["placement", "agent"]);
        assert_eq!(cursor.words_before(), ["placement"]);
        assert_eq!(cursor.slice(cursor.word().unwrap().1), "agent");
    }

    #[test]
    fn reads_a_line_the_parser_cannot() {
        let (text, offset) = at(
            "plugin a/b 1.0.0 {\n    eager-run r {\n        call fetch_url { url: |\n    }\n}\n",
        );
        let cursor = at_in(&text, offset);
        assert_eq!(keywords(&cursor), ["plugin", "eager-run", "call"]);
        assert_eq!(cursor.blocks[2].args, ["fetch_url"]);
        assert_eq!(cursor.words_before(), ["url"]);
    }

    #[test]
    fn knows_strings_and_comments() {
        let (text, offset) = at("plugin a/b 1.0.0 {\n    text t {\n        body \"\"\"\n            Hi {per|\n        \"\"\"\n    }\n}\n");
        let cursor = at_in(&text, offset);
        let string = cursor.string.clone().unwrap();
        assert_eq!(string.key.as_deref(), Some("body"));
        assert!(cursor.slice(string.before).ends_with("Hi {per"));

        let (text, offset) = at("plugin a/b 1.0.0 {\n    body \"Hi {per|}\"\n}\n");
        let cursor = at_in(&text, offset);
        let before = cursor.string.as_ref().unwrap().before;
        assert_eq!(cursor.slice(before), "Hi {per");

        let (text, offset) = at("# contrib: allow(budget-un|) -- x\nplugin a/b 1.0.0 {}\n");
        assert!(at_in(&text, offset).comment.is_some());
    }
}

//! pest pairs → syntax tree. The grammar guarantees the shape of every pair
//! this module reads, so a surprise here is a grammar bug, not bad input;
//! even then it degrades to a skipped node rather than a panic.
//!
//! The pairs may come from a piece of the source (a chunk the recovering
//! parser read on its own, see `recover`), or from a copy of it with a
//! broken region blanked out: every span is shifted by the piece's offset,
//! and every text is taken from the source itself, so the tree always
//! borrows the text the person wrote.

use pest::iterators::{Pair as PestPair, Pairs};

use super::parser::Rule;
use super::tree::*;
use crate::source::Span;

type P<'p> = PestPair<'p, Rule>;

pub(super) fn file<'a>(source: &'a str, pairs: Pairs<'_, Rule>) -> File<'a> {
    let piece = piece(source, 0, pairs);
    File {
        source,
        items: piece.items,
        comments: piece.comments,
        bom: piece.bom,
        ends_inside_string: piece.ends_inside_string,
    }
}

/// What one parse of a piece of the source holds.
pub(super) struct Piece<'a> {
    pub items: Vec<Item<'a>>,
    pub comments: Vec<Comment<'a>>,
    pub bom: Option<Span>,
    pub ends_inside_string: bool,
}

/// Builds the tree of a piece parsed with `Rule::file`, whose first byte
/// is at `base` in `source`.
pub(super) fn piece<'a>(source: &'a str, base: usize, mut pairs: Pairs<'_, Rule>) -> Piece<'a> {
    let mut builder = Builder {
        source,
        base,
        comments: Vec::new(),
        ends_inside_string: false,
    };
    let mut bom = None;
    let mut items = Vec::new();
    if let Some(file) = pairs.next() {
        for child in file.into_inner() {
            match child.as_rule() {
                Rule::bom => bom = Some(builder.span(&child)),
                Rule::items => items = builder.items(child),
                Rule::COMMENT => builder.comment(child),
                _ => {}
            }
        }
    }
    Piece {
        items,
        comments: builder.comments,
        bom,
        ends_inside_string: builder.ends_inside_string,
    }
}

struct Builder<'a> {
    source: &'a str,
    /// Where the parsed piece starts in `source`.
    base: usize,
    comments: Vec<Comment<'a>>,
    ends_inside_string: bool,
}

impl<'a> Builder<'a> {
    fn span(&self, pair: &P<'_>) -> Span {
        let span = pair.as_span();
        Span::new(self.base + span.start(), self.base + span.end())
    }

    /// The source's text at `span`.
    fn text(&self, span: Span) -> &'a str {
        self.source.get(span.range()).unwrap_or("")
    }

    fn word(&self, pair: &P<'_>) -> Word<'a> {
        let span = self.span(pair);
        Word {
            text: self.text(span),
            span,
        }
    }

    fn comment(&mut self, pair: P<'_>) {
        let span = self.span(&pair);
        self.comments.push(Comment {
            text: self.text(span),
            span,
        });
    }

    fn items(&mut self, pair: P<'_>) -> Vec<Item<'a>> {
        let mut items = Vec::new();
        for child in pair.into_inner() {
            match child.as_rule() {
                Rule::block => items.push(Item::Block(self.block(child))),
                Rule::field => items.push(Item::Field(self.field(child))),
                Rule::pair => items.extend(self.pair(child).map(Item::Pair)),
                Rule::COMMENT => self.comment(child),
                _ => {}
            }
        }
        items
    }

    fn block(&mut self, pair: P<'_>) -> Block<'a> {
        let span = self.span(&pair);
        let mut words = Vec::new();
        let mut open = Span::default();
        let mut close = None;
        let mut items = Vec::new();
        for child in pair.into_inner() {
            match child.as_rule() {
                Rule::word => words.push(self.word(&child)),
                Rule::open_brace => open = self.span(&child),
                Rule::items => items = self.items(child),
                Rule::close_brace if !child.as_str().is_empty() => close = Some(self.span(&child)),
                Rule::COMMENT => self.comment(child),
                _ => {}
            }
        }
        let mut words = words.into_iter();
        let keyword = words.next().unwrap_or(Word {
            text: "",
            span: Span::point(open.start),
        });
        Block {
            keyword,
            args: words.collect(),
            open,
            close,
            items,
            span,
            damaged: false,
        }
    }

    fn field(&mut self, pair: P<'_>) -> Field<'a> {
        let span = self.span(&pair);
        let mut key = None;
        let mut tokens = Vec::new();
        for child in pair.into_inner() {
            if child.as_rule() == Rule::COMMENT {
                self.comment(child);
            } else if key.is_none() && child.as_rule() == Rule::word {
                key = Some(self.word(&child));
            } else if let Some(token) = self.token(child) {
                tokens.push(token);
            }
        }
        Field {
            key: key.unwrap_or(Word {
                text: "",
                span: Span::point(span.start),
            }),
            tokens,
            span,
        }
    }

    fn pair(&mut self, pair: P<'_>) -> Option<Pair<'a>> {
        let span = self.span(&pair);
        let text = self.text(span);
        let mut key = None;
        let mut value = None;
        for child in pair.into_inner() {
            if child.as_rule() == Rule::COMMENT {
                self.comment(child);
            } else if key.is_none() {
                key = Some(self.word(&child));
            } else {
                value = self.token(child);
            }
        }
        let key = key?;
        let value = value?;
        // Only white space stands between the key and its colon.
        let after_key = key.span.end - span.start;
        let colon_at = text[after_key..]
            .find(':')
            .map_or(after_key, |i| after_key + i);
        let colon = Span::new(span.start + colon_at, span.start + colon_at + 1);
        Some(Pair {
            key,
            colon,
            value,
            span,
        })
    }

    fn token(&mut self, pair: P<'_>) -> Option<Token<'a>> {
        Some(match pair.as_rule() {
            Rule::word => Token::Word(self.word(&pair)),
            Rule::op => Token::Op(self.word(&pair)),
            Rule::string => Token::Str(self.string(pair, Quotes::Single)),
            Rule::triple_string => {
                let literal = self.string(pair, Quotes::Triple);
                self.ends_inside_string |= !literal.terminated;
                Token::Str(literal)
            }
            Rule::list => Token::List(self.list(pair)),
            Rule::COMMENT => {
                self.comment(pair);
                return None;
            }
            _ => return None,
        })
    }

    fn list(&mut self, pair: P<'_>) -> List<'a> {
        let span = self.span(&pair);
        let items = pair
            .into_inner()
            .filter_map(|child| self.token(child))
            .collect();
        List { items, span }
    }

    fn string(&self, pair: P<'_>, quotes: Quotes) -> StrLit<'a> {
        let span = self.span(&pair);
        let mut body = "";
        let mut body_span = Span::point(span.end);
        let mut terminated = false;
        for child in pair.into_inner() {
            match child.as_rule() {
                Rule::string_body | Rule::triple_string_body => {
                    body_span = self.span(&child);
                    body = self.text(body_span);
                }
                Rule::string_close | Rule::triple_string_close => terminated = true,
                _ => {}
            }
        }
        StrLit {
            quotes,
            body,
            body_span,
            span,
            terminated,
        }
    }
}

//! pest pairs → syntax tree. The grammar guarantees the shape of every pair
//! this module reads, so a surprise here is a grammar bug, not bad input;
//! even then it degrades to a skipped node rather than a panic.

use pest::iterators::{Pair as PestPair, Pairs};

use super::parser::Rule;
use super::tree::*;
use crate::source::Span;

type P<'a> = PestPair<'a, Rule>;

pub(super) fn file<'a>(source: &'a str, mut pairs: Pairs<'a, Rule>) -> File<'a> {
    let mut builder = Builder::default();
    let mut bom = None;
    let mut items = Vec::new();
    if let Some(file) = pairs.next() {
        for child in file.into_inner() {
            match child.as_rule() {
                Rule::bom => bom = Some(Span::from(child.as_span())),
                Rule::items => items = builder.items(child),
                Rule::COMMENT => builder.comment(child),
                _ => {}
            }
        }
    }
    File {
        source,
        items,
        comments: builder.comments,
        bom,
        ends_inside_string: builder.ends_inside_string,
    }
}

#[derive(Default)]
struct Builder<'a> {
    comments: Vec<Comment<'a>>,
    ends_inside_string: bool,
}

impl<'a> Builder<'a> {
    fn comment(&mut self, pair: P<'a>) {
        self.comments.push(Comment {
            text: pair.as_str(),
            span: pair.as_span().into(),
        });
    }

    fn items(&mut self, pair: P<'a>) -> Vec<Item<'a>> {
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

    fn block(&mut self, pair: P<'a>) -> Block<'a> {
        let span = pair.as_span().into();
        let mut words = Vec::new();
        let mut open = Span::default();
        let mut close = None;
        let mut items = Vec::new();
        for child in pair.into_inner() {
            match child.as_rule() {
                Rule::word => words.push(word(&child)),
                Rule::open_brace => open = child.as_span().into(),
                Rule::items => items = self.items(child),
                Rule::close_brace if !child.as_str().is_empty() => {
                    close = Some(child.as_span().into())
                }
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
        }
    }

    fn field(&mut self, pair: P<'a>) -> Field<'a> {
        let span: Span = pair.as_span().into();
        let mut key = None;
        let mut tokens = Vec::new();
        for child in pair.into_inner() {
            if child.as_rule() == Rule::COMMENT {
                self.comment(child);
            } else if key.is_none() && child.as_rule() == Rule::word {
                key = Some(word(&child));
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

    fn pair(&mut self, pair: P<'a>) -> Option<Pair<'a>> {
        let span: Span = pair.as_span().into();
        let text = pair.as_str();
        let mut key = None;
        let mut value = None;
        for child in pair.into_inner() {
            if child.as_rule() == Rule::COMMENT {
                self.comment(child);
            } else if key.is_none() {
                key = Some(word(&child));
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

    fn token(&mut self, pair: P<'a>) -> Option<Token<'a>> {
        Some(match pair.as_rule() {
            Rule::word => Token::Word(word(&pair)),
            Rule::op => Token::Op(word(&pair)),
            Rule::string => Token::Str(string(pair, Quotes::Single)),
            Rule::triple_string => {
                let literal = string(pair, Quotes::Triple);
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

    fn list(&mut self, pair: P<'a>) -> List<'a> {
        let span = pair.as_span().into();
        let items = pair
            .into_inner()
            .filter_map(|child| self.token(child))
            .collect();
        List { items, span }
    }
}

fn word<'a>(pair: &P<'a>) -> Word<'a> {
    Word {
        text: pair.as_str(),
        span: pair.as_span().into(),
    }
}

fn string(pair: P<'_>, quotes: Quotes) -> StrLit<'_> {
    let span: Span = pair.as_span().into();
    let mut body = "";
    let mut body_span = Span::point(span.end);
    let mut terminated = false;
    for child in pair.into_inner() {
        match child.as_rule() {
            Rule::string_body | Rule::triple_string_body => {
                body = child.as_str();
                body_span = child.as_span().into();
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

//! The syntax tree: what the text says, with byte spans, before any name
//! is given a meaning. Built from pest's parse tree by `build`.

use crate::source::Span;

/// A whole file: its top-level items and every comment in source order.
#[derive(Debug, Clone, PartialEq)]
pub struct File<'a> {
    /// The text the tree was read from.
    pub source: &'a str,
    pub items: Vec<Item<'a>>,
    pub comments: Vec<Comment<'a>>,
    /// The byte-order mark, when the file starts with one.
    pub bom: Option<Span>,
    /// Whether the file ends inside an unterminated `"""` block, which
    /// swallowed every closing brace after it.
    pub ends_inside_string: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Item<'a> {
    Block(Block<'a>),
    Field(Field<'a>),
    Pair(Pair<'a>),
}

impl<'a> Item<'a> {
    pub fn span(&self) -> Span {
        match self {
            Item::Block(block) => block.span,
            Item::Field(field) => field.span,
            Item::Pair(pair) => pair.span,
        }
    }

    /// The word the item starts with.
    pub fn keyword(&self) -> &Word<'a> {
        match self {
            Item::Block(block) => &block.keyword,
            Item::Field(field) => &field.key,
            Item::Pair(pair) => &pair.key,
        }
    }
}

/// `keyword arg… { items }`, e.g. `plugin acme/x 1.0.0 { … }` or
/// `text stance { … }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Block<'a> {
    pub keyword: Word<'a>,
    pub args: Vec<Word<'a>>,
    pub open: Span,
    /// `None` when the file ended before the closing brace.
    pub close: Option<Span>,
    pub items: Vec<Item<'a>>,
    pub span: Span,
    /// Whether a syntax error inside it was recovered from (see
    /// `syntax::recover`): its items are what parsed around the error, so
    /// what is missing from it was not necessarily left out by its author.
    pub damaged: bool,
}

/// `key token…` on one line, e.g. `budget 120 tokens`.
#[derive(Debug, Clone, PartialEq)]
pub struct Field<'a> {
    pub key: Word<'a>,
    pub tokens: Vec<Token<'a>>,
    pub span: Span,
}

/// `key: value`, as written in call arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair<'a> {
    pub key: Word<'a>,
    pub colon: Span,
    pub value: Token<'a>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word<'a> {
    pub text: &'a str,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Token<'a> {
    Word(Word<'a>),
    Str(StrLit<'a>),
    List(List<'a>),
    Op(Word<'a>),
}

impl Token<'_> {
    pub fn span(&self) -> Span {
        match self {
            Token::Word(word) | Token::Op(word) => word.span,
            Token::Str(string) => string.span,
            Token::List(list) => list.span,
        }
    }

    /// How the token is named in messages: "a string", "a list", …
    pub fn describe(&self) -> &'static str {
        match self {
            Token::Word(_) => "a word",
            Token::Str(_) => "a string",
            Token::List(_) => "a list",
            Token::Op(_) => "an operator",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quotes {
    /// `"…"`
    Single,
    /// `"""…"""`
    Triple,
}

/// A string literal as written: escapes and indentation are handled in
/// lowering, so that their errors can be located precisely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrLit<'a> {
    pub quotes: Quotes,
    /// The text between the quotes, raw.
    pub body: &'a str,
    pub body_span: Span,
    pub span: Span,
    /// `false` when the closing quotes never came.
    pub terminated: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct List<'a> {
    pub items: Vec<Token<'a>>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comment<'a> {
    /// The comment including its `#`.
    pub text: &'a str,
    pub span: Span,
}

//! A pattern read into tokens, by `globset`'s rules: the same patterns
//! refused for the same reasons, and `**` recognised in the same places.

use super::{Error, Options, MAX_NESTING};

/// One piece of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    Literal(char),
    /// `?`: one character other than `/`.
    Any,
    /// `*`: any run of characters other than `/`.
    ZeroOrMore,
    /// `**/` at the start: nothing, a `/`, or any path ending in `/`.
    RecursivePrefix,
    /// `/**` at the end: `/` and anything.
    RecursiveSuffix,
    /// `/**/` inside: one `/`, or `/`, anything, `/`.
    RecursiveZeroOrMore,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    /// `{a,b}`: each branch's tokens.
    Alternates(Vec<Vec<Token>>),
}

/// The tokens of `pattern`.
pub(super) fn parse(pattern: &str, options: Options) -> Result<Vec<Token>, Error> {
    let mut parser = Parser {
        chars: pattern.chars().collect(),
        at: 0,
        prev: None,
        cur: None,
        opened: Vec::new(),
        branches: vec![Vec::new()],
        unclosed_class_seen: false,
        options,
    };
    parser.run()?;
    if parser.branches.len() > 1 {
        return Err(Error::UnclosedAlternates);
    }
    Ok(parser.branches.pop().unwrap_or_default())
}

struct Parser {
    chars: Vec<char>,
    /// The index of the next character.
    at: usize,
    prev: Option<char>,
    cur: Option<char>,
    /// For each open `{`, where its branches start in `branches`.
    opened: Vec<usize>,
    /// The branches being read; tokens go to the last.
    branches: Vec<Vec<Token>>,
    /// A `[` had no `]`: no later `[` can have one either, so they are
    /// literals at once (and `[[[[…` stays linear).
    unclosed_class_seen: bool,
    options: Options,
}

impl Parser {
    fn run(&mut self) -> Result<(), Error> {
        while let Some(c) = self.bump() {
            match c {
                '?' => self.push(Token::Any),
                '*' => self.star()?,
                '[' if !self.unclosed_class_seen => self.class()?,
                '{' => self.open()?,
                '}' => self.close()?,
                ',' if !self.opened.is_empty() => self.branches.push(Vec::new()),
                '\\' => match self.bump() {
                    Some(c) => self.push(Token::Literal(c)),
                    None => return Err(Error::DanglingEscape),
                },
                c => self.push(Token::Literal(c)),
            }
        }
        Ok(())
    }

    fn bump(&mut self) -> Option<char> {
        self.prev = self.cur;
        self.cur = self.chars.get(self.at).copied();
        if self.cur.is_some() {
            self.at += 1;
        }
        self.cur
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn push(&mut self, token: Token) {
        if let Some(branch) = self.branches.last_mut() {
            branch.push(token);
        }
    }

    fn open(&mut self) -> Result<(), Error> {
        if self.opened.len() >= MAX_NESTING {
            return Err(Error::TooManyNestedAlternates);
        }
        self.opened.push(self.branches.len());
        self.branches.push(Vec::new());
        Ok(())
    }

    fn close(&mut self) -> Result<(), Error> {
        let start = self.opened.pop().ok_or(Error::UnopenedAlternates)?;
        let branches = self.branches.drain(start..).collect();
        self.push(Token::Alternates(branches));
        Ok(())
    }

    /// After a `*`: one star, two stars that are a whole component (a
    /// recursive token), or two stars inside a component (two `*`).
    fn star(&mut self) -> Result<(), Error> {
        let prev = self.prev;
        if self.peek() != Some('*') {
            self.push(Token::ZeroOrMore);
            return Ok(());
        }
        self.bump();
        let branch_is_empty = self.branches.last().is_none_or(Vec::is_empty);
        if branch_is_empty {
            if self.peek().is_some_and(|c| c != '/') {
                self.push(Token::ZeroOrMore);
                self.push(Token::ZeroOrMore);
            } else {
                self.push(Token::RecursivePrefix);
                self.bump();
            }
            return Ok(());
        }
        let in_alternates = self.branches.len() > 1;
        if prev != Some('/') && (!in_alternates || (prev != Some(',') && prev != Some('{'))) {
            self.push(Token::ZeroOrMore);
            self.push(Token::ZeroOrMore);
            return Ok(());
        }
        let is_suffix = match self.peek() {
            None => true,
            Some(',' | '}') if in_alternates => true,
            Some('/') => {
                self.bump();
                false
            }
            Some(_) => {
                self.push(Token::ZeroOrMore);
                self.push(Token::ZeroOrMore);
                return Ok(());
            }
        };
        // The `/` before the stars becomes part of the recursive token.
        let last = self.branches.last_mut().and_then(Vec::pop);
        self.push(match last {
            Some(Token::RecursivePrefix) => Token::RecursivePrefix,
            Some(Token::RecursiveSuffix) => Token::RecursiveSuffix,
            _ if is_suffix => Token::RecursiveSuffix,
            _ => Token::RecursiveZeroOrMore,
        });
        Ok(())
    }

    /// After a `[`: a class up to its `]`, or, when there is none and the
    /// options allow it, a literal `[`.
    fn class(&mut self) -> Result<(), Error> {
        let saved = (self.at, self.prev, self.cur);
        let negated = matches!(self.peek(), Some('!' | '^'));
        if negated {
            self.bump();
        }
        let mut ranges: Vec<(char, char)> = Vec::new();
        let mut first = true;
        let mut in_range = false;
        loop {
            let Some(c) = self.bump() else {
                if !self.options.allow_unclosed_class {
                    return Err(Error::UnclosedClass);
                }
                (self.at, self.prev, self.cur) = saved;
                self.unclosed_class_seen = true;
                self.push(Token::Literal('['));
                return Ok(());
            };
            match c {
                ']' if !first => break,
                ']' => ranges.push((']', ']')),
                '-' if first => ranges.push(('-', '-')),
                '-' if in_range => {
                    extend_last(&mut ranges, '-')?;
                    in_range = false;
                }
                '-' => in_range = true,
                '[' if !in_range && self.peek() == Some(':') => {
                    match self.posix_class() {
                        Some(class) => ranges.extend_from_slice(class),
                        None => ranges.push(('[', '[')),
                    }
                    in_range = false;
                }
                c if in_range => {
                    extend_last(&mut ranges, c)?;
                    in_range = false;
                }
                c => ranges.push((c, c)),
            }
            first = false;
        }
        if in_range {
            ranges.push(('-', '-'));
        }
        self.push(Token::Class { negated, ranges });
        Ok(())
    }

    /// After `[` inside a class, with `:` next: `[:name:]`'s ranges, or
    /// `None` (and nothing read) when it is not one.
    fn posix_class(&mut self) -> Option<&'static [(char, char)]> {
        let saved = (self.at, self.prev, self.cur);
        self.bump();
        let mut name = String::new();
        loop {
            match self.bump() {
                Some(':') if self.peek() == Some(']') => {
                    self.bump();
                    return posix_ranges(&name);
                }
                Some(c) if c.is_ascii_lowercase() && name.len() < 8 => name.push(c),
                _ => {
                    (self.at, self.prev, self.cur) = saved;
                    return None;
                }
            }
        }
    }
}

/// Ends the last range at `end`, which must not come before its start.
fn extend_last(ranges: &mut [(char, char)], end: char) -> Result<(), Error> {
    let Some(range) = ranges.last_mut() else {
        return Ok(());
    };
    range.1 = end;
    if range.1 < range.0 {
        return Err(Error::InvalidRange(range.0, range.1));
    }
    Ok(())
}

/// The ASCII ranges of a POSIX class name: ASCII alone, so no locale
/// changes what a pattern means.
fn posix_ranges(name: &str) -> Option<&'static [(char, char)]> {
    Some(match name {
        "alnum" => &[('0', '9'), ('A', 'Z'), ('a', 'z')],
        "alpha" => &[('A', 'Z'), ('a', 'z')],
        "blank" => &[('\t', '\t'), (' ', ' ')],
        "cntrl" => &[('\x00', '\x1f'), ('\x7f', '\x7f')],
        "digit" => &[('0', '9')],
        "graph" => &[('!', '~')],
        "lower" => &[('a', 'z')],
        "print" => &[(' ', '~')],
        "punct" => &[('!', '/'), (':', '@'), ('[', '`'), ('{', '~')],
        "space" => &[('\t', '\r'), (' ', ' ')],
        "upper" => &[('A', 'Z')],
        "xdigit" => &[('0', '9'), ('A', 'F'), ('a', 'f')],
        _ => return None,
    })
}

//! Where a value sits in a JSON text: `hooks.PreToolUse[1].hooks[0].type`
//! found by walking the text itself, so a diagnostic underlines the member
//! it is about even when an earlier sibling has a key of the same name.
//! serde_json reads values without their places; this reads places without
//! values, and never fails: on text it cannot follow it says so with
//! `None`, and callers fall back to a coarser span.

use crate::source::Span;

/// One step into a JSON value: a member of an object, an item of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The span of what `path` names: a member's key (`"type"`), or an array
/// item's value. `None` when the text does not hold it.
pub(super) fn span_of(text: &str, path: &[Step<'_>]) -> Option<Span> {
    let mut scanner = Scanner { text, at: 0 };
    scanner.skip_space();
    let mut found = None;
    for step in path {
        found = Some(match step {
            Step::Key(key) => scanner.member(key)?,
            Step::Index(index) => scanner.item(*index)?,
        });
    }
    found
}

/// The span of what `path` names, or of the nearest step above it that the
/// text holds, or the first character.
pub(super) fn nearest(text: &str, path: &[Step<'_>]) -> Span {
    (0..=path.len())
        .rev()
        .find_map(|length| span_of(text, &path[..length]).filter(|_| length > 0))
        .unwrap_or(Span::new(0, text.chars().next().map_or(0, char::len_utf8)))
}

struct Scanner<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Inside the object at the cursor, moves to the value of `key`;
    /// returns the key's span.
    fn member(&mut self, key: &str) -> Option<Span> {
        if self.peek()? != b'{' {
            return None;
        }
        self.at += 1;
        loop {
            self.skip_space();
            match self.peek()? {
                b'}' => return None,
                b',' => {
                    self.at += 1;
                    continue;
                }
                b'"' => {}
                _ => return None,
            }
            let start = self.at;
            let name = self.string()?;
            let span = Span::new(start, self.at);
            self.skip_space();
            if self.peek()? != b':' {
                return None;
            }
            self.at += 1;
            self.skip_space();
            if name == key {
                return Some(span);
            }
            self.value()?;
        }
    }

    /// Inside the array at the cursor, moves to item `index`; returns its
    /// span.
    fn item(&mut self, index: usize) -> Option<Span> {
        if self.peek()? != b'[' {
            return None;
        }
        self.at += 1;
        let mut count = 0;
        loop {
            self.skip_space();
            match self.peek()? {
                b']' => return None,
                b',' => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            if count == index {
                let start = self.at;
                let mut probe = Scanner {
                    text: self.text,
                    at: self.at,
                };
                probe.value()?;
                return Some(Span::new(start, probe.at));
            }
            self.value()?;
            count += 1;
        }
    }

    /// Reads a string at the cursor, returning its raw contents.
    fn string(&mut self) -> Option<&'a str> {
        let start = self.at + 1;
        let mut at = start;
        let bytes = self.text.as_bytes();
        loop {
            match bytes.get(at)? {
                b'\\' => at += 2,
                b'"' => break,
                _ => at += 1,
            }
        }
        self.at = at + 1;
        self.text.get(start..at)
    }

    /// Skips the value at the cursor, iteratively so that deep nesting
    /// costs no stack.
    fn value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            self.skip_space();
            match self.peek()? {
                b'"' => {
                    self.string()?;
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                    continue;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.at += 1;
                }
                b',' | b':' if depth > 0 => {
                    self.at += 1;
                    continue;
                }
                _ => {
                    while !matches!(
                        self.peek(),
                        None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                    ) {
                        self.at += 1;
                    }
                }
            }
            if depth == 0 {
                return Some(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Step::{Index, Key};

    fn under(text: &str, path: &[Step<'_>]) -> Option<String> {
        span_of(text, path).map(|span| text[span.start..span.end].to_string())
    }

    #[test]
    fn follows_keys_and_indices() {
        let text = r#"{"hooks": {"Stop": [{"type": "a"}, {"hooks": [{"type": "b", "x": [1, {"y": 2}]}]}]}}"#;
        let path = [Key("hooks"), Key("Stop"), Index(1), Key("hooks"), Index(0)];
        assert_eq!(
            under(text, &path).as_deref(),
            Some(r#"{"type": "b", "x": [1, {"y": 2}]}"#)
        );
        let mut deeper = path.to_vec();
        deeper.push(Key("x"));
        assert_eq!(under(text, &deeper).as_deref(), Some(r#""x""#));
        assert_eq!(under(text, &[Key("nope")]), None);
        assert_eq!(under(text, &[Key("hooks"), Index(0)]), None);
    }

    #[test]
    fn escaped_quotes_and_broken_text() {
        let text = r#"{"a\"b": 1, "c": "}\"", "d": [true, null]}"#;
        assert_eq!(under(text, &[Key("d"), Index(1)]).as_deref(), Some("null"));
        assert_eq!(under("{\"a\": [1, 2", &[Key("a"), Index(5)]), None);
        let nearest = nearest(text, &[Key("c"), Key("deeper")]);
        assert_eq!(&text[nearest.start..nearest.end], r#""c""#);
        assert_eq!(super::nearest("", &[Key("x")]), Span::new(0, 0));
    }
}

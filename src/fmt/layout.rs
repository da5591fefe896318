//! The document → text, in the canonical layout described in the module
//! above.

use super::attach::{Contents, Entry, Group, Node, Note};
use super::order::Role;
use crate::limits::MAX_STRING_BYTES;
use crate::lower::strings::block_lines;
use crate::syntax::tree::{Field, Pair, Quotes, StrLit, Token};

const INDENT: &str = "    ";

pub(super) fn render(document: &Contents<'_, '_>) -> String {
    let mut printer = Printer::default();
    printer.contents(document, 0, Role::File);
    printer.out
}

#[derive(Default)]
struct Printer {
    out: String,
}

impl Printer {
    fn contents(&mut self, contents: &Contents<'_, '_>, depth: usize, role: Role) {
        let mut previous: Option<&Entry<'_, '_>> = None;
        for entry in &contents.entries {
            if let Some(previous) = previous {
                if role.spaces_blocks() && (is_block(previous) || is_block(entry)) {
                    self.blank_line();
                }
            }
            self.entry(entry, depth);
            previous = Some(entry);
        }
        for (index, note) in contents.end.iter().enumerate() {
            if note.blank_before && (index > 0 || previous.is_some()) {
                self.blank_line();
            }
            self.note(note, depth);
        }
    }

    fn entry(&mut self, entry: &Entry<'_, '_>, depth: usize) {
        for (index, note) in entry.leading.iter().enumerate() {
            if index > 0 && note.blank_before {
                self.blank_line();
            }
            self.note(note, depth);
        }
        if entry.blank_before_item {
            self.blank_line();
        }
        self.indent(depth);
        match &entry.node {
            Node::Block(group) => self.group(group, depth),
            Node::Field(field) => self.field(field, depth),
            Node::Pair(pair) => self.pair(pair, depth),
        }
        self.trailing(entry.trailing);
        self.out.push('\n');
    }

    fn note(&mut self, note: &Note<'_>, depth: usize) {
        self.indent(depth);
        self.out.push_str(note.text);
        self.out.push('\n');
    }

    fn trailing(&mut self, comment: Option<&str>) {
        if let Some(comment) = comment {
            self.out.push(' ');
            self.out.push_str(comment);
        }
    }

    fn group(&mut self, group: &Group<'_, '_>, depth: usize) {
        let block = group.block;
        self.out.push_str(block.keyword.text);
        for arg in &block.args {
            self.out.push(' ');
            self.out.push_str(arg.text);
        }
        if !group.has_comments() {
            if group.contents.entries.is_empty() {
                self.out.push_str(" {}");
                return;
            }
            if group.role == Role::Call && self.inline_arguments(group, depth) {
                return;
            }
        }
        self.out.push_str(" {");
        self.trailing(group.after_open);
        self.out.push('\n');
        self.contents(&group.contents, depth + 1, group.role);
        self.indent(depth);
        self.out.push('}');
    }

    /// `{ key: value, key2: value2 }` on the current line, when every item
    /// is an argument on one line; `false` (and nothing written) otherwise.
    fn inline_arguments(&mut self, group: &Group<'_, '_>, depth: usize) -> bool {
        let pairs: Option<Vec<_>> = group
            .contents
            .entries
            .iter()
            .map(|entry| match &entry.node {
                Node::Pair(pair) if fits_one_line(&pair.value) => Some(*pair),
                _ => None,
            })
            .collect();
        let Some(pairs) = pairs else {
            return false;
        };
        self.out.push_str(" { ");
        for (index, pair) in pairs.iter().enumerate() {
            if index > 0 {
                self.out.push_str(", ");
            }
            self.pair(pair, depth);
        }
        self.out.push_str(" }");
        true
    }

    fn field(&mut self, field: &Field<'_>, depth: usize) {
        self.out.push_str(field.key.text);
        for token in &field.tokens {
            self.out.push(' ');
            self.token(token, depth);
        }
    }

    fn pair(&mut self, pair: &Pair<'_>, depth: usize) {
        self.out.push_str(pair.key.text);
        self.out.push_str(": ");
        self.token(&pair.value, depth);
    }

    fn token(&mut self, token: &Token<'_>, depth: usize) {
        match token {
            Token::Word(word) | Token::Op(word) => self.out.push_str(word.text),
            Token::Str(literal) => self.string(literal, depth),
            Token::List(list) => {
                self.out.push('[');
                for (index, item) in list.items.iter().enumerate() {
                    if index > 0 {
                        self.out.push_str(", ");
                    }
                    self.token(item, depth);
                }
                self.out.push(']');
            }
        }
    }

    fn string(&mut self, literal: &StrLit<'_>, depth: usize) {
        match literal.quotes {
            Quotes::Single => {
                self.out.push('"');
                self.out.push_str(literal.body);
                self.out.push('"');
            }
            Quotes::Triple if !has_line_break(literal.body) => {
                self.out.push_str("\"\"\"");
                self.out.push_str(literal.body);
                self.out.push_str("\"\"\"");
            }
            Quotes::Triple => self.block_string(literal.body, depth),
        }
    }

    /// A `"""` block over several lines, its lines one level deeper than
    /// the line it starts on. Kept as written if re-indenting it would take
    /// it across the string limit, which would change what lowering makes
    /// of it.
    fn block_string(&mut self, body: &str, depth: usize) {
        let lines = block_lines(body, 0);
        let pad = INDENT.repeat(depth + 1);
        let text_len: usize = lines
            .iter()
            .map(|line| {
                if line.text.is_empty() {
                    1
                } else {
                    pad.len() + line.text.len() + 1
                }
            })
            .sum();
        let new_len = 1 + text_len + pad.len();
        if body.len() > MAX_STRING_BYTES || new_len > MAX_STRING_BYTES {
            self.out.push_str("\"\"\"");
            self.out.push_str(body);
            self.out.push_str("\"\"\"");
            return;
        }
        self.out.push_str("\"\"\"\n");
        for line in &lines {
            if !line.text.is_empty() {
                self.out.push_str(&pad);
                self.out.push_str(line.text);
            }
            self.out.push('\n');
        }
        self.out.push_str(&pad);
        self.out.push_str("\"\"\"");
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str(INDENT);
        }
    }

    /// One empty line, never two, and none at the top of the file.
    fn blank_line(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }
}

fn is_block(entry: &Entry<'_, '_>) -> bool {
    matches!(entry.node, Node::Block(_))
}

fn has_line_break(text: &str) -> bool {
    text.contains(['\n', '\r'])
}

/// Whether a value prints on one line: anything but a `"""` block over
/// several lines.
fn fits_one_line(token: &Token<'_>) -> bool {
    match token {
        Token::Str(literal) => literal.quotes == Quotes::Single || !has_line_break(literal.body),
        Token::List(list) => list.items.iter().all(fits_one_line),
        Token::Word(_) | Token::Op(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use crate::fmt::format_fragment as format;
    use crate::lower::strings::decode;
    use crate::syntax::{self, tree::Item, tree::Token};

    /// The value of the string in `field`'s first token.
    fn value(text: &str) -> String {
        let file = syntax::parse(text).unwrap();
        let Some(Item::Field(field)) = file.items.first() else {
            panic!("a field");
        };
        let Some(Token::Str(literal)) = field.tokens.first() else {
            panic!("a string");
        };
        decode(literal, &mut Vec::new()).value
    }

    #[test]
    fn reindenting_a_block_keeps_its_value() {
        for text in [
            "body \"\"\"\n   a\n     b\n\n   c\n   \"\"\"\n",
            "body \"\"\"first\n      second\"\"\"\n",
            "body \"\"\"\r\n\t\ta\r\n\t\t  b\r\n\"\"\"\n",
            "body \"\"\"\n\"\"\"\n",
            "body \"\"\"\n\n\n\"\"\"\n",
            "body \"\"\"\n  trailing  \n  \"\"\"\n",
        ] {
            let formatted = format(text).unwrap();
            assert_eq!(value(&formatted), value(text), "{text:?} → {formatted:?}");
            assert_eq!(format(&formatted).unwrap(), formatted);
        }
    }

    #[test]
    fn blocks_go_one_level_deeper_than_their_line() {
        assert_eq!(
            format("body \"\"\"\n  a\n\"\"\"\n").unwrap(),
            "body \"\"\"\n    a\n    \"\"\"\n"
        );
    }
}

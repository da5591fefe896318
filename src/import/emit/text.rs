//! Values and comments in the language's syntax: quoted strings and `"""`
//! blocks escaped so they decode to the source text byte for byte, and
//! comment lines that cannot become suppressions. Apart from the layout of
//! a manifest so every escape is decided in one file.

use std::fmt::Write as _;

use crate::source::hidden::{classify, hidden_chars};

use super::{Note, INDENT};

pub(super) fn field(out: &mut String, depth: usize, text: &str) {
    out.push_str(&INDENT.repeat(depth));
    out.push_str(text);
    out.push('\n');
}

/// One or more comment lines; continuation lines start with `|`.
pub(super) fn comment(out: &mut String, depth: usize, text: &str) {
    for (index, line) in text.lines().enumerate() {
        let line = clean_comment(line);
        out.push_str(&INDENT.repeat(depth));
        match (index, line.is_empty()) {
            (0, true) => out.push('#'),
            (0, false) => {
                out.push_str("# ");
                out.push_str(&line);
            }
            (_, true) => out.push_str("# |"),
            (_, false) => {
                out.push_str("# | ");
                out.push_str(&line);
            }
        }
        out.push('\n');
    }
}

pub(super) fn note_comment(out: &mut String, depth: usize, note: &Note) {
    let label = if note.warning {
        "WARNING"
    } else {
        "not mapped"
    };
    let mut text = format!("{label} ({}): {}", note.file, note.message);
    if let Some(detail) = &note.detail {
        text.push('\n');
        text.push_str(detail);
    }
    comment(out, depth, &text);
}

/// A comment line cannot hold a line break or control characters, and
/// keeps no trailing white space (the canonical layout trims it); other
/// hidden characters are written as escapes, which a comment shows as they
/// are.
fn clean_comment(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if c.is_control() {
            out.push(' ');
        } else if classify(c).is_some() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out.trim_end().to_string()
}

/// A string field's value: `"…"` on one line, a `"""` block otherwise.
/// `depth` is the depth of the field line.
pub fn string(value: &str, depth: usize, template: bool) -> String {
    if value.contains('\n') {
        block(value, depth, template)
    } else {
        quoted(value, template)
    }
}

/// `"…"`, escaped.
pub fn quoted(value: &str, template: bool) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    let hidden = hidden_offsets(value);
    for (at, c) in value.char_indices() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '{' | '}' if template => {
                out.push(c);
                out.push(c);
            }
            c => push_char(&mut out, c, hidden.binary_search(&at).is_ok()),
        }
    }
    out.push('"');
    out
}

/// A `"""` block whose decoded value is `value` exactly.
fn block(value: &str, depth: usize, template: bool) -> String {
    let pad = INDENT.repeat(depth + 1);
    let mut lines: Vec<String> = value
        .split('\n')
        .map(|line| block_line(line, template))
        .collect();
    // The decoder strips the indentation all non-blank lines share; if the
    // text itself is indented throughout, escape the first white space
    // character of one line so that only the block's own indentation goes.
    let indented_throughout = lines
        .iter()
        .filter(|line| !line.is_empty())
        .all(|line| line.starts_with([' ', '\t']));
    if indented_throughout {
        if let Some(line) = lines.iter_mut().find(|line| !line.is_empty()) {
            let escaped = if line.starts_with('\t') {
                "\\t"
            } else {
                "\\u{20}"
            };
            line.replace_range(..1, escaped);
        }
    }
    let mut out = String::from("\"\"\"\n");
    for line in &lines {
        if !line.is_empty() {
            out.push_str(&pad);
            out.push_str(line);
        }
        out.push('\n');
    }
    out.push_str(&pad);
    out.push_str("\"\"\"");
    out
}

/// One line of a block, escaped. A line of only white space is escaped
/// whole, since the decoder reads such a line as empty.
pub(super) fn block_line(line: &str, template: bool) -> String {
    let mut out = String::with_capacity(line.len());
    if !line.is_empty() && line.chars().all(|c| c == ' ' || c == '\t') {
        for c in line.chars() {
            out.push_str(if c == '\t' { "\\t" } else { "\\u{20}" });
        }
        return out;
    }
    let mut quotes = 0;
    let chars: Vec<char> = line.chars().collect();
    let hidden = hidden_offsets(line);
    for (index, (at, c)) in line.char_indices().enumerate() {
        if c == '"' {
            // Escape every quote of a run of three or more, which would
            // otherwise close the block.
            if quotes == 0 {
                quotes = chars[index..].iter().take_while(|&&q| q == '"').count();
            }
            if quotes >= 3 {
                out.push('\\');
            }
            out.push('"');
            continue;
        }
        quotes = 0;
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push('\t'),
            '{' | '}' if template => {
                out.push(c);
                out.push(c);
            }
            c => push_char(&mut out, c, hidden.binary_search(&at).is_ok()),
        }
    }
    out
}

/// Where `text` holds hidden characters (`hidden-character`), judged in
/// context: an emoji's presentation selector or joiner is text.
fn hidden_offsets(text: &str) -> Vec<usize> {
    hidden_chars(text).map(|(at, _, _)| at).collect()
}

/// One character of a string, as an escape when it is a control character
/// (a carriage return would otherwise be read as a line break) or
/// `hidden`: the manifest then shows every reader what the imported text
/// holds, and decodes to it exactly.
fn push_char(out: &mut String, c: char, hidden: bool) {
    match c {
        '\r' => out.push_str("\\r"),
        c if c.is_control() || hidden => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

//! The lenient reader: top-level `key: value` lines of the flat YAML
//! subset authors write by hand, with plain, quoted and block scalars and
//! lists, which never fails on a file. Apart from the strict reader so each
//! reading of a frontmatter can be read on its own.

use super::{Entry, Frontmatter, Value};

/// Reads the lines between the delimiters.
pub fn parse(text: &str) -> Frontmatter {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    let mut frontmatter = Frontmatter::default();
    // Keys seen, so that a duplicate is found without rescanning every
    // entry (quadratic in the keys of a hostile file).
    let mut seen = std::collections::HashSet::new();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        let number = index + 1;
        index += 1;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let Some((key, rest)) = key_value(line) else {
            frontmatter.problems.push(format!(
                "frontmatter line {number} is not `key: value`: `{}`",
                line.trim()
            ));
            continue;
        };
        let start = index;
        while index < lines.len() && continues(lines[index], rest.trim().is_empty()) {
            index += 1;
        }
        let mut end = index;
        while end > start && lines[end - 1].trim().is_empty() {
            end -= 1;
        }
        let value = parse_value(rest.trim(), &lines[start..end]);
        if !seen.insert(key) {
            frontmatter.problems.push(format!(
                "`{key}` is given twice in the frontmatter; the first is used"
            ));
            continue;
        }
        frontmatter.entries.push(Entry {
            key: key.to_string(),
            value,
        });
    }
    frontmatter
}

/// `key: rest` at the start of a line; keys are the characters YAML
/// authors use in practice.
fn key_value(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let key = &line[..colon];
    let rest = &line[colon + 1..];
    let valid_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    (valid_key && (rest.is_empty() || rest.starts_with([' ', '\t']))).then_some((key, rest))
}

/// Whether `line` belongs to the value of the key above it: indented or
/// blank lines, and for a key with nothing after its colon, `- item` lines
/// at the key's own indentation (which YAML allows).
fn continues(line: &str, empty_value: bool) -> bool {
    line.trim().is_empty()
        || line.starts_with([' ', '\t'])
        || (empty_value && (line.starts_with("- ") || line == "-"))
}

fn parse_value(rest: &str, more: &[&str]) -> Value {
    if is_block_indicator(rest) {
        return Value::Text(block_scalar(rest.starts_with('>'), more));
    }
    if rest.is_empty() {
        return match block_list(more) {
            Some(items) => Value::List(items),
            None if more.is_empty() => Value::Text(String::new()),
            None => Value::Nested(dedent(more).join("\n")),
        };
    }
    let joined = fold(rest, more);
    if let Some(inner) = joined.strip_prefix('[') {
        if let Some(inner) = inner.trim_end().strip_suffix(']') {
            return Value::List(
                split_top_level(inner, ',')
                    .into_iter()
                    .map(|item| unquote(item.trim()))
                    .filter(|item| !item.is_empty())
                    .collect(),
            );
        }
    }
    if joined.starts_with('{') {
        return Value::Nested(joined);
    }
    Value::Text(unquote(&joined))
}

/// `|`, `>`, with an optional chomping and indentation indicator.
fn is_block_indicator(rest: &str) -> bool {
    let mut chars = rest.chars();
    matches!(chars.next(), Some('|' | '>'))
        && chars.all(|c| matches!(c, '+' | '-') || c.is_ascii_digit())
}

fn block_scalar(folded: bool, lines: &[&str]) -> String {
    let lines = dedent(lines);
    if !folded {
        return lines.join("\n");
    }
    let mut out = String::new();
    let mut previous_blank = true;
    for line in lines {
        if line.is_empty() {
            out.push('\n');
            previous_blank = true;
        } else if line.starts_with([' ', '\t']) {
            // More-indented lines keep their line breaks in folded scalars.
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(line);
            out.push('\n');
            previous_blank = true;
        } else {
            if !previous_blank {
                out.push(' ');
            }
            out.push_str(line);
            previous_blank = false;
        }
    }
    out.trim_end_matches('\n').to_string()
}

/// `- item` lines, or `None` when the lines are not a flat list.
fn block_list(lines: &[&str]) -> Option<Vec<String>> {
    let mut items = Vec::new();
    for line in lines {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let item = trimmed.strip_prefix('-')?;
        if !(item.is_empty() || item.starts_with(' ')) {
            return None;
        }
        let item = item.trim();
        if key_value(item).is_some() && !item.starts_with(['"', '\'']) {
            // `- field: transcript`: a list of maps.
            return None;
        }
        items.push(unquote(item));
    }
    (!items.is_empty()).then_some(items)
}

/// A plain or quoted scalar over several lines, joined as YAML folds them:
/// a line break is a space, a blank line is a line break.
fn fold(first: &str, more: &[&str]) -> String {
    let mut out = first.to_string();
    let mut blank_run = false;
    for line in more {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            out.push('\n');
            blank_run = true;
            continue;
        }
        if !blank_run {
            out.push(' ');
        }
        out.push_str(trimmed);
        blank_run = false;
    }
    out
}

/// The lines without the indentation they share.
fn dedent<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let common = lines
        .iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|line| line.get(common..).unwrap_or("").trim_end())
        .collect()
}

/// A scalar without its quotes, escapes decoded; a plain scalar as is.
pub fn unquote(text: &str) -> String {
    if let Some(inner) = text.strip_prefix('"') {
        if let Some(end) = closing_double_quote(inner) {
            return unescape_double(&inner[..end]);
        }
    } else if let Some(inner) = text.strip_prefix('\'') {
        if let Some(inner) = inner.strip_suffix('\'') {
            return inner.replace("''", "'");
        }
    }
    text.to_string()
}

fn closing_double_quote(inner: &str) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in inner.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(at),
            _ => {}
        }
    }
    None
}

fn unescape_double(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) => out.push(decoded),
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other @ ('"' | '\\' | '/' | ' ')) => out.push(other),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Splits on `separator` outside quotes and brackets, so that
/// `Bash(git add:*), Read` and `["a, b", c]` split where the author meant.
pub fn split_top_level(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (at, c) in text.char_indices() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth = depth.saturating_sub(1),
            (None, c) if c == separator && depth == 0 => {
                parts.push(&text[start..at]);
                start = at + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

//! The strict reading of a frontmatter by `yaml-rust2`, whose values win
//! where the file is YAML, with the alias guard and the error located in the
//! file. Apart from the lenient reader, whose values stay where this fails.

use super::{Entry, Frontmatter, Value, YamlError};

/// The most aliases (`*name`) a frontmatter is read strictly with.
const MAX_ALIASES: usize = 8;

/// Reads the frontmatter again as strict YAML (`yaml-rust2`): where it
/// parses, its values replace the lenient reader's — block scalars, quoted
/// keys, flow sequences, anchors and comments as YAML means them — except
/// numbers and booleans, kept as written, and nested maps, kept raw. Where
/// it does not (`globs: **/*` is an alias to YAML), the lenient values
/// stay and the error is kept, located.
pub(super) fn strict(inner: &str, frontmatter: &mut Frontmatter) {
    use yaml_rust2::{Yaml, YamlLoader};
    // The loader copies the node an alias names, so nested aliases grow
    // exponentially (a "billion laughs"): a frontmatter with more than a
    // few is not read strictly.
    // Only an anchor (`&name`) gives an alias something to copy: without
    // one, a `*` is text (`**bold**` in a quoted description) or an
    // alias the loader refuses by itself.
    let marks = |mark: u8| {
        inner
            .as_bytes()
            .windows(2)
            .filter(|pair| {
                matches!(pair[0], b' ' | b'\t' | b'[' | b',' | b'{' | b':' | b'-')
                    && pair[1] == mark
            })
            .count()
    };
    if marks(b'&') > 0 && marks(b'*') > MAX_ALIASES {
        frontmatter.yaml_error = Some(located(
            inner,
            &format!("more than {MAX_ALIASES} aliases, which contrib does not expand"),
            1,
            0,
        ));
        return;
    }
    let documents = match YamlLoader::load_from_str(inner) {
        Ok(documents) => documents,
        Err(error) => {
            let marker = error.marker();
            frontmatter.yaml_error =
                Some(located(inner, error.info(), marker.line(), marker.col()));
            return;
        }
    };
    let map = match documents.first() {
        None | Some(Yaml::Null) => return,
        Some(Yaml::Hash(map)) => map,
        Some(_) => {
            frontmatter.yaml_error = Some(located(
                inner,
                "the frontmatter is not a map of `key: value`",
                1,
                0,
            ));
            return;
        }
    };
    // Lines the lenient reader could not read are read now.
    frontmatter
        .problems
        .retain(|problem| !problem.starts_with("frontmatter line "));
    for (key, value) in map {
        let Some(key) = key.as_str() else {
            continue;
        };
        let value = match value {
            Yaml::String(text) => Value::Text(text.clone()),
            Yaml::Array(items) => {
                let texts: Option<Vec<String>> = items.iter().map(scalar).collect();
                match texts {
                    Some(texts) => Value::List(texts),
                    None => continue,
                }
            }
            _ => continue,
        };
        match frontmatter
            .entries
            .iter_mut()
            .find(|entry| entry.key == key)
        {
            Some(entry) => entry.value = value,
            None => frontmatter.entries.push(Entry {
                key: key.to_string(),
                value,
            }),
        }
    }
}

/// A scalar list item as text.
fn scalar(item: &yaml_rust2::Yaml) -> Option<String> {
    use yaml_rust2::Yaml;
    match item {
        Yaml::String(text) | Yaml::Real(text) => Some(text.clone()),
        Yaml::Integer(number) => Some(number.to_string()),
        Yaml::Boolean(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// A YAML error at a line (1-based) and column (0-based, as `yaml-rust2`
/// counts) of the frontmatter's text.
fn located(inner: &str, message: &str, line: usize, column: usize) -> YamlError {
    let line = line.max(1);
    let start: usize = inner
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    let rest = inner.get(start..).unwrap_or("");
    let within: usize = rest
        .chars()
        .take_while(|c| *c != '\n')
        .take(column)
        .map(char::len_utf8)
        .sum();
    YamlError {
        message: message.to_string(),
        line,
        column: column + 1,
        offset: (start + within).min(inner.len()),
    }
}

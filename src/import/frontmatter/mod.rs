//! A lenient reader for the `---` frontmatter of Markdown contributors
//! (`SKILL.md`, agents, commands, Cursor `.mdc` rules, `.claude/rules`).
//!
//! Every frontmatter is read twice: by strict YAML (`yaml-rust2`, see
//! `strict`), whose values win where it parses, and by the lenient
//! reader below, which gives the values where strict YAML refuses the file
//! (and the raw text of nested maps).
//!
//! Why a lenient reader too: the files are written by hand against a flat
//! subset of YAML, and strict YAML rejects much of what real authors write.
//! 230 of the 257 awesome-cursorrules files start an unquoted `globs:`
//! value with `*` (`globs: **/*`), which YAML reads as an alias and refuses; descriptions hold `: `, `#`
//! and `\n` in plain scalars. The tools that load these files are lenient,
//! so an importer must be too, and it must never fail on a file: what it
//! cannot read becomes a problem the import report lists, not an error.
//!
//! What it reads, per top-level `key: value`:
//!
//! - plain scalars, kept as written: `globs: **/*`, `description: Use when
//!   … PR #1234` (no `#` comments inside values, since authors do not mean
//!   them as comments), folded with the indented lines that follow;
//! - `"…"` (JSON-like escapes) and `'…'` (`''` for a quote) scalars;
//! - `|` and `>` block scalars (trailing line breaks are dropped: every
//!   value is used as one piece of metadata);
//! - flow lists `[a, "b"]` and block lists of `- item` lines;
//! - anything nested (a map under a key, a list of maps) is kept as its raw
//!   text, so it can be shown in a comment rather than lost.

mod lenient;
mod strict;

pub use lenient::{parse, split_top_level, unquote};
use strict::strict;

/// A file split into its frontmatter and body.
#[derive(Debug, Default)]
pub struct Document<'a> {
    pub frontmatter: Frontmatter,
    /// The text after the closing `---` line (the whole file when there is
    /// no frontmatter).
    pub body: &'a str,
}

#[derive(Debug, Default)]
pub struct Frontmatter {
    pub entries: Vec<Entry>,
    /// What could not be read, in the reader's words, for the report.
    pub problems: Vec<String>,
    /// Where strict YAML stops reading the frontmatter, when it does: the
    /// values are then the lenient reader's alone.
    pub yaml_error: Option<YamlError>,
}

/// Why strict YAML refuses a frontmatter, located in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// The YAML reader's words.
    pub message: String,
    /// 1-based, in the whole file.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    /// The byte offset in the whole file.
    pub offset: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub key: String,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Text(String),
    List(Vec<String>),
    /// A nested map or list of maps, as written (dedented).
    Nested(String),
}

impl Value {
    /// The value as one would write it again, for comments.
    pub fn display(&self) -> String {
        match self {
            Value::Text(text) | Value::Nested(text) => text.clone(),
            Value::List(items) => format!("[{}]", items.join(", ")),
        }
    }
}

/// Splits off the frontmatter, if the file starts with a `---` line that a
/// later `---` (or `...`) line closes.
pub fn split(original: &str) -> Document<'_> {
    let text = original.strip_prefix('\u{FEFF}').unwrap_or(original);
    let Some(after_open) = strip_delimiter_line(text, "---") else {
        return Document {
            frontmatter: Frontmatter::default(),
            body: text,
        };
    };
    let bom = original.len() - text.len();
    let inner_start = text.len() - after_open.len();
    let mut offset = inner_start;
    for line in after_open.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']).trim_end();
        if bare == "---" || bare == "..." {
            let inner = &text[inner_start..offset];
            let mut frontmatter = parse(inner);
            strict(inner, &mut frontmatter);
            if let Some(error) = &mut frontmatter.yaml_error {
                // The opening `---` is line 1 of the file.
                error.line += 1;
                error.offset += bom + inner_start;
            }
            return Document {
                frontmatter,
                body: &text[offset + line.len()..],
            };
        }
        offset += line.len();
    }
    Document {
        frontmatter: Frontmatter {
            entries: Vec::new(),
            problems: vec![
                "the opening `---` is never closed, so the whole file is read as the body".into(),
            ],
            yaml_error: None,
        },
        body: text,
    }
}

/// The text after a first line that is exactly `delimiter` (trailing white
/// space allowed).
fn strip_delimiter_line<'a>(text: &'a str, delimiter: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(delimiter)?;
    let line_end = rest.find('\n').map_or(rest.len(), |at| at + 1);
    rest[..line_end]
        .trim()
        .is_empty()
        .then(|| &rest[line_end..])
}

impl Frontmatter {
    /// Whether every entry has a key of its own, as [`parse`] promises (a
    /// repeated key is a problem, and the first is kept): what the fuzz
    /// target and the tests check.
    pub fn keys_are_distinct(&self) -> bool {
        let mut keys: Vec<&str> = self
            .entries
            .iter()
            .map(|entry| entry.key.as_str())
            .collect();
        let count = keys.len();
        keys.sort_unstable();
        keys.dedup();
        keys.len() == count
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|entry| entry.key == key)
            .map(|entry| &entry.value)
    }

    /// A text value, trimmed; `None` when absent or empty.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            Value::Text(text) => Some(text.trim()).filter(|text| !text.is_empty()),
            _ => None,
        }
    }

    /// A list value; a text value is split on top-level commas, as tools
    /// read `globs: a, b` and `allowed-tools: Read, Bash(git add:*)`.
    pub fn list(&self, key: &str) -> Option<Vec<String>> {
        match self.get(key)? {
            Value::List(items) => Some(items.clone()),
            Value::Text(text) => Some(
                split_top_level(text, ',')
                    .into_iter()
                    .map(|item| unquote(item.trim()))
                    .filter(|item| !item.is_empty())
                    .collect(),
            ),
            Value::Nested(_) => None,
        }
    }

    /// `true`/`false` (and YAML's `yes`/`no`), any case.
    pub fn flag(&self, key: &str) -> Option<bool> {
        match self.text(key)?.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" => Some(true),
            "false" | "no" | "off" => Some(false),
            _ => None,
        }
    }

    /// The entries not in `mapped`, in the order written.
    pub fn unmapped<'a>(&'a self, mapped: &'a [&str]) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries
            .iter()
            .filter(move |entry| !mapped.contains(&entry.key.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn front(text: &str) -> Frontmatter {
        split(text).frontmatter
    }

    #[test]
    fn reads_unquoted_globs_that_strict_yaml_rejects() {
        let document =
            split("---\ndescription: Go rules\nglobs: **/*\nalwaysApply: false\n---\n\n# Go\n");
        let frontmatter = &document.frontmatter;
        assert_eq!(frontmatter.text("globs"), Some("**/*"));
        assert_eq!(frontmatter.list("globs"), Some(vec!["**/*".to_string()]));
        assert_eq!(frontmatter.flag("alwaysApply"), Some(false));
        assert_eq!(document.body, "\n# Go\n");
        assert!(frontmatter.problems.is_empty());
    }

    #[test]
    fn no_frontmatter_means_the_whole_file_is_body() {
        let document = split("# Title\n---\nmore\n");
        assert!(document.frontmatter.entries.is_empty());
        assert_eq!(document.body, "# Title\n---\nmore\n");
    }

    #[test]
    fn an_unclosed_frontmatter_is_a_problem_not_an_error() {
        let document = split("---\nname: x\n\nbody\n");
        assert_eq!(document.body, "---\nname: x\n\nbody\n");
        assert_eq!(document.frontmatter.problems.len(), 1);
    }

    #[test]
    fn reads_crlf_and_a_bom() {
        let document = split("\u{FEFF}---\r\nname: x\r\n---\r\nbody\r\n");
        assert_eq!(document.frontmatter.text("name"), Some("x"));
        assert_eq!(document.body, "body\r\n");
    }

    #[test]
    fn plain_scalars_keep_colons_hashes_and_backslashes() {
        let f = front("---\ndescription: Use when: a PR #1234 says \"hi\"\\n\n---\n");
        assert_eq!(
            f.text("description"),
            Some("Use when: a PR #1234 says \"hi\"\\n")
        );
    }

    #[test]
    fn quoted_scalars() {
        let f = front("---\na: \"x \\\"y\\\" \\u00e9\"\nb: 'it''s'\n---\n");
        assert_eq!(f.text("a"), Some("x \"y\" é"));
        assert_eq!(f.text("b"), Some("it's"));
    }

    #[test]
    fn block_scalars() {
        let f = front("---\nlit: |-\n  one\n    two\n\n  three\nfold: >\n  one\n  two\n\n  three\nname: n\n---\n");
        assert_eq!(f.text("lit"), Some("one\n  two\n\nthree"));
        assert_eq!(f.text("fold"), Some("one two\nthree"));
        assert_eq!(f.text("name"), Some("n"));
    }

    #[test]
    fn plain_scalars_fold_their_continuation_lines() {
        let f = front("---\ndescription: first\n  second\nname: n\n---\n");
        assert_eq!(f.text("description"), Some("first second"));
    }

    #[test]
    fn lists_in_every_spelling() {
        let f = front("---\na: [\"**/*.py\", 'b', c]\nb:\n  - \"x/**\"\n  - y\nc:\n- z\nd: Read, Bash(git add:*), Grep\n---\n");
        assert_eq!(f.list("a").unwrap(), ["**/*.py", "b", "c"]);
        assert_eq!(f.list("b").unwrap(), ["x/**", "y"]);
        assert_eq!(f.list("c").unwrap(), ["z"]);
        assert_eq!(f.list("d").unwrap(), ["Read", "Bash(git add:*)", "Grep"]);
    }

    #[test]
    fn nested_values_are_kept_raw() {
        let f = front("---\nconditions:\n  - field: transcript\n    operator: not_contains\nmetadata:\n  author: x\n---\n");
        assert_eq!(
            f.get("conditions"),
            Some(&Value::Nested(
                "- field: transcript\n  operator: not_contains".into()
            ))
        );
        assert_eq!(f.get("metadata"), Some(&Value::Nested("author: x".into())));
    }

    #[test]
    fn strange_lines_become_problems() {
        let f = front("---\nname: x\nthis is not yaml\nname: y\n---\n");
        assert_eq!(f.text("name"), Some("x"));
        assert_eq!(f.problems.len(), 2, "{:?}", f.problems);
    }

    #[test]
    fn empty_values() {
        let f = front("---\nglobs:\nalwaysApply: true\n---\n");
        assert_eq!(f.text("globs"), None);
        assert_eq!(f.list("globs"), Some(vec![]));
        assert_eq!(f.flag("alwaysApply"), Some(true));
    }

    #[test]
    fn strict_yaml_reads_what_the_hand_reader_got_wrong() {
        // Block scalars with a keep indicator, a quoted key, a flow
        // sequence over lines, an anchor and its alias, comments.
        let f = front(concat!(
            "---\n",
            "\"name\": deploy # the skill's name\n",
            "description: >-\n",
            "  Deploy the service\n",
            "  and roll back.\n",
            "tags: [a,\n",
            "  \"b, c\"]\n",
            "base: &who Acme\n",
            "author: *who\n",
            "# a comment line\n",
            "note: |+\n",
            "  kept\n",
            "\n",
            "---\n",
        ));
        assert_eq!(f.yaml_error, None, "{:?}", f.problems);
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        assert_eq!(f.text("name"), Some("deploy"));
        assert_eq!(
            f.text("description"),
            Some("Deploy the service and roll back.")
        );
        assert_eq!(f.list("tags").unwrap(), ["a", "b, c"]);
        assert_eq!(f.text("author"), Some("Acme"));
        assert_eq!(f.get("note"), Some(&Value::Text("kept\n\n".into())));
    }

    #[test]
    fn what_strict_yaml_refuses_is_read_leniently_and_located() {
        let text = "---\ndescription: Go rules\nglobs: **/*\n---\nbody\n";
        let document = split(text);
        let f = &document.frontmatter;
        assert_eq!(f.text("globs"), Some("**/*"));
        let error = f.yaml_error.as_ref().expect("strict YAML refuses `**/*`");
        assert_eq!((error.line, error.column), (3, 8), "{error:?}");
        assert_eq!(&text[error.offset..error.offset + 4], "**/*");
        let bom = format!("\u{FEFF}{text}");
        let error = split(&bom).frontmatter.yaml_error.expect("refused");
        assert_eq!(&bom[error.offset..error.offset + 4], "**/*");
    }

    #[test]
    fn numbers_and_flags_stay_as_written() {
        let f = front("---\nversion: 01.10\nalwaysApply: yes\n---\n");
        assert_eq!(f.text("version"), Some("01.10"));
        assert_eq!(f.flag("alwaysApply"), Some(true));
    }

    #[test]
    fn nested_aliases_are_not_expanded() {
        let mut text = String::from("---\nname: s\nk0: &a0 [x]\n");
        for i in 1..40 {
            text.push_str(&format!("k{i}: &a{i} [*a{}, *a{}]\n", i - 1, i - 1));
        }
        text.push_str("---\n");
        let started = std::time::Instant::now();
        let f = front(&text);
        assert!(started.elapsed().as_secs() < 5);
        assert_eq!(f.text("name"), Some("s"));
        let error = f.yaml_error.expect("not read strictly");
        assert!(error.message.contains("aliases"), "{error:?}");
    }
}

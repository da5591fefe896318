//! When imported text applies: the conditions the sources give (globs, a
//! description the model reads, a folder), written as `applies …`.
//!
//! Every glob is checked the way the language checks it
//! ([`crate::lower::validate_glob`]), so that a manifest never holds one it
//! would refuse. A glob written from the workspace's root (`/src/**`,
//! `./src/**`) means the same without its prefix, and is written so, with a
//! comment. Any other glob the language refuses is kept in a `# not mapped`
//! comment, and the text applies to the source's other globs. A text left
//! with none is not made always-on, which would send a narrowly scoped text
//! with every request: it applies [`when_asked`].

use super::emit::Activation;
use super::Note;
use crate::limits::{MAX_DESCRIPTION_CHARS, MAX_LIST_ITEMS};
use crate::lower::validate_glob;

/// A source's globs, as the language can say them.
#[derive(Debug, Default)]
pub(super) struct Globs {
    /// The globs `applies to files` takes, in the source's order, each once.
    pub globs: Vec<String>,
    /// Comment lines: globs rewritten to be relative to the workspace.
    pub comments: Vec<String>,
    /// Globs the language refuses, or past its limit, each a note.
    pub notes: Vec<Note>,
}

impl Globs {
    /// `applies to files [...]`, when a glob is left.
    pub(super) fn activation(&self) -> Option<Activation> {
        (!self.globs.is_empty()).then(|| Activation::Files(self.globs.clone()))
    }

    /// The globs, for a comment: `` `a`, `b` ``.
    pub(super) fn listed(&self) -> String {
        quote_all(&self.globs)
    }
}

/// Reads the globs of `key` in `file`'s frontmatter (`source`, already
/// split on commas and unquoted).
pub(super) fn globs(file: &str, key: &str, source: &[String]) -> Globs {
    let mut out = Globs::default();
    for written in source {
        let written = written.trim();
        if written.is_empty() {
            continue;
        }
        let relative = written.trim_start_matches("./").trim_start_matches('/');
        if let Err(reason) = validate_glob(relative) {
            out.notes.push(
                Note::new(
                    file,
                    "glob",
                    format!("`{key}` glob `{written}` is not one the language reads: {reason}"),
                )
                .detail("match the files it meant with a glob of `applies to files` by hand"),
            );
            continue;
        }
        if relative != written {
            out.comments.push(format!(
                "`{written}` is written `{relative}`: globs are relative to the workspace"
            ));
        }
        if !out.globs.iter().any(|glob| glob == relative) {
            out.globs.push(relative.to_string());
        }
    }
    if out.globs.len() > MAX_LIST_ITEMS {
        let rest = out.globs.split_off(MAX_LIST_ITEMS);
        out.notes.push(
            Note::new(
                file,
                "glob",
                format!(
                    "`{key}` has {} globs, over the language's {MAX_LIST_ITEMS}; the text applies to the first {MAX_LIST_ITEMS}",
                    MAX_LIST_ITEMS + rest.len()
                ),
            )
            .detail(format!("not mapped: {}", quote_all(&rest))),
        );
    }
    out
}

/// The glob for every file under `folder`, its characters that globs read
/// as patterns matched literally: `web` → `web/**`, `a[1]` → `a[[]1[]]/**`.
pub(super) fn under_folder(folder: &str) -> String {
    let mut glob = String::with_capacity(folder.len() + 3);
    for c in folder.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}') {
            glob.push('[');
            glob.push(c);
            glob.push(']');
        } else {
            glob.push(c);
        }
    }
    glob.push_str("/**");
    glob
}

/// A description the model reads to decide whether to ask for a text, as
/// the language takes it: within its length limit, cut at a word with a
/// note when the source's is longer.
pub(super) fn description(file: &str, text: &str) -> (String, Option<Note>) {
    let text = text.trim();
    if text.chars().count() <= MAX_DESCRIPTION_CHARS {
        return (text.to_string(), None);
    }
    let end = text
        .char_indices()
        .nth(MAX_DESCRIPTION_CHARS - 1)
        .map_or(text.len(), |(at, _)| at);
    let cut = text[..end]
        .rfind(char::is_whitespace)
        .filter(|&at| at > end / 2)
        .unwrap_or(end);
    let kept = format!("{}…", text[..cut].trim_end());
    let note = Note::new(
        file,
        "description",
        format!(
            "the description is {} characters long, over the language's {MAX_DESCRIPTION_CHARS} for `applies on request`; it is cut",
            text.chars().count()
        ),
    )
    .detail(super::shorten(&text[cut..]));
    (kept, Some(note))
}

/// When someone asks for the text: the model, by its description, when it
/// has one (`on request`), else a person invoking it by `name` (`on
/// command`).
pub(super) fn when_asked(
    file: &str,
    name: &str,
    description: Option<&str>,
    notes: &mut Vec<Note>,
) -> Activation {
    match description.map(|text| self::description(file, text)) {
        Some((description, cut)) => {
            notes.extend(cut);
            Activation::Request(description)
        }
        None => Activation::Command(name.to_string()),
    }
}

/// `` `a`, `b` ``.
pub(super) fn quote_all(globs: &[String]) -> String {
    globs
        .iter()
        .map(|glob| format!("`{glob}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| item.to_string()).collect()
    }

    #[test]
    fn valid_globs_are_kept_in_order_once() {
        let read = globs(
            "r.mdc",
            "globs",
            &strings(&["**/*.ts", " src/**/*.{ts,tsx} ", "", "**/*.ts", "Makefile"]),
        );
        assert_eq!(read.globs, ["**/*.ts", "src/**/*.{ts,tsx}", "Makefile"]);
        assert!(read.notes.is_empty() && read.comments.is_empty());
        assert_eq!(
            read.activation(),
            Some(Activation::Files(read.globs.clone()))
        );
    }

    #[test]
    fn globs_from_the_root_lose_their_prefix_with_a_comment() {
        let read = globs("r.mdc", "globs", &strings(&["/src/**", "./docs/*.md"]));
        assert_eq!(read.globs, ["src/**", "docs/*.md"]);
        assert_eq!(read.comments.len(), 2);
        assert!(read.comments[0].contains("`/src/**` is written `src/**`"));
    }

    #[test]
    fn a_glob_the_language_refuses_is_noted_not_dropped() {
        let read = globs("r.mdc", "globs", &strings(&["src/[a", "**/*.rs"]));
        assert_eq!(read.globs, ["**/*.rs"]);
        assert_eq!(read.notes.len(), 1);
        assert_eq!(read.notes[0].category, "glob");
        assert!(read.notes[0].message.contains("`src/[a`"));

        let none = globs("r.mdc", "globs", &strings(&["{a,b"]));
        assert!(none.globs.is_empty());
        assert_eq!(none.activation(), None);
        assert_eq!(none.notes.len(), 1);
    }

    #[test]
    fn globs_past_the_limit_are_noted() {
        let many: Vec<String> = (0..MAX_LIST_ITEMS + 2)
            .map(|n| format!("f{n}.rs"))
            .collect();
        let read = globs("r.mdc", "globs", &many);
        assert_eq!(read.globs.len(), MAX_LIST_ITEMS);
        assert_eq!(read.notes.len(), 1);
        assert!(read.notes[0]
            .detail
            .as_deref()
            .is_some_and(|detail| detail.contains("f65.rs")));
    }

    #[test]
    fn a_folder_glob_matches_its_files_and_no_others() {
        for (folder, inside, outside) in [
            ("web", "web/src/app.ts", "webapp/x.ts"),
            ("a[1]/{x,y}", "a[1]/{x,y}/f.md", "a1/x/f.md"),
            ("what?*", "what?*/deep/f", "whatX1/f"),
        ] {
            let glob = under_folder(folder);
            assert_eq!(validate_glob(&glob), Ok(()), "{glob}");
            let matcher = crate::glob::Glob::new(&glob).unwrap();
            assert!(matcher.is_match(inside), "{glob} ∌ {inside}");
            assert!(!matcher.is_match(outside), "{glob} ∋ {outside}");
        }
    }

    #[test]
    fn long_descriptions_are_cut_at_a_word_with_a_note() {
        let (short, note) = description("r.mdc", "  Go conventions.  ");
        assert_eq!((short.as_str(), note), ("Go conventions.", None));

        let long = "word ".repeat(400);
        let (cut, note) = description("r.mdc", &long);
        assert!(cut.chars().count() <= MAX_DESCRIPTION_CHARS);
        assert!(cut.ends_with("word…"), "{cut}");
        assert_eq!(note.map(|note| note.category), Some("description"));
    }
}

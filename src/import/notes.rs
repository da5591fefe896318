//! Helpers the format importers share: the notes for what a source says
//! beyond the language (renamed names, unmapped frontmatter, package
//! metadata, tool lists), and the small readings of paths and bodies every
//! importer needs. One place, so every importer words them the same way.

use crate::config::Config;

use super::emit::{self, Draft};
use super::{frontmatter, Failure, InputFile, Note};

use std::collections::BTreeMap;

/// The note for a name the language writes differently: reported, never
/// silently changed.
pub(crate) fn renamed(file: &str, what: &str, written: &str, name: &str) -> Note {
    Note::new(
        file,
        "name",
        format!("the {what} `{written}` is written `{name}`: names are lowercase kebab-case in the language"),
    )
}

/// Skills the sources say are always loaded, by skill folder, with why.
pub(crate) type AlwaysLoaded = BTreeMap<String, String>;

/// Parses JSON, or says which file is not JSON.
pub(super) fn json(file: &InputFile) -> Result<serde_json::Value, Failure> {
    serde_json::from_str(&file.text).map_err(|error| Failure {
        file: file.path.clone(),
        message: format!("not valid JSON: {error}"),
    })
}

/// The folder of a relative path (`""` at the top).
pub(super) fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The name of a file without its folder and extension.
pub(super) fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split_once('.').map_or(name, |(stem, _)| stem)
}

/// Frontmatter keys that describe a package rather than what it adds to a
/// prompt; they are noted together, in one line per file.
const METADATA_KEYS: &[&str] = &[
    "author",
    "color",
    "compatibility",
    "homepage",
    "icon",
    "keywords",
    "license",
    "metadata",
    "repository",
    "tags",
    "version",
];

/// Notes for what a file's frontmatter holds beyond `mapped`: the reader's
/// problems, package metadata in one note, every other key in its own.
pub(crate) fn frontmatter_notes(
    file: &str,
    front: &frontmatter::Frontmatter,
    mapped: &[&str],
) -> Vec<Note> {
    let mut notes: Vec<Note> = front
        .problems
        .iter()
        .map(|problem| Note::new(file, "frontmatter", problem.clone()))
        .collect();
    let mut metadata = Vec::new();
    for entry in front.unmapped(mapped) {
        let value = entry.value.display();
        if METADATA_KEYS.contains(&entry.key.as_str()) {
            metadata.push((entry.key.clone(), value));
        } else if value.contains('\n') || value.len() > 80 {
            notes.push(
                Note::new(
                    file,
                    "field",
                    format!("`{}` has no counterpart in the language", entry.key),
                )
                .detail(value),
            );
        } else {
            notes.push(Note::new(
                file,
                "field",
                format!(
                    "`{}: {value}` has no counterpart in the language",
                    entry.key
                ),
            ));
        }
    }
    if !metadata.is_empty() {
        notes.push(metadata_note(file, metadata));
    }
    notes
}

/// One note for a file's package metadata (homepage, keywords, …), which
/// describes the package and adds nothing to a prompt.
pub(crate) fn metadata_note(file: &str, entries: Vec<(String, String)>) -> Note {
    let keys: Vec<String> = entries.iter().map(|(key, _)| format!("`{key}`")).collect();
    let detail: Vec<String> = entries
        .iter()
        .map(|(key, value)| format!("{key}: {}", shorten(value)))
        .collect();
    Note::new(
        file,
        "metadata",
        format!("package metadata {}", keys.join(", ")),
    )
    .detail(detail.join("\n"))
}

/// A value cut to a few hundred characters for a comment; the source file
/// named above it has the rest.
pub(crate) fn shorten(value: &str) -> String {
    const LIMIT: usize = 300;
    if value.len() <= LIMIT {
        return value.to_string();
    }
    let cut = crate::source::floor_char_boundary(value, LIMIT);
    format!(
        "{}… ({} more bytes in the source)",
        &value[..cut],
        value.len() - cut
    )
}

/// The comment for a list of tools (`allowed-tools`, `tools`): the names as
/// the language spells tools, and which the workspace does not declare.
/// Each is recorded in the draft's vocabulary for the report.
pub(crate) fn tool_vocabulary(
    key: &str,
    tools: &[String],
    config: &Config,
    draft: &mut Draft,
) -> String {
    let mut names: Vec<String> = Vec::new();
    for tool in tools {
        let base = tool.split('(').next().unwrap_or(tool).trim();
        if base.is_empty() || base == "*" {
            continue;
        }
        let name = emit::tool_name(base);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let undeclared: Vec<String> = names
        .iter()
        .filter(|name| !config.tools.contains_key(*name))
        .map(|name| format!("`{name}`"))
        .collect();
    for name in &names {
        draft
            .vocabulary
            .insert(name.clone(), config.tools.contains_key(name));
    }
    let spelled: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
    let mut comment = format!(
        "{key}: {}\ntool vocabulary: {}",
        tools.join(", "),
        spelled.join(", ")
    );
    if !undeclared.is_empty() {
        comment.push_str(&format!(
            "\nnot declared in the workspace: {}",
            undeclared.join(", ")
        ));
    }
    comment
}

/// The body as imported: the text after the frontmatter, without the line
/// breaks that only separate it from the frontmatter or end the file.
pub fn body_text(body: &str) -> String {
    body.trim_start_matches(['\n', '\r'])
        .trim_end_matches(['\n', '\r'])
        .to_string()
}

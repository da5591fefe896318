//! A source folder → its candidate files in memory.
//!
//! Only files an importer could read (`.md`, `.mdc`, `.json`) are read;
//! everything else is listed as skipped without being opened, so images and
//! binaries in a real repository cost nothing and cannot fail the import.
//! Version-control and dependency folders are not walked. A symbolic link
//! is followed only where it leads inside the source folder: one that leads
//! out (its target's text would end up in a manifest) or loops is listed
//! as skipped ([`crate::fs::Root::walk`]).
//!
//! Attribution: when the source folder or a folder above it holds a
//! `README.md` with a Markdown table whose header names `folder` and
//! `licence` (or `license`) columns — as `../shared/corpus/README.md`
//! does — the row for each imported folder is kept, so every manifest
//! carries its origin and licence.

use std::path::Path;

use super::{Failure, Skipped};
use crate::fs::{self, Root};
use crate::limits::files::{MANIFEST, README};

/// Folders never walked: they hold no contributors, and can be huge.
const NOT_WALKED: &[&str] = &[".git", "node_modules", "target", ".venv", "__pycache__"];

/// A source folder (or file), read.
#[derive(Debug, Clone, Default)]
pub struct SourceTree {
    /// The folder's name, as reports and comments call the source.
    pub name: String,
    /// Candidate files, in path order.
    pub files: Vec<InputFile>,
    pub skipped: Vec<Skipped>,
    pub failures: Vec<Failure>,
    /// Recorded origins, by folder relative to the source (`""`: all of it).
    pub attribution: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFile {
    /// Relative to the source folder, with `/` separators.
    pub path: String,
    pub text: String,
}

impl SourceTree {
    /// A source made of files given in memory, for tests and tools.
    pub fn from_files<'a>(name: &str, files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut files: Vec<InputFile> = files
            .into_iter()
            .map(|(path, text)| InputFile {
                path: path.to_string(),
                text: text.to_string(),
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        SourceTree {
            name: name.to_string(),
            files,
            ..SourceTree::default()
        }
    }

    /// The recorded origins that cover the folder `path`: the closest row
    /// at or above it, or else every row below it.
    pub fn attribution_for(&self, path: &str) -> Vec<&str> {
        let above = self
            .attribution
            .iter()
            .filter(|(folder, _)| is_within(path, folder))
            .max_by_key(|(folder, _)| folder.len());
        if let Some((_, note)) = above {
            return vec![note.as_str()];
        }
        self.attribution
            .iter()
            .filter(|(folder, _)| is_within(folder, path))
            .map(|(_, note)| note.as_str())
            .collect()
    }
}

/// Whether `path` is `folder` or inside it (`""` holds everything).
fn is_within(path: &str, folder: &str) -> bool {
    folder.is_empty()
        || path == folder
        || path
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Whether an importer could read a file with this name.
fn is_candidate(name: &str) -> bool {
    [".md", ".mdc", ".json"]
        .iter()
        .any(|extension| name.to_ascii_lowercase().ends_with(extension))
}

/// Reads a source folder, or a single file as a source of one.
pub fn read_tree(path: &Path) -> Result<SourceTree, fs::Error> {
    let metadata = std::fs::metadata(path).map_err(|error| fs::cannot("read", path, error))?;
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut tree = SourceTree::default();
    let root = if metadata.is_dir() {
        walk(&absolute, &mut tree)?;
        absolute.clone()
    } else {
        let parent = absolute.parent().map(Path::to_path_buf).unwrap_or_default();
        let root = plugin_root_above(&parent).unwrap_or(parent);
        let opened = Root::open(&root)?;
        let relative = |path: &Path| {
            path.strip_prefix(&root)
                .map(|relative| relative.to_string_lossy().replace('\\', "/"))
                .unwrap_or_else(|_| file_name(path))
        };
        read_file(&opened, &absolute, &relative(&absolute), &mut tree);
        // The manifests that give the file its meaning (which plugin it
        // belongs to, what it is called), and nothing else of the folder.
        for manifest in ROOT_MANIFESTS {
            let path = root.join(manifest);
            if path != absolute && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                read_file(&opened, &path, &relative(&path), &mut tree);
            }
        }
        root
    };
    tree.name = file_name(&root);
    tree.files.sort_by(|a, b| a.path.cmp(&b.path));
    tree.attribution = attribution(&root);
    Ok(tree)
}

/// The folder `contrib check` checks a source file in: the plugin or
/// project it belongs to (as for a file given alone), or else, for a
/// `SKILL.md`, the folder that holds its skill's folder (a skill's name is
/// checked against its folder's), and the file's own folder for any other.
pub fn source_root(file: &Path) -> std::path::PathBuf {
    let absolute = match file.parent() {
        Some(folder) => std::fs::canonicalize(folder)
            .map(|folder| folder.join(file.file_name().unwrap_or_default()))
            .unwrap_or_else(|_| file.to_path_buf()),
        None => file.to_path_buf(),
    };
    let parent = absolute.parent().map(Path::to_path_buf).unwrap_or_default();
    if let Some(root) = plugin_root_above(&parent) {
        return root;
    }
    let is_skill = absolute.file_name().is_some_and(|name| name == "SKILL.md");
    match parent.parent() {
        Some(above) if is_skill => above.to_path_buf(),
        _ => parent,
    }
}

/// The files at a plugin's root that say it is one.
const ROOT_MANIFESTS: &[&str] = &[
    "plugin.json",
    ".claude-plugin/plugin.json",
    ".codex-plugin/plugin.json",
    ".cursor-plugin/plugin.json",
    ".kimi-plugin/plugin.json",
    "gemini-extension.json",
];

/// What a project's top holds, for a file in its `.github/`, `.claude/` or
/// `.cursor/` folder.
const PROJECT_FOLDERS: &[&str] = &[".github", ".claude", ".cursor"];

/// The plugin or project a file in `folder` belongs to: the nearest folder
/// at or above it that holds a plugin manifest, or whose `.github/`,
/// `.claude/` or `.cursor/` the file is in. The search stops at a
/// repository's top (a `.git` folder).
fn plugin_root_above(folder: &Path) -> Option<std::path::PathBuf> {
    for candidate in folder.ancestors() {
        let holds = |name: &str| std::fs::symlink_metadata(candidate.join(name)).is_ok();
        if ROOT_MANIFESTS.iter().any(|manifest| holds(manifest)) {
            return Some(candidate.to_path_buf());
        }
        let inside_tool_folder = PROJECT_FOLDERS
            .iter()
            .any(|tool| holds(tool) && folder.starts_with(candidate.join(tool)));
        if inside_tool_folder {
            return Some(candidate.to_path_buf());
        }
        if holds(".git") {
            return None;
        }
    }
    None
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "source".to_string())
}

fn walk(folder: &Path, tree: &mut SourceTree) -> Result<(), fs::Error> {
    let root = Root::open(folder)?;
    let walked = root.walk(NOT_WALKED, |_| true);
    for path in walked.files {
        let relative = path
            .strip_prefix(folder)
            .map(|relative| relative.to_string_lossy().replace('\\', "/"))
            .unwrap_or_else(|_| file_name(&path));
        read_file(&root, &path, &relative, tree);
    }
    for skipped in walked.skipped {
        let file = skipped
            .path
            .strip_prefix(folder)
            .map(|relative| relative.to_string_lossy().replace('\\', "/"))
            .unwrap_or_else(|_| skipped.path.display().to_string());
        tree.skipped.push(Skipped {
            file,
            reason: skipped.reason,
        });
    }
    Ok(())
}

/// Why a file of another format is not read: it holds no contributor, so
/// nothing is left out of a check by not reading it.
pub(super) const NOT_A_CANDIDATE: &str =
    "not a contributor format (only `.md`, `.mdc` and `.json` are read)";

fn read_file(root: &Root, path: &Path, relative: &str, tree: &mut SourceTree) {
    if !is_candidate(relative) {
        tree.skipped.push(Skipped {
            file: relative.to_string(),
            reason: NOT_A_CANDIDATE.into(),
        });
        return;
    }
    let fail = |message: String| Failure {
        file: relative.to_string(),
        message,
    };
    let bytes = match root.read(path, MANIFEST) {
        Ok(bytes) => bytes,
        Err(error) => {
            tree.failures.push(fail(error.to_string()));
            return;
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) => tree.files.push(InputFile {
            path: relative.to_string(),
            text,
        }),
        Err(error) => tree.failures.push(fail(format!(
            "the file is not valid UTF-8 at byte {}",
            error.utf8_error().valid_up_to()
        ))),
    }
}

/// The attribution rows that apply under `root`, found in the nearest
/// `README.md` at or above it that records them.
fn attribution(root: &Path) -> Vec<(String, String)> {
    for folder in root.ancestors() {
        let Some(text) = read_readme(&folder.join("README.md")) else {
            continue;
        };
        let rows = attribution_table(&text);
        if rows.is_empty() {
            continue;
        }
        let Ok(inside) = root.strip_prefix(folder) else {
            continue;
        };
        let inside = inside.to_string_lossy().replace('\\', "/");
        return rows
            .into_iter()
            .filter_map(|(row_folder, note)| relative_to(&row_folder, &inside).map(|f| (f, note)))
            .collect();
    }
    Vec::new()
}

/// A `README.md` that is a regular file (never a link, which could lead
/// to any file's text or to `/dev/zero`), within the size limit.
fn read_readme(path: &Path) -> Option<String> {
    let metadata = std::fs::symlink_metadata(path).ok()?;
    if !metadata.file_type().is_file() {
        return None;
    }
    fs::read_text(path, README).ok()
}

/// A row's folder (relative to the README) seen from the source folder
/// `inside` (also relative to the README): `""` when the row covers the
/// whole source, `None` when it is elsewhere.
fn relative_to(row_folder: &str, inside: &str) -> Option<String> {
    if is_within(inside, row_folder) {
        return Some(String::new());
    }
    if inside.is_empty() {
        return Some(row_folder.to_string());
    }
    row_folder
        .strip_prefix(inside)
        .and_then(|rest| rest.strip_prefix('/'))
        .map(str::to_string)
}

/// `| folder | repository | commit | licence |` rows → (folder, "repository
/// …, commit …, licence …").
pub fn attribution_table(text: &str) -> Vec<(String, String)> {
    let mut header: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let cells: Vec<String> = line
            .trim_matches('|')
            .split('|')
            .map(|cell| cell.trim().replace('`', ""))
            .collect();
        let Some(columns) = &header else {
            let lower: Vec<String> = cells.iter().map(|c| c.to_ascii_lowercase()).collect();
            let named = lower.first().is_some_and(|c| c == "folder")
                && lower.iter().any(|c| c == "licence" || c == "license");
            if named {
                header = Some(lower);
            }
            continue;
        };
        if cells
            .iter()
            .all(|cell| cell.chars().all(|c| c == '-' || c == ':'))
        {
            continue;
        }
        let Some(folder) = cells.first() else {
            continue;
        };
        let note: Vec<String> = columns
            .iter()
            .zip(&cells)
            .skip(1)
            .filter(|(_, value)| !value.is_empty())
            .map(|(column, value)| format!("{column} {value}"))
            .collect();
        rows.push((folder.trim_end_matches('/').to_string(), note.join(", ")));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    const README: &str = "# Corpus\n\n| folder | repository | commit | licence |\n|---|---|---|---|\n| `skills` | acme/skills | `abc` | MIT |\n| `wild/one` | acme/one | `def` | Apache-2.0 |\n\nText.\n";

    #[test]
    fn reads_the_attribution_table() {
        assert_eq!(
            attribution_table(README),
            [
                (
                    "skills".to_string(),
                    "repository acme/skills, commit abc, licence MIT".to_string()
                ),
                (
                    "wild/one".to_string(),
                    "repository acme/one, commit def, licence Apache-2.0".to_string()
                ),
            ]
        );
    }

    #[test]
    fn rows_are_seen_from_the_source_folder() {
        assert_eq!(relative_to("skills", "skills"), Some(String::new()));
        assert_eq!(relative_to("wild/one", "wild"), Some("one".into()));
        assert_eq!(relative_to("wild/one", "wild/one/sub"), Some(String::new()));
        assert_eq!(relative_to("skills", "wild"), None);
        assert_eq!(relative_to("skills", ""), Some("skills".into()));
    }

    #[test]
    fn attribution_for_a_unit() {
        let tree = SourceTree {
            attribution: vec![
                ("one".into(), "first".into()),
                ("two".into(), "second".into()),
            ],
            ..SourceTree::default()
        };
        assert_eq!(tree.attribution_for("one/plugin"), ["first"]);
        assert_eq!(tree.attribution_for(""), ["first", "second"]);
        assert!(tree.attribution_for("three").is_empty());
    }
}

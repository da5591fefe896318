//! Sources checked in place: what `contrib check DIR` reports on a folder
//! of skills and plugins with no manifest in it.

use std::path::{Path, PathBuf};

use super::detect::Layout;
use super::read::source_root;
use super::{import, read_tree, InputFile, Options, SourceTree};
use crate::config::Config;
use crate::diagnostic::Diagnostic;

/// One source file checked in place: its text and what is wrong with it.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Relative to the folder checked.
    pub path: String,
    pub text: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// The sources of a folder in the formats `contrib import` reads, checked
/// in place: every such file, with the diagnostics of its problems (the
/// same the import reports), located in the file. `None` when the folder
/// holds no source of those formats.
pub fn check_in_place(folder: &std::path::Path) -> Result<Option<Vec<Checked>>, crate::fs::Error> {
    Ok(check_tree(&read_tree(folder)?, &workspace(folder)))
}

/// The workspace configuration `contrib check` would find for a manifest
/// in `folder` (the nearest `contrib.toml` at or above it), which the
/// language's rules run under; the platform's when there is none or it
/// has errors (`contrib check` reports those on the file itself).
fn workspace(folder: &Path) -> Config {
    let absolute = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
    crate::config::discover(&absolute)
        .and_then(|path| Config::load(&path).ok())
        .filter(|(_, diagnostics)| !diagnostics.iter().any(Diagnostic::is_error))
        .map_or_else(Config::platform, |(config, _)| config)
}

/// One source file checked in place, as `contrib check` checks the folder
/// of the plugin it belongs to (see [`super::read::source_root`]), with
/// `open` — the texts an editor holds, by absolute path — read instead of
/// the files on disk. `None` when the file is not in a format `contrib
/// import` reads.
pub fn check_file_in_place(
    file: &Path,
    open: &[(PathBuf, String)],
) -> Result<Option<Vec<Diagnostic>>, crate::fs::Error> {
    let root = source_root(file);
    let Some(relative) = relative_to(&root, file) else {
        return Ok(None);
    };
    let text = open
        .iter()
        .find(|(path, _)| path == file)
        .map(|(_, text)| text.as_str())
        .unwrap_or_default();
    // Cheap first: a file that is no source is never read around.
    if Layout::new([relative.as_str()])
        .classify(&relative, text)
        .is_err()
    {
        return Ok(None);
    }
    let mut tree = read_tree(&root)?;
    for (path, text) in open {
        let Some(relative) = relative_to(&root, path) else {
            continue;
        };
        match tree.files.iter_mut().find(|file| file.path == relative) {
            Some(file) => file.text = text.clone(),
            None => tree.files.push(InputFile {
                path: relative,
                text: text.clone(),
            }),
        }
    }
    tree.files.sort_by(|a, b| a.path.cmp(&b.path));
    let checked = check_tree(&tree, &workspace(&root)).unwrap_or_default();
    Ok(Some(
        checked
            .into_iter()
            .find(|checked| checked.path == relative)
            .map(|checked| checked.diagnostics)
            .unwrap_or_default(),
    ))
}

/// `path` relative to `root` with `/` separators, both made absolute.
fn relative_to(root: &Path, path: &Path) -> Option<String> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let folder = path.parent()?;
    let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    let absolute = folder.join(path.file_name()?);
    let relative = absolute.strip_prefix(&root).ok()?;
    Some(relative.to_string_lossy().replace('\\', "/"))
}

/// What the check left out, each located where it was left out: files
/// that could not be read (too large, not UTF-8), links that lead out of
/// the folder, and texts dropped before the rules over a language limit.
fn left_out(tree: &SourceTree, imported: &super::Imported) -> Vec<(String, Diagnostic)> {
    let unread = tree.failures.iter().map(|failure| {
        (
            failure.file.clone(),
            format!("`{}` was not checked: {}", failure.file, failure.message),
            "could not be read",
            "make the file a regular UTF-8 text under 4 MiB, or split it",
        )
    });
    let unwalked = tree
        .skipped
        .iter()
        .filter(|skipped| skipped.reason != super::read::NOT_A_CANDIDATE)
        .map(|skipped| {
            (
                skipped.file.clone(),
                format!("`{}` was not checked: {}", skipped.file, skipped.reason),
                "not followed",
                "check the folder the link leads to on its own, or replace the link with the file",
            )
        });
    let dropped = imported.left_out.iter().map(|failure| {
        (
            failure.file.clone(),
            format!(
                "the rules about what `{}` adds were not run on it: {}",
                failure.file, failure.message
            ),
            "left out of the rules",
            "check the file's folder on its own",
        )
    });
    let mut found: Vec<(String, Diagnostic)> = Vec::new();
    for (file, message, label, help) in unread.chain(unwalked).chain(dropped) {
        if found
            .iter()
            .any(|(path, d)| *path == file && d.message == message)
        {
            continue;
        }
        let diagnostic = Diagnostic::new(&crate::codes::NOT_CHECKED, message)
            .primary(crate::source::Span::point(0), label)
            .help(help);
        found.push((file, diagnostic));
    }
    found
}

/// The sources of a tree, checked.
fn check_tree(tree: &SourceTree, config: &Config) -> Option<Vec<Checked>> {
    let layout = Layout::new(tree.files.iter().map(|file| file.path.as_str()));
    let sources: Vec<&InputFile> = tree
        .files
        .iter()
        .filter(|file| layout.classify(&file.path, &file.text).is_ok())
        .collect();
    if sources.is_empty() {
        return None;
    }
    let imported = import(tree, &Options::default(), config);
    let mut checked: Vec<Checked> = sources
        .iter()
        .map(|file| Checked {
            path: file.path.clone(),
            text: file.text.clone(),
            diagnostics: Vec::new(),
        })
        .collect();
    for problem in &imported.problems {
        let index = match checked.iter().position(|file| file.path == problem.file) {
            Some(index) => index,
            None => {
                let text = tree
                    .files
                    .iter()
                    .find(|file| file.path == problem.file)
                    .map_or(String::new(), |file| file.text.clone());
                checked.push(Checked {
                    path: problem.file.clone(),
                    text,
                    diagnostics: Vec::new(),
                });
                checked.len() - 1
            }
        };
        checked[index].diagnostics.push(problem.diagnostic());
    }
    let manifests: Vec<_> = imported
        .manifests
        .iter()
        .chain(&imported.oversized)
        .cloned()
        .collect();
    for (path, diagnostic) in super::located::diagnostics(tree, &manifests, config) {
        if let Some(file) = checked.iter_mut().find(|file| file.path == path) {
            file.diagnostics.push(diagnostic);
        }
    }
    for (path, diagnostic) in left_out(tree, &imported) {
        match checked.iter_mut().find(|file| file.path == path) {
            Some(file) => file.diagnostics.push(diagnostic),
            None => checked.push(Checked {
                path,
                text: String::new(),
                diagnostics: vec![diagnostic],
            }),
        }
    }
    checked.sort_by(|a, b| a.path.cmp(&b.path));
    for file in &mut checked {
        crate::check::apply_levels(&mut file.diagnostics, config);
        crate::diagnostic::sort(&mut file.diagnostics);
    }
    Some(checked)
}

//! Project instruction files: `AGENTS.md`, `CLAUDE.md` and `GEMINI.md` at
//! any depth, `.github/copilot-instructions.md`, Copilot's
//! `*.instructions.md` and Claude Code's `.claude/rules/*.md`.
//!
//! Each file becomes one `text`, in folder order (a folder's own files
//! before its subfolders'), which is the order agents concatenate them
//! from the project's top down. Files that always apply go to the `agent`
//! placement; files scoped to paths (`applyTo` other than `**`, `paths:`)
//! go to `conversation`, as glob-scoped Cursor rules do, with the scope in a
//! comment. A nested file's folder is noted too: agents read it when they
//! work there, which the language cannot say.
//!
//! `@path` lines (Gemini's and Claude Code's imports) are noted; an import
//! of a `SKILL.md` is how a project says a skill is always loaded, so it is
//! returned for the skill importer to turn into an `eager-load`.

use super::emit::{Content, Draft, DraftContributor};
use super::frontmatter::{self, Frontmatter};
use super::{body_text, folder_of, AlwaysLoaded, InputFile, Note};
use crate::ir::Placement;

/// Frontmatter keys this importer maps.
const MAPPED: &[&str] = &["applyTo", "paths", "description"];

/// Globs that mean every file.
const EVERYWHERE: &[&str] = &["**", "**/*", "*"];

/// A sort key putting a folder's files before its subfolders'.
pub fn folder_order(path: &str) -> Vec<(u8, String)> {
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop().unwrap_or_default();
    let mut key: Vec<(u8, String)> = parts
        .into_iter()
        .map(|part| (1, part.to_string()))
        .collect();
    key.push((0, file.to_string()));
    key
}

/// Imports one instruction file; returns the skills it imports.
/// `siblings` are the unit's instruction files, each imported on its own.
pub fn import(root: &str, file: &InputFile, siblings: &[&str], draft: &mut Draft) -> AlwaysLoaded {
    draft.read(&file.path);
    let document = frontmatter::split(&file.text);
    let front = &document.frontmatter;
    let body = body_text(document.body);
    let relative = relative_to(root, &file.path);
    let mut contributor = DraftContributor {
        activation: None,
        id: relative.to_string(),
        source: file.path.clone(),
        comments: vec![format!("from {}: {}", file.path, what(relative))],
        notes: super::frontmatter_notes(&file.path, front, MAPPED),
        placement: Placement::Agent,
        content: Content::Body(body.clone()),
    };
    let nested =
        Some(folder_of(relative)).filter(|folder| !folder.is_empty() && is_context_file(relative));
    if let Some(folder) = nested {
        contributor.comments.push(format!(
            "applies in `{folder}/`: agents read it when they work there"
        ));
    }
    if let Some(scope) = scope(front) {
        contributor.placement = Placement::Conversation;
        contributor
            .comments
            .push(format!("applies only to files matching {scope}"));
    }
    let always = imports(root, file, &body, siblings, &mut contributor);
    if body.trim().is_empty() {
        draft.notes.push(Note::new(
            &file.path,
            "empty",
            "the file has no text after its frontmatter, so it contributes nothing",
        ));
        draft.notes.extend(contributor.notes);
    } else {
        draft.contributors.push(contributor);
    }
    always
}

fn relative_to<'a>(root: &str, path: &'a str) -> &'a str {
    if root.is_empty() {
        return path;
    }
    path.strip_prefix(root)
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(path)
}

/// `AGENTS.md`, `CLAUDE.md` and `GEMINI.md` apply to the folder they are
/// in; Copilot's and Claude Code's rule files say where they apply.
fn is_context_file(relative: &str) -> bool {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    ["AGENTS.md", "CLAUDE.md", "GEMINI.md"].contains(&name)
}

fn what(relative: &str) -> &'static str {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    match name {
        "AGENTS.md" => "AGENTS.md, read by Codex and most coding agents",
        "CLAUDE.md" => "CLAUDE.md, read by Claude Code",
        "GEMINI.md" => "GEMINI.md, read by Gemini CLI",
        "copilot-instructions.md" => "repository instructions, read by GitHub Copilot",
        _ if name.ends_with(".instructions.md") => "Copilot path instructions",
        _ => "a Claude Code rule (`.claude/rules`)",
    }
}

/// The paths a file is limited to, when it is limited.
fn scope(front: &Frontmatter) -> Option<String> {
    let globs = front.list("applyTo").or_else(|| front.list("paths"))?;
    if globs.is_empty() || globs.iter().all(|glob| EVERYWHERE.contains(&glob.as_str())) {
        return None;
    }
    Some(
        globs
            .iter()
            .map(|glob| format!("`{glob}`"))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// `@path` lines: noted, and the skills among them returned.
fn imports(
    root: &str,
    file: &InputFile,
    body: &str,
    siblings: &[&str],
    contributor: &mut DraftContributor,
) -> AlwaysLoaded {
    let mut always = AlwaysLoaded::new();
    for line in body.lines() {
        let Some(target) = line.trim().strip_prefix('@') else {
            continue;
        };
        if target.contains(char::is_whitespace) || !target.ends_with(".md") {
            continue;
        }
        let resolved = resolve(folder_of(&file.path), target);
        if resolved.ends_with("/SKILL.md") || resolved == "SKILL.md" {
            let skill_folder = folder_of(&resolved).to_string();
            contributor.comments.push(format!(
                "imports the skill `{target}`: always loaded, so it is an `eager-load` below"
            ));
            always.insert(
                skill_folder,
                format!("imported by {}", relative_to(root, &file.path)),
            );
        } else if siblings.contains(&resolved.as_str()) {
            contributor.comments.push(format!(
                "imports `{target}`, whose text is its own `text` in this manifest"
            ));
        } else {
            contributor.notes.push(Note::new(
                &file.path,
                "import",
                format!(
                    "imports `{target}` into its text; that file's text is not in this manifest"
                ),
            ));
        }
    }
    always
}

/// `./a/../b.md` from folder `dir` → a path relative to the source.
fn resolve(dir: &str, target: &str) -> String {
    let mut parts: Vec<&str> = if dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_order_puts_files_before_subfolders() {
        let mut paths = vec![
            "b/AGENTS.md",
            "a/z/AGENTS.md",
            "AGENTS.md",
            "a/AGENTS.md",
            "CLAUDE.md",
        ];
        paths.sort_by_key(|path| folder_order(path));
        assert_eq!(
            paths,
            [
                "AGENTS.md",
                "CLAUDE.md",
                "a/AGENTS.md",
                "a/z/AGENTS.md",
                "b/AGENTS.md"
            ]
        );
    }

    #[test]
    fn resolves_imports() {
        assert_eq!(resolve("", "./skills/a/SKILL.md"), "skills/a/SKILL.md");
        assert_eq!(resolve("x/y", "../z.md"), "x/z.md");
    }
}

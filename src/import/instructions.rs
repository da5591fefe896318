//! Project instruction files: `AGENTS.md`, `CLAUDE.md` and `GEMINI.md` at
//! any depth, `.github/copilot-instructions.md`, Copilot's
//! `*.instructions.md` and Claude Code's `.claude/rules/*.md`.
//!
//! Each file becomes one `text` at `agent` placement, in folder order (a
//! folder's own files before its subfolders'), which is the order agents
//! concatenate them from the project's top down. When it applies is its
//! activation:
//!
//! - a file scoped to paths (Copilot's `applyTo`, Claude Code rules'
//!   `paths:`) applies to files matching them: `applies to files [...]`;
//! - a context file in a subfolder (`web/AGENTS.md`) applies to the files
//!   under its folder, `applies to files ["web/**"]`: Claude Code reads a
//!   nested `CLAUDE.md` when it works on files there, and the `AGENTS.md`
//!   convention is that the file nearest to what is edited governs it. One
//!   in the project's own tool folder (`.claude/CLAUDE.md`,
//!   `.agents/AGENTS.md`) is the project's, and always applies;
//! - a Copilot `*.instructions.md` without `applyTo` is applied only when a
//!   person attaches it: a command they invoke;
//! - anything else always applies.
//!
//! `@path` lines (Gemini's and Claude Code's imports) are noted; an import
//! of a `SKILL.md` is how a project says a skill is always loaded, so it is
//! returned for the skill importer to turn into an `eager-load`.

use super::activation;
use super::emit::{kebab, Activation, Content, Draft, DraftContributor};
use super::frontmatter::{self, Frontmatter};
use super::{body_text, folder_of, AlwaysLoaded, InputFile, Note};
use crate::ir::Placement;

/// Frontmatter keys this importer maps.
const MAPPED: &[&str] = &["applyTo", "paths", "description"];

/// Tool folders at a project's top whose context file is the project's own.
const PROJECT_FOLDERS: &[&str] = &[".claude", ".agents"];

/// A sort key putting a folder's files before its subfolders'.
pub(super) fn folder_order(path: &str) -> Vec<(u8, String)> {
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
pub(super) fn import(
    root: &str,
    file: &InputFile,
    siblings: &[&str],
    draft: &mut Draft,
) -> AlwaysLoaded {
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
    if let Some(description) = front.text("description") {
        contributor
            .comments
            .push(format!("description: {description}"));
    }
    contributor.activation = activation_of(&file.path, relative, front, &mut contributor);
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
fn is_context_file(name: &str) -> bool {
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

/// When the file applies, with comments and notes on `contributor`.
fn activation_of(
    path: &str,
    relative: &str,
    front: &Frontmatter,
    contributor: &mut DraftContributor,
) -> Option<Activation> {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    let stem = name
        .strip_suffix(".instructions.md")
        .unwrap_or(super::stem(name));
    let scoped = ["applyTo", "paths"]
        .into_iter()
        .find_map(|key| Some((key, front.list(key)?)));
    if let Some((key, written)) = scoped {
        let globs = activation::globs(path, key, &written);
        contributor.comments.extend(globs.comments.iter().cloned());
        contributor.notes.extend(globs.notes.iter().cloned());
        if let Some(by_files) = globs.activation() {
            contributor.comments.push(format!(
                "applies when files matching {} are in play (`{key}`)",
                globs.listed()
            ));
            return Some(by_files);
        }
        if !globs.notes.is_empty() {
            contributor.comments.push(format!(
                "no glob of `{key}` is one the language reads: it applies when asked for, never always"
            ));
            let name = kebab(stem, "instructions");
            let description = front.text("description");
            return Some(activation::when_asked(
                path,
                &name,
                description,
                &mut contributor.notes,
            ));
        }
    }
    let folder = folder_of(relative);
    if is_context_file(name) && PROJECT_FOLDERS.contains(&folder) {
        contributor.comments.push(format!(
            "the project's own, kept in its `{folder}/` folder: it always applies"
        ));
        return None;
    }
    if is_context_file(name) && !folder.is_empty() {
        contributor.comments.push(format!(
            "applies when files under `{folder}/` are in play: agents read it when they work there"
        ));
        return Some(Activation::Files(vec![activation::under_folder(folder)]));
    }
    if name.ends_with(".instructions.md") {
        contributor.comments.push(
            "no `applyTo`: Copilot applies it only when a person attaches it, a command they invoke"
                .into(),
        );
        return Some(Activation::Command(kebab(stem, "instructions")));
    }
    None
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

//! GitHub Copilot's own formats: custom agents (`*.agent.md`,
//! `.github/agents/`), prompt files (`*.prompt.md`), chat modes
//! (`*.chatmode.md`) and hooks (`"version": 1`).
//!
//! - A custom agent is a subagent as Claude Code's are: its name and
//!   description are what the main agent reads when it delegates, its body
//!   is the agent's own prompt (see [`super::claude_plugin::agent`]).
//! - A prompt file is a command a person runs as `/NAME`: its body joins
//!   the conversation then (see [`super::claude_plugin::command`]); its
//!   `${input:…}` and `${selection}` variables are noted, as `$ARGUMENTS`
//!   is.
//! - A chat mode is a mode a person selects: its body is told while the
//!   mode is on, `applies on command NAME`, and nothing is listed to the
//!   model, which never chooses a mode.
//! - Hooks follow Claude Code's mapping: a `sessionStart` command is an
//!   `eager-run` stub, every other event a note.

use super::emit::{kebab, Activation, Content, Draft, DraftContributor};
use super::frontmatter;
use super::{body_text, frontmatter_notes, stem, tool_vocabulary, InputFile, Note};
use crate::config::Config;
use crate::ir::Placement;

/// Chat mode keys this maps.
const CHAT_MODE_MAPPED: &[&str] = &["description", "tools", "name"];

/// A chat mode: a text told while a person has the mode on.
pub(super) fn chat_mode(file: &InputFile, config: &Config, draft: &mut Draft) {
    draft.read(&file.path);
    let document = frontmatter::split(&file.text);
    let front = &document.frontmatter;
    let written = front.text("name").unwrap_or(stem(&file.path));
    let name = kebab(written, "mode");
    let body = body_text(document.body);
    let mut notes = frontmatter_notes(&file.path, front, CHAT_MODE_MAPPED);
    let mut comments = vec![format!(
        "from {}: the Copilot chat mode `{written}`, told while a person has it selected",
        file.path
    )];
    if written != name {
        notes.push(super::renamed(&file.path, "chat mode", written, &name));
    }
    if let Some(description) = front.text("description") {
        comments.push(format!(
            "description (shown to the person, not the model): {description}"
        ));
    }
    if let Some(tools) = front.list("tools") {
        comments.push(tool_vocabulary("tools", &tools, config, draft));
    }
    if body.trim().is_empty() {
        notes.push(Note::new(&file.path, "empty", "the chat mode has no text"));
        draft.notes.append(&mut notes);
        return;
    }
    draft.contributors.push(DraftContributor {
        activation: Some(Activation::Command(name.clone())),
        id: format!("chatmode-{name}-prompt"),
        source: file.path.clone(),
        comments,
        notes,
        placement: Placement::Agent,
        content: Content::Body(body),
    });
}

/// Copilot prompt variables in a body: `${input:name}`, `${selection}`,
/// `${file}`, … Each is filled when the prompt runs.
pub(super) fn prompt_variables(body: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for piece in body.split("${").skip(1) {
        let Some((name, _)) = piece.split_once('}') else {
            continue;
        };
        let known = name.starts_with("input:")
            || [
                "selection",
                "selectedText",
                "file",
                "fileBasename",
                "fileDirname",
                "fileBasenameNoExtension",
                "workspaceFolder",
                "workspaceFolderBasename",
            ]
            .contains(&name);
        let written = format!("${{{name}}}");
        if known && !found.contains(&written) {
            found.push(written);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_prompt_variables() {
        assert_eq!(
            prompt_variables("Use ${input:topic:a topic} on ${selection}; ${HOME} is not one"),
            ["${input:topic:a topic}", "${selection}"]
        );
    }
}

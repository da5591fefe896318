//! A Claude Code plugin's subagents (`agents/*.md`) and commands
//! (`commands/*.md`): each listed to the main agent, and its body a text
//! that applies when it is invoked.

use super::super::emit::{kebab, Activation, Content, Draft, DraftContributor};
use super::super::{
    body_text, frontmatter, frontmatter_notes, stem, tool_vocabulary, InputFile, Note,
};
use crate::config::Config;
use crate::ir::Placement;

/// A subagent: its listing and its prompt.
pub(in crate::import) fn agent(file: &InputFile, config: &Config, draft: &mut Draft) {
    draft.read(&file.path);
    let document = frontmatter::split(&file.text);
    let front = &document.frontmatter;
    let written = front.text("name").unwrap_or(stem(&file.path));
    let name = kebab(written, "agent");
    let body = body_text(document.body);
    let mut notes = frontmatter_notes(&file.path, front, &["name", "description", "tools"]);
    let mut comments = Vec::new();
    if written != name {
        comments.push(format!(
            "the subagent `{written}` is named `{name}` in the language"
        ));
        notes.push(super::super::renamed(
            &file.path, "subagent", written, &name,
        ));
    }
    let what = if is_copilot_agent(&file.path) {
        "the GitHub Copilot custom agent"
    } else {
        "the subagent"
    };
    if let Some(tools) = front.list("tools") {
        comments.push(tool_vocabulary("tools", &tools, config, draft));
    }
    match front.text("description") {
        Some(description) => {
            draft.contributors.push(DraftContributor {
                activation: None,
                id: format!("agent-{name}"),
                source: file.path.clone(),
                comments: vec![format!(
                    "from {}: {what} `{name}`, as the main agent sees it when deciding to delegate",
                    file.path
                )],
                notes: std::mem::take(&mut notes),
                placement: Placement::Agent,
                content: Content::Text(format!("{name}: {description}")),
            });
        }
        None => notes.push(Note::new(
            &file.path,
            "listing",
            "the subagent has no description, so the main agent is not told about it",
        )),
    }
    let origin = format!(
        "from {}: {what} `{name}`'s own system prompt, told when the agent delegates to it",
        file.path
    );
    let prompt = Prompt {
        id: format!("agent-{name}-prompt"),
        origin,
        empty: "the subagent has no prompt",
        activation: Activation::Subagent(name.clone()),
    };
    push_prompt(draft, file, prompt, comments, notes, body);
}

/// Whether a subagent file is a Copilot custom agent.
fn is_copilot_agent(path: &str) -> bool {
    path.ends_with(".agent.md") || format!("/{path}").contains("/.github/agents/")
}

const COMMAND_MAPPED: &[&str] = &[
    "description",
    "allowed-tools",
    "argument-hint",
    "disable-model-invocation",
    "hide-from-slash-command-tool",
    "tools",
];

/// A slash command: its listing and its text.
pub(in crate::import) fn command(file: &InputFile, config: &Config, draft: &mut Draft) {
    draft.read(&file.path);
    let document = frontmatter::split(&file.text);
    let front = &document.frontmatter;
    let written = stem(&file.path);
    let name = kebab(written, "command");
    let body = body_text(document.body);
    let tool = if file.path.ends_with(".prompt.md") {
        "GitHub Copilot prompt file"
    } else if file.path.contains(".cursor/") {
        "Cursor"
    } else {
        "Claude Code"
    };
    let mut notes = frontmatter_notes(&file.path, front, COMMAND_MAPPED);
    notes.extend(expansions(&file.path, &body));
    let mut comments = Vec::new();
    if written != name {
        comments.push(format!(
            "the command `/{written}` is named `{name}` in the language"
        ));
    }
    for key in ["allowed-tools", "tools"] {
        if let Some(tools) = front.list(key) {
            comments.push(tool_vocabulary(key, &tools, config, draft));
        }
    }
    let hidden = front.flag("disable-model-invocation") == Some(true)
        || front.flag("hide-from-slash-command-tool") == Some(true);
    match (front.text("description"), hidden) {
        (Some(description), false) => {
            // `[message]` is a YAML list to the reader; the hint is what
            // was written either way.
            let hint = front.get("argument-hint").map(frontmatter::Value::display);
            let invocation = match hint.as_deref().map(str::trim) {
                Some(hint) if !hint.is_empty() => format!("/{written} {hint}"),
                _ => format!("/{written}"),
            };
            draft.contributors.push(DraftContributor {
                activation: None,
                id: format!("command-{name}"),
                source: file.path.clone(),
                comments: vec![format!(
                    "from {}: the {tool} command `/{written}`, as listed to the model",
                    file.path
                )],
                notes: Vec::new(),
                placement: Placement::Agent,
                content: Content::Text(format!("{invocation}: {description}")),
            });
        }
        (_, true) => comments.push("not listed to the model: the command hides itself".into()),
        (None, false) => comments.push("not listed to the model: no description".into()),
    }
    let prompt = Prompt {
        id: format!("command-{name}-prompt"),
        origin: format!(
            "from {}: the text `/{written}` adds to the conversation when a person runs it",
            file.path
        ),
        empty: "the command has no text",
        activation: Activation::Command(name.clone()),
    };
    push_prompt(draft, file, prompt, comments, notes, body);
}

/// Shell expansions and argument placeholders of a command's text.
fn expansions(file: &str, body: &str) -> Vec<Note> {
    let mut notes = Vec::new();
    let commands: Vec<String> = body
        .split("!`")
        .skip(1)
        .filter_map(|rest| {
            rest.split_once('`')
                .map(|(command, _)| format!("`{command}`"))
        })
        .collect();
    if !commands.is_empty() {
        notes.push(
            Note::new(
                file,
                "shell",
                format!(
                    "runs {} shell command(s) when invoked, whose output joins the text; the language cannot run them",
                    commands.len()
                ),
            )
            .detail(commands.join(", ")),
        );
    }
    let mut placeholders = ["$ARGUMENTS", "$1", "$2", "$3"]
        .into_iter()
        .filter(|placeholder| body.contains(placeholder))
        .map(str::to_string)
        .collect::<Vec<_>>();
    placeholders.extend(super::super::copilot::prompt_variables(body));
    if !placeholders.is_empty() {
        notes.push(Note::new(
            file,
            "arguments",
            format!(
                "takes the person's arguments ({}); the language has no variable for them, so they stay literal",
                placeholders.join(", ")
            ),
        ));
    }
    notes
}

/// A subagent's or command's prompt: a text told when it is invoked.
struct Prompt {
    id: String,
    /// The first comment: where the text comes from and what it is.
    origin: String,
    /// The note when there is no text.
    empty: &'static str,
    /// The invocation it waits for.
    activation: Activation,
}

/// Adds `body` as a text that applies on the prompt's invocation, or notes
/// that there is none.
fn push_prompt(
    draft: &mut Draft,
    file: &InputFile,
    prompt: Prompt,
    mut comments: Vec<String>,
    mut notes: Vec<Note>,
    body: String,
) {
    if body.trim().is_empty() {
        notes.push(Note::new(&file.path, "empty", prompt.empty));
        draft.notes.append(&mut notes);
        return;
    }
    comments.insert(0, prompt.origin);
    draft.contributors.push(DraftContributor {
        activation: Some(prompt.activation),
        id: prompt.id,
        source: file.path.clone(),
        comments,
        notes,
        placement: Placement::Agent,
        content: Content::Body(body),
    });
}

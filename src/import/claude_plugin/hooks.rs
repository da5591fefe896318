//! A Claude Code plugin's hooks (`hooks/*.json`, or a project's
//! `.claude/settings.json`): a `SessionStart` command becomes an
//! `eager-run` stub of [`HOOK_TOOL`], flagged for review; other events are
//! noted.

use serde_json::Value;

use super::super::emit::{kebab, Content, Draft, DraftContributor};
use super::super::{json, shorten, Failure, InputFile, Note};
use super::{display, unmapped_field, HOOK_TOOL};
use crate::ir::Placement;

/// `hooks/*.json` of a plugin, or a project's `.claude/settings.json`.
pub(in crate::import) fn hooks(file: &InputFile, draft: &mut Draft) -> Result<(), Failure> {
    let Value::Object(object) = json(file)? else {
        return Err(Failure {
            file: file.path.clone(),
            message: "a hooks or settings file must be a JSON object".into(),
        });
    };
    draft.read(&file.path);
    let description = object.get("description").and_then(Value::as_str);
    for (key, value) in &object {
        match key.as_str() {
            "hooks" => hook_events(file, description, value, draft),
            // The hooks file's format version; its description of itself
            // goes with each hook.
            "version" | "description" => {}
            "permissions" => draft.notes.push(
                Note::new(
                    &file.path,
                    "permissions",
                    "tool permissions: which tool calls run without asking; the language has no permissions",
                )
                .detail(shorten(&display(value))),
            ),
            key => draft.notes.push(unmapped_field(file, key, value)),
        }
    }
    Ok(())
}

/// `{ Event: [ { matcher, hooks: [handler] } | handler ] }`; `description`
/// is what the hooks file says about itself.
pub(super) fn hook_events(
    file: &InputFile,
    description: Option<&str>,
    hooks: &Value,
    draft: &mut Draft,
) {
    let Value::Object(events) = hooks else { return };
    for (event, groups) in events {
        let groups: Vec<&Value> = match groups {
            Value::Array(groups) => groups.iter().collect(),
            other => vec![other],
        };
        for group in groups {
            let matcher = group.get("matcher").and_then(Value::as_str);
            let handlers: Vec<&Value> = match group.get("hooks") {
                Some(Value::Array(handlers)) => handlers.iter().collect(),
                _ => vec![group],
            };
            for handler in handlers {
                hook(file, description, event, matcher, handler, draft);
            }
        }
    }
}

fn hook(
    file: &InputFile,
    description: Option<&str>,
    event: &str,
    matcher: Option<&str>,
    handler: &Value,
    draft: &mut Draft,
) {
    // Copilot's hooks say `bash` (and `powershell`) where Claude Code says
    // `command`.
    let command = ["command", "bash", "powershell"]
        .into_iter()
        .find_map(|key| handler.get(key).and_then(Value::as_str));
    let kind = handler
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("command");
    let session_start = event
        .replace(['_', '-'], "")
        .eq_ignore_ascii_case("sessionstart");
    let (Some(command), true, "command") = (command, session_start, kind) else {
        let what = match command {
            Some(command) => format!("runs `{command}`"),
            None => format!("is a `{kind}` hook"),
        };
        let why = if event.eq_ignore_ascii_case("UserPromptSubmit") {
            "before every turn; what it adds is only known by running it, so it has no `preface` here"
        } else {
            "the language has no hook events besides conversation start"
        };
        draft.notes.push(
            Note::new(
                &file.path,
                "hook",
                format!("a `{event}` hook {what}: {why}"),
            )
            .detail(shorten(&display(handler))),
        );
        return;
    };
    let mut comments = vec![format!(
        "from {}: a `{event}` hook{}",
        file.path,
        matcher.map_or(String::new(), |m| format!(" (matcher `{m}`)"))
    )];
    if let Some(description) = description {
        comments.push(format!("the hooks file says: {description}"));
    }
    comments.push(
        "REVIEW: this runs a shell command at every conversation start, on nobody's instruction."
            .into(),
    );
    comments.push(
        "REVIEW the budget too: it bounds the hook's output, known only when it runs; as imported it covers the call alone"
            .into(),
    );
    comments.push(format!(
        "`{HOOK_TOOL}` is undeclared on purpose, so `contrib check` refuses it (`unknown-tool`); declare it only with `effect = \"write\"`, which `eager-run-writes` refuses in turn"
    ));
    let settings: Vec<String> = handler
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| Some(key.as_str()) != command_key(handler) && key.as_str() != "type")
        .map(|(key, value)| format!("{key} {}", display(value)))
        .collect();
    if !settings.is_empty() {
        comments.push(format!("hook settings: {}", settings.join(", ")));
    }
    draft.contributors.push(DraftContributor {
        activation: None,
        id: format!("{}-hook", kebab(event, "session-start")),
        source: file.path.clone(),
        comments,
        notes: Vec::new(),
        placement: Placement::Conversation,
        content: Content::Run {
            tool: HOOK_TOOL.into(),
            arguments: vec![("command".into(), command.to_string())],
        },
    });
}

/// The key a hook handler's command is under.
fn command_key(handler: &Value) -> Option<&'static str> {
    ["command", "bash", "powershell"]
        .into_iter()
        .find(|key| handler.get(*key).is_some_and(Value::is_string))
}

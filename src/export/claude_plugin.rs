//! A Claude Code plugin: `.claude-plugin/plugin.json`, `skills/`,
//! `commands/`, `agents/` and `hooks/hooks.json`, each where Claude Code
//! looks for it by default.

use serde_json::{json, Value};

use super::{files, first_words, Out, SHELL_TOOL};
use crate::config::{Config, Effect};
use crate::ir::{Call, Plugin};

/// Writes `.claude-plugin/plugin.json`; returns the package's folder name.
/// Claude Code names a plugin by its kebab-case name; the scope, who
/// publishes it, is the `author`.
pub(super) fn manifest(plugin: &Plugin, out: &mut Out) -> String {
    let name = plugin.name.value.name.clone();
    let mut manifest: Vec<(&str, Value)> = vec![
        ("name", name.clone().into()),
        ("version", plugin.version.value.to_string().into()),
    ];
    if let Some(summary) = &plugin.summary {
        manifest.push(("description", summary.value.clone().into()));
    }
    manifest.push(("author", json!({ "name": plugin.name.value.scope.clone() })));
    out.files.insert(
        ".claude-plugin/plugin.json".into(),
        files::object(&manifest),
    );
    out.report.package = name.clone();
    name
}

/// `commands/NAME.md` for a text told when a person runs `/NAME`. The
/// language lists no command to the model, so the command hides itself
/// from the model (`disable-model-invocation`), and its description — which
/// Claude Code requires, and shows a person in `/help` — is the body's
/// first words.
pub(super) fn command(id: &str, command: &str, body: &str, out: &mut Out) -> bool {
    let description = first_words(body, 100).unwrap_or_else(|| format!("Run /{command}"));
    let text = files::markdown(
        &[
            ("description", files::yaml_string(&description)),
            ("disable-model-invocation", "true".into()),
        ],
        body,
    );
    let added = out.add(id, format!("commands/{command}.md"), text, "command");
    if added {
        out.enforce(
            id,
            format!("`disable-model-invocation: true`: only a person runs `/{command}`, as `applies on command` says"),
        );
        out.lose(
            id,
            "description",
            format!("the command's description, which Claude Code requires, is the body's first words: `{description}`"),
        );
    }
    added
}

/// `agents/NAME.md` for a subagent's prompt. Claude Code delegates by the
/// agent's description, which the language does not give: it is the
/// body's first words, reported.
pub(super) fn agent(id: &str, agent: &str, body: &str, out: &mut Out) -> bool {
    let description = first_words(body, 200).unwrap_or_else(|| format!("The {agent} subagent"));
    let text = files::markdown(
        &[
            ("name", agent.to_string()),
            ("description", files::yaml_string(&description)),
        ],
        body,
    );
    let added = out.add(id, format!("agents/{agent}.md"), text, "agent");
    if added {
        out.lose(
            id,
            "description",
            format!("the subagent's description, by which Claude Code decides to delegate, is the body's first words: `{description}`"),
        );
    }
    added
}

/// A `SessionStart` hook for an eager run of the shell tool that the
/// workspace declares read-only and ungated. A hook runs at every
/// conversation start with nobody asking, so an eager run that writes (or
/// waits for approval) is never one: it is left out, and the report says
/// so.
pub(super) fn eager_run(id: &str, call: &Call, config: &Config, out: &mut Out) {
    let tool = call.tool.value.as_str();
    let command = call
        .arguments
        .get("command")
        .and_then(|argument| match &argument.value.value {
            crate::ir::Value::String(command) => Some(command.clone()),
            _ => None,
        });
    let Some(command) = command.filter(|_| tool == SHELL_TOOL) else {
        out.lose(
            id,
            "eager-run",
            format!("it calls `{tool}`; a Claude Code `SessionStart` hook runs a shell command, not a tool (`{SHELL_TOOL} {{ command: \"…\" }}` would be one)"),
        );
        return;
    };
    let declared = config.tools.get(tool);
    let refused = match declared {
        None => Some("the workspace does not declare what it does".to_string()),
        Some(declared) if declared.effect == Effect::Write => Some("it writes".to_string()),
        Some(declared) if declared.gated => Some("it waits for a person's approval".to_string()),
        Some(_) => None,
    };
    if let Some(why) = refused {
        out.enforce(
            id,
            format!("not written as a `SessionStart` hook: {why}, and a hook would run it at every conversation start with nobody asking"),
        );
        return;
    }
    let path = "hooks/hooks.json".to_string();
    let hook = json!({ "type": "command", "command": command });
    match out.files.get(&path) {
        Some(existing) => {
            let mut hooks: Value = serde_json::from_str(existing).unwrap_or_else(|_| json!({}));
            if let Some(list) = hooks
                .pointer_mut("/hooks/SessionStart/0/hooks")
                .and_then(Value::as_array_mut)
            {
                list.push(hook);
            }
            out.files.insert(path.clone(), files::json(&hooks));
            out.report.written.push(super::Written {
                contributor: id.to_string(),
                file: path,
                what: "hook",
            });
        }
        None => {
            let hooks = json!({ "hooks": { "SessionStart": [ { "hooks": [hook] } ] } });
            out.add(id, path, files::json(&hooks), "hook");
        }
    }
}

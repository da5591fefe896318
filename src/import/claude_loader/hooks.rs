//! Claude Code's hooks, as its loader reads them: `hooks/hooks.json`, a
//! file `plugin.json`'s `hooks` names, the same object inline in
//! `plugin.json`, and a project's `.claude/settings.json`.
//!
//! `{ "hooks": { Event: [ { "matcher": "…", "hooks": [handler…] } ] } }`,
//! each handler `{ "type": "command" | "prompt" | "agent" | "http", … }`.
//! A hooks file that is not that object breaks the plugin's load. A
//! handler or group Claude Code cannot read is dropped, with a warning —
//! except under `PreToolUse` and `PermissionRequest`, where a dropped hook
//! may be the one that guards a permission, so the whole file is refused
//! and the error says so. An event it does not know is ignored.

use serde_json::{Map, Value};

use super::super::json_path::Step;
use super::super::problem::{Problem, ProblemKind};
use super::super::InputFile;
use super::{a_json, Judged};
use crate::diagnostic::Severity;

/// Claude Code's hook events.
pub(in crate::import) const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "PreSkillShellCommand",
];

/// Events whose hooks may guard a permission: one that cannot be read
/// refuses the file instead of being dropped.
const GUARDING: &[&str] = &["PreToolUse", "PermissionRequest"];

const BROKEN: &str = "so Claude Code does not load the plugin";

/// A hooks file (`hooks/hooks.json`, `.claude/settings.json`): its JSON,
/// its shape, then each event.
pub(in crate::import) fn hooks_file(file: &InputFile, settings: bool) -> Vec<Problem> {
    let mut judged = Judged::new(file);
    let Some(value) = judged.json(ProblemKind::InvalidHook, BROKEN) else {
        return judged.problems;
    };
    let Value::Object(object) = &value else {
        judged.push(
            ProblemKind::InvalidHook,
            &[],
            format!(
                "the hooks file is {}, not a JSON object, {BROKEN}",
                a_json(&value)
            ),
            "not an object",
            "write `{ \"hooks\": { \"SessionStart\": [ … ] } }`",
        );
        return judged.problems;
    };
    match object.get("hooks") {
        Some(hooks) => events(&mut judged, &[Step::Key("hooks")], hooks),
        // Settings hold much else; hooks are optional there.
        None if settings => {}
        None => {
            judged.push(
                ProblemKind::InvalidHook,
                &[],
                format!("the hooks file has no `hooks` object, {BROKEN}"),
                "no `hooks` here",
                "put the events under `\"hooks\"`: `{ \"hooks\": { \"Stop\": [ … ] } }`",
            );
        }
    }
    judged.problems
}

/// `plugin.json`'s `hooks` written inline: the hooks file's object.
pub(super) fn inline(file: &InputFile, at: &[Step<'_>], value: &Value) -> Vec<Problem> {
    let mut judged = Judged::new(file);
    match value.get("hooks") {
        Some(hooks) => {
            let path = [at, &[Step::Key("hooks")]].concat();
            events(&mut judged, &path, hooks);
        }
        None => events(&mut judged, at, value),
    }
    judged.problems
}

fn events(judged: &mut Judged, at: &[Step<'_>], hooks: &Value) {
    let Value::Object(events) = hooks else {
        judged.push(
            ProblemKind::InvalidHook,
            at,
            format!(
                "`hooks` is {}, not an object of events, {BROKEN}",
                a_json(hooks)
            ),
            "not an object",
            "write `\"hooks\": { \"SessionStart\": [ … ] }`",
        );
        return;
    };
    for (event, groups) in events {
        let path = [at, &[Step::Key(event)]].concat();
        if !EVENTS.contains(&event.as_str()) {
            unknown_event(judged, &path, event);
            continue;
        }
        let Value::Array(groups) = groups else {
            judged.push(
                ProblemKind::InvalidHook,
                &path,
                format!(
                    "the `{event}` hooks are {}, not a list of matchers, {BROKEN}",
                    a_json(groups)
                ),
                "not a list",
                format!("write `\"{event}\": [ {{ \"matcher\": \"…\", \"hooks\": [ … ] }} ]`"),
            );
            continue;
        };
        for (index, group) in groups.iter().enumerate() {
            let path = [&path[..], &[Step::Index(index)]].concat();
            matcher_group(judged, &path, event, group);
        }
    }
}

fn unknown_event(judged: &mut Judged, path: &[Step<'_>], event: &str) {
    let closest = crate::suggest::closest(event, EVENTS.iter().copied());
    judged.push(
        ProblemKind::UnknownHookEvent,
        path,
        format!("`{event}` is not a Claude Code hook event, so its hooks never run"),
        "unknown event",
        match closest {
            Some(closest) => format!("did you mean `{closest}`? event names are case-sensitive"),
            None => format!("Claude Code's events are {}", EVENTS.join(", ")),
        },
    );
}

/// `{ "matcher": "…", "hooks": [handler…] }`.
fn matcher_group(judged: &mut Judged, path: &[Step<'_>], event: &str, group: &Value) {
    let Value::Object(group) = group else {
        dropped(
            judged,
            path,
            event,
            format!(
                "a `{event}` entry is {}, not a matcher object",
                a_json(group)
            ),
            "write `{ \"matcher\": \"…\", \"hooks\": [ … ] }`".into(),
        );
        return;
    };
    if let Some(matcher) = group.get("matcher") {
        if !matcher.is_string() {
            let at = [path, &[Step::Key("matcher")]].concat();
            dropped(
                judged,
                &at,
                event,
                format!("a `{event}` matcher is {}, not a string", a_json(matcher)),
                "write the matcher as a string: a tool name, or a pattern such as `Edit|Write`"
                    .into(),
            );
        }
    }
    let Some(Value::Array(handlers)) = group.get("hooks") else {
        dropped(
            judged,
            path,
            event,
            format!("a `{event}` matcher has no `hooks` list"),
            "put the handlers in `\"hooks\": [ { \"type\": \"command\", \"command\": \"…\" } ]`"
                .into(),
        );
        return;
    };
    for (index, handler) in handlers.iter().enumerate() {
        let at = [path, &[Step::Key("hooks"), Step::Index(index)]].concat();
        match handler {
            Value::Object(handler) => self::handler(judged, &at, event, handler),
            other => dropped(
                judged,
                &at,
                event,
                format!("a `{event}` hook is {}, not an object", a_json(other)),
                "write `{ \"type\": \"command\", \"command\": \"…\" }`".into(),
            ),
        }
    }
}

/// One handler: its type, and what that type needs.
fn handler(judged: &mut Judged, path: &[Step<'_>], event: &str, handler: &Map<String, Value>) {
    let type_path = [path, &[Step::Key("type")]].concat();
    let kind = match handler.get("type") {
        None => {
            dropped(
                judged,
                path,
                event,
                format!("a `{event}` hook has no `type`"),
                "add `\"type\": \"command\"` (or `prompt`, `agent`, `http`)".into(),
            );
            return;
        }
        Some(Value::String(kind)) => kind.as_str(),
        Some(other) => {
            dropped(
                judged,
                &type_path,
                event,
                format!(
                    "a `{event}` hook's `type` is {}, not a string",
                    a_json(other)
                ),
                "write `\"type\": \"command\"` (or `prompt`, `agent`, `http`)".into(),
            );
            return;
        }
    };
    let needs = match kind {
        "command" => "command",
        "prompt" | "agent" => "prompt",
        "http" => "url",
        other => {
            dropped(
                judged,
                &type_path,
                event,
                format!("`{other}` is not a hook type"),
                "use `command`, `prompt`, `agent` or `http`".into(),
            );
            return;
        }
    };
    match handler.get(needs) {
        Some(Value::String(command)) if needs == "command" => {
            if unquoted_root(command) {
                let at = [path, &[Step::Key("command")]].concat();
                judged
                    .push(
                        ProblemKind::InvalidHook,
                        &at,
                        format!("a `{event}` hook's command uses `${{CLAUDE_PLUGIN_ROOT}}` unquoted, so it breaks where the plugin is installed under a path with a space"),
                        "unquoted",
                        "quote the path: `\"${CLAUDE_PLUGIN_ROOT}/hooks/check.sh\"`",
                    )
                    .severity = Severity::Warning;
            }
        }
        Some(Value::String(value)) if needs != "url" || value.contains("://") => {}
        other => {
            let at = match other {
                Some(_) => [path, &[Step::Key(needs)]].concat(),
                None => path.to_vec(),
            };
            let what = match other {
                None => "has no".to_string(),
                Some(Value::String(_)) => "has an invalid".to_string(),
                Some(value) => format!("has {} as its", a_json(value)),
            };
            dropped(
                judged,
                &at,
                event,
                format!("a `{event}` `{kind}` hook {what} `{needs}`"),
                format!("give the hook its `{needs}` as a string"),
            );
        }
    }
    if let Some(timeout) = handler.get("timeout") {
        if !timeout.as_f64().is_some_and(|seconds| seconds > 0.0) {
            let at = [path, &[Step::Key("timeout")]].concat();
            dropped(
                judged,
                &at,
                event,
                format!(
                    "a `{event}` hook's `timeout` is {}, not a number of seconds above 0",
                    shown(timeout)
                ),
                "write the timeout in seconds, as a number: `\"timeout\": 30`".into(),
            );
        }
    }
}

/// Whether a shell command uses `${CLAUDE_PLUGIN_ROOT}` (or
/// `$CLAUDE_PLUGIN_ROOT`) outside quotes, where the shell splits the path
/// it expands to at its spaces.
fn unquoted_root(command: &str) -> bool {
    let (mut single, mut double) = (false, false);
    let mut chars = command.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' if !single => {
                chars.next();
            }
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '$' if !single && !double => {
                let rest = &command[at + 1..];
                if rest.starts_with("{CLAUDE_PLUGIN_ROOT}")
                    || rest.starts_with("CLAUDE_PLUGIN_ROOT")
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// `-1`, `"ten"`, `a list`.
fn shown(value: &Value) -> String {
    match value {
        Value::Number(number) => format!("`{number}`"),
        Value::String(text) => format!("`\"{text}\"`"),
        other => a_json(other).to_string(),
    }
}

/// A group or handler Claude Code cannot read: dropped, with a warning,
/// or refusing the file where the event guards permissions.
fn dropped(judged: &mut Judged, path: &[Step<'_>], event: &str, what: String, help: String) {
    let guarding = GUARDING.contains(&event);
    let consequence = if guarding {
        "so Claude Code refuses the hooks file: a lost hook here may be what guards a permission"
    } else {
        "so Claude Code ignores it"
    };
    let label = if guarding { "refused" } else { "ignored" };
    let problem = judged.push(
        ProblemKind::InvalidHook,
        path,
        format!("{what}, {consequence}"),
        label,
        help,
    );
    problem.severity = if guarding {
        Severity::Error
    } else {
        Severity::Warning
    };
}

#[cfg(test)]
mod tests {
    use super::unquoted_root;

    #[test]
    fn the_plugin_root_is_quoted_or_not() {
        assert!(unquoted_root("bash ${CLAUDE_PLUGIN_ROOT}/hooks/a.sh"));
        assert!(unquoted_root("python3 $CLAUDE_PLUGIN_ROOT/x.py"));
        assert!(!unquoted_root("bash \"${CLAUDE_PLUGIN_ROOT}/hooks/a.sh\""));
        assert!(!unquoted_root("sh -c 'cd ${CLAUDE_PLUGIN_ROOT} && make'"));
        assert!(!unquoted_root("node \"$CLAUDE_PLUGIN_ROOT\"/x.js --flag"));
        assert!(!unquoted_root("echo hi"));
    }
}

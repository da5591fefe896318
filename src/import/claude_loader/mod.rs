//! What Claude Code's own loader refuses or ignores in a plugin, reported
//! before it does: `.claude-plugin/plugin.json`, `marketplace.json`, the
//! frontmatter of commands and subagents, hooks (events, matchers, types,
//! timeouts) and the MCP servers a plugin starts.
//!
//! Each problem carries the class Claude Code gives it, as its validator
//! (`claude plugin validate`) reports it: an error where the plugin or the
//! marketplace does not load, or where a hook that guards permissions
//! (`PreToolUse`, `PermissionRequest`) would be lost; a warning where the
//! plugin loads and only what the problem names is ignored. What the
//! validator asks for only under `--strict` because a catalog wants it (a
//! version, an author, a description, a kebab-case name) is the opt-in
//! rule `catalog-metadata`. `tests/it/claude_validator.rs` holds contrib
//! to the validator on real packages.

mod frontmatter;
mod hooks;
mod manifest;
mod marketplace;
mod servers;

use serde_json::Value;

use super::json_path::{nearest, Step};
use super::problem::{Problem, ProblemKind};
use super::InputFile;
use crate::source::Span;

pub(super) use frontmatter::{agent_frontmatter, command_frontmatter};
pub(super) use hooks::hooks_file;
pub(super) use manifest::plugin_manifest;
pub(super) use marketplace::{is_marketplace, marketplace};
pub(super) use servers::mcp_file;

/// The fields Claude Code reads in `plugin.json`.
const PLUGIN_FIELDS: &[&str] = &[
    "$schema",
    "name",
    "version",
    "description",
    "author",
    "homepage",
    "repository",
    "license",
    "keywords",
    "displayName",
    "icon",
    "screenshots",
    "defaultEnabled",
    "dependencies",
    "channels",
    "settings",
    "userConfig",
    "commands",
    "agents",
    "skills",
    "hooks",
    "mcpServers",
    "outputStyles",
    "lspServers",
    "monitors",
    "themes",
    "workflows",
    "experimental",
    "metadata",
    "engines",
    "network",
];

/// The fields a plugin's entry has besides its `plugin.json`'s, which it
/// may also give.
const ENTRY_FIELDS: &[&str] = &["source", "category", "tags", "strict", "id"];

/// Names Claude Code keeps for Anthropic's own plugins.
const RESERVED_PREFIXES: &[&str] = &["claude-", "anthropic-", "anthropics-", "cc-plugin-"];
const RESERVED_NAMES: &[&str] = &[
    "claude",
    "anthropic",
    "anthropics",
    "claude-code",
    "claude-mods",
];

/// Whether Claude Code keeps `name` for Anthropic's own plugins.
fn is_reserved(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    RESERVED_NAMES.contains(&lower.as_str())
        || RESERVED_PREFIXES
            .iter()
            .any(|prefix| lower.starts_with(prefix))
        || (lower.contains("official") && (lower.contains("claude") || lower.contains("anthropic")))
}

/// Whether `name` is kebab-case: lowercase letters, digits and `-`.
fn is_kebab(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// One JSON file being judged: its problems, located by path.
struct Judged<'a> {
    file: &'a InputFile,
    problems: Vec<Problem>,
}

impl<'a> Judged<'a> {
    fn new(file: &'a InputFile) -> Self {
        Judged {
            file,
            problems: Vec::new(),
        }
    }

    /// The span of what `path` names in the file, or of the nearest step
    /// above it.
    fn at(&self, path: &[Step<'_>]) -> Span {
        nearest(&self.file.text, path)
    }

    /// A problem at `path`, with the rule's default class.
    fn push(
        &mut self,
        kind: ProblemKind,
        path: &[Step<'_>],
        message: impl Into<String>,
        label: &str,
        help: impl Into<String>,
    ) -> &mut Problem {
        let span = self.at(path);
        self.problems.push(Problem::new(
            &self.file.path,
            span,
            kind,
            message,
            label,
            help,
        ));
        let last = self.problems.len() - 1;
        &mut self.problems[last]
    }

    /// The file read as JSON, or a problem of `kind` where it breaks,
    /// saying `consequence` ("so Claude Code does not load the plugin").
    fn json(&mut self, kind: ProblemKind, consequence: &str) -> Option<Value> {
        match serde_json::from_str::<Value>(&self.file.text) {
            Ok(value) => Some(value),
            Err(error) => {
                let offset =
                    super::agent_plugin::offset_of(&self.file.text, error.line(), error.column());
                let name = self.file.path.rsplit('/').next().unwrap_or_default();
                self.problems.push(Problem::new(
                    &self.file.path,
                    Span::new(offset, offset),
                    kind,
                    format!("`{name}` is not valid JSON ({error}), {consequence}"),
                    "the JSON breaks here",
                    "fix the JSON syntax",
                ));
                None
            }
        }
    }

    /// `key` of `object`, which must be a string when present: a problem
    /// of `kind` when it is something else.
    fn string_field(
        &mut self,
        object: &serde_json::Map<String, Value>,
        base: &[Step<'_>],
        key: &str,
        kind: ProblemKind,
        consequence: &str,
    ) {
        if let Some(value) = object.get(key) {
            if !value.is_string() {
                let path = [base, &[Step::Key(key)]].concat();
                self.push(
                    kind,
                    &path,
                    format!("`{key}` is {}, not a string, {consequence}", a_json(value)),
                    "not a string",
                    format!("write `{key}` as a string"),
                );
            }
        }
    }
}

/// "`author` has no `name`, so …", or "`author`'s `name` is a number, not
/// a string, so …": a required string field gone wrong, in one sentence.
fn required_string(subject: &str, key: &str, value: Option<&Value>, consequence: &str) -> String {
    match value {
        None => format!("{subject} has no `{key}`, {consequence}"),
        Some(value) => format!(
            "{subject}'s `{key}` is {}, not a string, {consequence}",
            a_json(value)
        ),
    }
}

/// `an object`, `a number`: what a JSON value is, for messages.
fn a_json(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Whether `path` is written as Claude Code wants a plugin's paths: `./`
/// first, never climbing out with `..`.
fn is_plugin_relative(path: &str) -> bool {
    path.starts_with("./") && !path.split(['/', '\\']).any(|part| part == "..")
}

/// `path` (`./x/y`) under `root`, normalised.
fn join(root: &str, path: &str) -> String {
    let inner = path.trim_start_matches("./").trim_end_matches('/');
    match (root.is_empty(), inner.is_empty()) {
        (_, true) => root.to_string(),
        (true, false) => inner.to_string(),
        (false, false) => format!("{root}/{inner}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names_are_anthropics() {
        assert!(is_reserved("claude-security"));
        assert!(is_reserved("Claude"));
        assert!(is_reserved("official-anthropic-tools"));
        assert!(!is_reserved("code-review"));
        assert!(!is_reserved("claudette"));
    }

    #[test]
    fn plugin_paths() {
        assert!(is_plugin_relative("./agents/a.md"));
        assert!(!is_plugin_relative("agents/a.md"));
        assert!(!is_plugin_relative("./a/../../b"));
        assert_eq!(join("p", "./skills/"), "p/skills");
        assert_eq!(join("", "./x"), "x");
    }
}

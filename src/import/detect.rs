//! Which format a file is, and which plugin it belongs to.
//!
//! Formats are told apart by where files sit, as the tools that load them
//! do (an `agents/*.md` is a subagent only in a plugin or in `.claude/`),
//! and by content only for JSON (a bundle manifest is any JSON object with
//! `dxt_version` or `manifest_version`, whatever the file is called).
//!
//! Grouping, so that one manifest stands for one plugin:
//!
//! 1. a bundle manifest is a plugin of its own;
//! 2. a folder holding a plugin manifest (`.claude-plugin/plugin.json`, or
//!    the Codex, Cursor, Kimi or Gemini one) is a plugin root, and every
//!    file below it belongs to the nearest such root;
//! 3. any other file belongs to its project: the top-most folder at or
//!    below the source that shows a project's markers (`AGENTS.md`,
//!    `CLAUDE.md`, `GEMINI.md`, `.claude/`, `.cursor/`, `.github/`,
//!    `.agents/`, a plugin or marketplace folder), or else to the source
//!    folder itself.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::folder_of;

/// What a file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileKind {
    /// `SKILL.md`.
    Skill,
    /// A subagent: `agents/*.md` of a plugin or of `.claude/`.
    Agent,
    /// A slash command: `commands/*.md` of a plugin, `.claude/` or
    /// `.cursor/`.
    Command {
        cursor: bool,
    },
    /// A Cursor rule, `.mdc`.
    CursorRule,
    /// `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, Copilot instructions, and
    /// `.claude/rules/*.md`.
    Instructions,
    PluginManifest(Host),
    /// `hooks/*.json` of a plugin.
    Hooks,
    /// `.claude/settings*.json`, which may hold hooks.
    Settings,
    /// MCP servers a plugin or project starts, by the file that lists them.
    McpServers(McpFile),
    /// A GitHub Copilot custom agent: `*.agent.md`, or Markdown in
    /// `.github/agents/`.
    CopilotAgent,
    /// A Copilot prompt file, `*.prompt.md`: a command a person runs.
    PromptFile,
    /// A Copilot chat mode, `*.chatmode.md`: a mode a person selects.
    ChatMode,
    /// Copilot hooks: a JSON object with `"version": 1` and `hooks`.
    CopilotHooks,
    /// An MCP bundle manifest.
    Bundle,
}

impl FileKind {
    /// The format in a few words, for the report.
    pub fn label(&self) -> &'static str {
        match self {
            FileKind::Skill => "Agent Skill",
            FileKind::Agent => "subagent",
            FileKind::Command { cursor: false } => "command",
            FileKind::Command { cursor: true } => "Cursor command",
            FileKind::CursorRule => "Cursor rule",
            FileKind::Instructions => "instruction file",
            FileKind::PluginManifest(Host::AgentPlugins) => "Agent Plugins manifest",
            FileKind::PluginManifest(_) => "plugin manifest",
            FileKind::Hooks | FileKind::Settings => "Claude Code hooks or settings",
            FileKind::McpServers(McpFile::Claude) => "`.mcp.json`",
            FileKind::McpServers(McpFile::AgentPlugins) => "Agent Plugins `mcp.json`",
            FileKind::McpServers(McpFile::VsCode) => "VS Code `mcp.json`",
            FileKind::McpServers(McpFile::Project) => "project `mcp.json`",
            FileKind::CopilotAgent => "Copilot custom agent",
            FileKind::PromptFile => "Copilot prompt file",
            FileKind::ChatMode => "Copilot chat mode",
            FileKind::CopilotHooks => "Copilot hooks",
            FileKind::Bundle => "MCP bundle manifest",
        }
    }
}

/// The file that lists MCP servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpFile {
    /// Claude Code's `.mcp.json`.
    Claude,
    /// An Agent Plugins package's `mcp.json`, beside its `plugin.json`.
    AgentPlugins,
    /// VS Code's `.vscode/mcp.json` (`servers`, `inputs`).
    VsCode,
    /// A project's own `mcp.json` elsewhere (`mcpServers` or `servers`).
    Project,
}

/// The agent a plugin manifest was written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Host {
    /// The vendor-neutral Agent Plugins format: a root `plugin.json`.
    AgentPlugins,
    Claude,
    Codex,
    Cursor,
    Kimi,
    Gemini,
}

impl Host {
    pub fn as_str(self) -> &'static str {
        match self {
            Host::AgentPlugins => "Agent Plugins",
            Host::Claude => "Claude Code",
            Host::Codex => "Codex",
            Host::Cursor => "Cursor",
            Host::Kimi => "Kimi",
            Host::Gemini => "Gemini",
        }
    }
}

/// The plugin a file belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    /// A plugin root or a project, by folder (`""`: the source folder).
    Folder(String),
    /// A bundle manifest, by file.
    Bundle(String),
}

impl Unit {
    pub fn path(&self) -> &str {
        match self {
            Unit::Folder(path) | Unit::Bundle(path) => path,
        }
    }
}

const PLUGIN_FOLDERS: &[(&str, Host)] = &[
    (".claude-plugin", Host::Claude),
    (".codex-plugin", Host::Codex),
    (".cursor-plugin", Host::Cursor),
    (".kimi-plugin", Host::Kimi),
];

const GEMINI_MANIFEST: &str = "gemini-extension.json";

const INSTRUCTION_FILES: &[&str] = &["AGENTS.md", "CLAUDE.md", "GEMINI.md"];

/// What a folder holds when it is a project's top.
const PROJECT_MARKERS: &[&str] = &[
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    ".claude",
    ".cursor",
    ".github",
    ".agents",
    ".claude-plugin",
    ".codex-plugin",
    ".cursor-plugin",
    ".kimi-plugin",
    GEMINI_MANIFEST,
];

/// The source's folders, as far as its files show them.
pub struct Layout {
    plugin_roots: BTreeSet<String>,
    /// Each folder's entries (files and folders) by name.
    children: HashMap<String, HashSet<String>>,
    skill_folders: HashSet<String>,
}

impl Layout {
    pub fn new<'a>(paths: impl IntoIterator<Item = &'a str>) -> Self {
        let mut layout = Layout {
            plugin_roots: BTreeSet::new(),
            children: HashMap::new(),
            skill_folders: HashSet::new(),
        };
        for path in paths {
            if let Some(root) = plugin_root_of_manifest(path) {
                layout.plugin_roots.insert(root);
            }
            if name_of(path) == "SKILL.md" {
                layout.skill_folders.insert(folder_of(path).to_string());
            }
            let mut child = path;
            while !child.is_empty() {
                let parent = folder_of(child);
                layout
                    .children
                    .entry(parent.to_string())
                    .or_default()
                    .insert(name_of(child).to_string());
                child = parent;
            }
        }
        layout
    }

    /// The file's format, or why it is not imported.
    pub fn classify(&self, path: &str, text: &str) -> Result<FileKind, &'static str> {
        let name = name_of(path);
        let folder = folder_of(path);
        let parent = name_of(folder);
        let grandparent = folder_of(folder);
        let lower = name.to_ascii_lowercase();
        if let Some(host) = plugin_manifest_host(path) {
            return Ok(FileKind::PluginManifest(host));
        }
        if name == "SKILL.md" {
            // A `SKILL.md` below another skill's folder is that skill's
            // reference material: clients discover skills one folder deep
            // in their skills folder, never inside another skill.
            if !folder.is_empty() && self.in_skill(grandparent) {
                return Err("a skill's resource: loaded only when the skill's body asks for it");
            }
            return Ok(FileKind::Skill);
        }
        if lower.ends_with(".mdc") {
            return Ok(FileKind::CursorRule);
        }
        let markdown = lower.ends_with(".md");
        // A skill's folder holds its resources: a template `AGENTS.md` in
        // its assets is text the skill may hand out, not an instruction
        // file of the project.
        if markdown && self.in_skill(folder) {
            return Err("a skill's resource: loaded only when the skill's body asks for it");
        }
        if lower.ends_with(".agent.md") || (markdown && folder_is(folder, ".github/agents")) {
            return Ok(FileKind::CopilotAgent);
        }
        if lower.ends_with(".prompt.md") {
            return Ok(FileKind::PromptFile);
        }
        if lower.ends_with(".chatmode.md") {
            return Ok(FileKind::ChatMode);
        }
        if markdown && is_instructions(path) {
            return Ok(FileKind::Instructions);
        }
        let in_plugin_or = |tool_folder: &[&str]| {
            self.plugin_roots.contains(grandparent) || tool_folder.contains(&name_of(grandparent))
        };
        if markdown && parent == "agents" && in_plugin_or(&[".claude"]) {
            return Ok(FileKind::Agent);
        }
        if markdown && parent == "commands" && in_plugin_or(&[".claude", ".cursor"]) {
            return Ok(FileKind::Command {
                cursor: name_of(grandparent) == ".cursor",
            });
        }
        if name == "marketplace.json" {
            return Err("a marketplace: a catalogue of plugins, each imported from its own folder");
        }
        if lower.ends_with(".json") {
            if parent == "hooks" && self.plugin_roots.contains(grandparent) {
                return Ok(FileKind::Hooks);
            }
            if parent == ".claude" && name.starts_with("settings") {
                return Ok(FileKind::Settings);
            }
            if name == ".mcp.json" {
                return Ok(FileKind::McpServers(McpFile::Claude));
            }
            if name == "mcp.json" {
                return Ok(FileKind::McpServers(if parent == ".vscode" {
                    McpFile::VsCode
                } else if self.plugin_roots.contains(folder) {
                    McpFile::AgentPlugins
                } else {
                    McpFile::Project
                }));
            }
            return classify_json(text);
        }
        if markdown {
            return Err("Markdown that no agent loads by convention (documentation, examples)");
        }
        Err("not a contributor format")
    }

    /// Whether `path` is Markdown in a skill's folder other than its
    /// `SKILL.md`: the skill's reference material.
    pub fn is_skill_resource(&self, path: &str) -> bool {
        let lower = path.to_ascii_lowercase();
        let markdown = lower.ends_with(".md");
        // A template or an example is a document the skill hands out: its
        // links are the output's, not the package's.
        let handed_out = ["template", "example"]
            .iter()
            .any(|word| lower.rsplit('/').take(2).any(|part| part.contains(word)));
        if handed_out {
            return false;
        }
        if name_of(path) == "SKILL.md" {
            self.in_skill(folder_of(folder_of(path)))
        } else {
            markdown && self.in_skill(folder_of(path))
        }
    }

    /// Whether `folder` is a skill's folder or inside one.
    fn in_skill(&self, folder: &str) -> bool {
        let mut current = folder;
        loop {
            if self.skill_folders.contains(current) {
                return true;
            }
            if current.is_empty() {
                return false;
            }
            current = folder_of(current);
        }
    }

    /// The plugin the file belongs to.
    pub fn unit(&self, path: &str, kind: &FileKind) -> Unit {
        if *kind == FileKind::Bundle {
            return Unit::Bundle(path.to_string());
        }
        let ancestors = ancestors(path);
        if let Some(root) = ancestors
            .iter()
            .rev()
            .find(|folder| self.plugin_roots.contains(**folder))
        {
            return Unit::Folder(root.to_string());
        }
        let project = ancestors.iter().find(|folder| {
            self.children.get(**folder).is_some_and(|children| {
                PROJECT_MARKERS
                    .iter()
                    .any(|marker| children.contains(*marker))
            })
        });
        Unit::Folder(project.map_or(String::new(), |folder| folder.to_string()))
    }
}

/// The folders above a file, from the source folder (`""`) down.
fn ancestors(path: &str) -> Vec<&str> {
    let mut folders = Vec::new();
    let mut current = folder_of(path);
    loop {
        folders.push(current);
        if current.is_empty() {
            break;
        }
        current = folder_of(current);
    }
    folders.reverse();
    folders
}

fn name_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn plugin_manifest_host(path: &str) -> Option<Host> {
    if name_of(path) == GEMINI_MANIFEST {
        return Some(Host::Gemini);
    }
    if name_of(path) != "plugin.json" {
        return None;
    }
    let folder = name_of(folder_of(path));
    let host = PLUGIN_FOLDERS
        .iter()
        .find(|(name, _)| *name == folder)
        .map(|(_, host)| *host);
    // A `plugin.json` in no host's folder is the package's own, at its
    // root: the Agent Plugins manifest.
    Some(host.unwrap_or(Host::AgentPlugins))
}

/// The plugin root a plugin manifest makes, if `path` is one.
pub fn plugin_root_of_manifest(path: &str) -> Option<String> {
    let host = plugin_manifest_host(path)?;
    let folder = folder_of(path);
    Some(match host {
        Host::Gemini | Host::AgentPlugins => folder.to_string(),
        _ => folder_of(folder).to_string(),
    })
}

/// Whether `folder` is `tail` or ends with `/tail`.
fn folder_is(folder: &str, tail: &str) -> bool {
    folder == tail || folder.ends_with(&format!("/{tail}"))
}

fn is_instructions(path: &str) -> bool {
    let name = name_of(path);
    let folder = folder_of(path);
    INSTRUCTION_FILES.contains(&name)
        || (name == "copilot-instructions.md" && name_of(folder) == ".github")
        || name.ends_with(".instructions.md")
        || format!("/{path}").contains("/.claude/rules/")
}

fn classify_json(text: &str) -> Result<FileKind, &'static str> {
    let Ok(serde_json::Value::Object(object)) = serde_json::from_str::<serde_json::Value>(text)
    else {
        return Err("JSON that is not a bundle or plugin manifest");
    };
    if object.contains_key("dxt_version") || object.contains_key("manifest_version") {
        return Ok(FileKind::Bundle);
    }
    if object.get("version").and_then(serde_json::Value::as_u64) == Some(1)
        && object
            .get("hooks")
            .is_some_and(serde_json::Value::is_object)
    {
        return Ok(FileKind::CopilotHooks);
    }
    let schema = object
        .get("$schema")
        .and_then(|value| value.as_str())
        .unwrap_or("");
    if schema.contains("json-schema.org") {
        return Err("a JSON Schema, not a manifest");
    }
    Err("JSON that is not a bundle or plugin manifest")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(paths: &[&str]) -> Layout {
        Layout::new(paths.iter().copied())
    }

    #[test]
    fn agents_and_commands_count_only_in_plugins_and_tool_folders() {
        let layout = layout(&[
            "p/.claude-plugin/plugin.json",
            "p/agents/a.md",
            "p/commands/c.md",
            "p/skills/s/SKILL.md",
            "p/skills/s/agents/grader.md",
            ".claude/agents/x.md",
            ".cursor/commands/y.md",
            "docs/agents/z.md",
        ]);
        let kind = |path| layout.classify(path, "");
        assert_eq!(kind("p/agents/a.md"), Ok(FileKind::Agent));
        assert_eq!(
            kind("p/commands/c.md"),
            Ok(FileKind::Command { cursor: false })
        );
        assert_eq!(kind(".claude/agents/x.md"), Ok(FileKind::Agent));
        assert_eq!(
            kind(".cursor/commands/y.md"),
            Ok(FileKind::Command { cursor: true })
        );
        assert!(kind("p/skills/s/agents/grader.md")
            .unwrap_err()
            .contains("skill's resource"));
        assert!(kind("docs/agents/z.md").is_err());
    }

    #[test]
    fn a_skill_inside_another_skill_is_its_reference() {
        let layout = layout(&[
            "skills/db/SKILL.md",
            "skills/db/setup/SKILL.md",
            "skills/db/guides/tuning/SKILL.md",
            "skills/web/SKILL.md",
        ]);
        assert_eq!(
            layout.classify("skills/web/SKILL.md", ""),
            Ok(FileKind::Skill)
        );
        for nested in [
            "skills/db/setup/SKILL.md",
            "skills/db/guides/tuning/SKILL.md",
        ] {
            assert!(layout
                .classify(nested, "")
                .unwrap_err()
                .contains("skill's resource"));
        }
    }

    #[test]
    fn json_by_content() {
        let layout = layout(&[]);
        assert_eq!(
            layout.classify("a/manifest.template.json", r#"{"manifest_version": "0.3"}"#),
            Ok(FileKind::Bundle)
        );
        assert!(layout
            .classify(
                "s.json",
                r#"{"$schema": "http://json-schema.org/draft-07/schema#"}"#
            )
            .is_err());
        assert!(layout.classify("broken.json", "{").is_err());
    }

    #[test]
    fn files_group_into_plugins_then_projects() {
        let paths = [
            "repo/AGENTS.md",
            "repo/web/AGENTS.md",
            "repo/.agents/.claude-plugin/plugin.json",
            "repo/.agents/skills/a/SKILL.md",
            "other/deep/CLAUDE.md",
            "loose/rule.mdc",
            "bundle/manifest.json",
        ];
        let layout = layout(&paths);
        let unit = |path: &str, kind: FileKind| layout.unit(path, &kind);
        assert_eq!(
            unit("repo/web/AGENTS.md", FileKind::Instructions),
            Unit::Folder("repo".into())
        );
        assert_eq!(
            unit("repo/.agents/skills/a/SKILL.md", FileKind::Skill),
            Unit::Folder("repo/.agents".into())
        );
        assert_eq!(
            unit("other/deep/CLAUDE.md", FileKind::Instructions),
            Unit::Folder("other/deep".into())
        );
        assert_eq!(
            unit("loose/rule.mdc", FileKind::CursorRule),
            Unit::Folder(String::new())
        );
        assert_eq!(
            unit("bundle/manifest.json", FileKind::Bundle),
            Unit::Bundle("bundle/manifest.json".into())
        );
    }
}

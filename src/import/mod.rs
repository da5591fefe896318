//! `contrib import`: existing skills, plugins, rules and instruction files,
//! written as manifests.
//!
//! Every format this reads is loaded by convention: a skill's description
//! is always in the system prompt, a Cursor rule with `alwaysApply` always
//! applies, a `SessionStart` hook runs a shell command whenever a
//! conversation starts. None of them says where its text goes, what it may
//! spend or who owns it. Importing writes each convention down as an
//! explicit contributor that `contrib check` can reason about, and the
//! import report shows what the checker then finds.
//!
//! The stages, one module each:
//!
//! - [`read`]: a source folder → files in memory (only the candidates are
//!   read), with the attribution of the folder when one is recorded;
//! - [`detect`]: which format each file is, and which plugin it belongs to;
//! - one importer per format: `skill`, `claude_plugin`, `copilot`,
//!   `cursor`, `instructions`, `mcpb`, and Agent Plugins packages
//!   (`package`, on the rules of [`agent_plugin`]), each turning files
//!   into a [`emit::Draft`], with `activation` for when a conditional
//!   text applies;
//! - what is wrong with the sources as their own formats see it,
//!   [`problem::Problem`]s found while reading and by `checks`: notes of
//!   the import, and the diagnostics of `contrib check` on the sources in
//!   place (`in_place`);
//! - [`emit`]: drafts → manifest text in the canonical layout, with budgets
//!   measured by the workspace's tokenizer;
//! - [`report`]: the summary table, with what the checker finds.
//!
//! The mapping is documented in `docs/import.md`.

mod activation;
pub mod agent_plugin;
mod checks;
mod claude_loader;
mod claude_plugin;
mod copilot;
mod cursor;
pub mod detect;
pub mod emit;
pub mod frontmatter;
mod in_place;
mod instructions;
mod json_path;
mod located;
mod mcpb;
mod notes;
mod package;
mod pipeline;
pub mod problem;
pub mod read;
pub mod report;
mod skill;

use std::collections::BTreeMap;

use crate::ir::{ActivationKind, Kind, Owner, Placement};

use detect::{FileKind, Host, McpFile};

pub use notes::body_text;
use notes::{folder_of, json, stem};
pub(crate) use notes::{
    frontmatter_notes, metadata_note, renamed, shorten, tool_vocabulary, AlwaysLoaded,
};
pub(crate) use pipeline::Found;
pub use pipeline::{import, import_all};

pub use in_place::{check_file_in_place, check_in_place, Checked};
pub use problem::{Problem, ProblemKind};
pub use read::{read_tree, InputFile, SourceTree};

/// Which files to import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// Every format below, detected from file names and contents.
    Auto,
    /// Agent Skills: `SKILL.md`.
    Skill,
    /// Claude Code plugins: `plugin.json` (and the Codex, Cursor, Kimi and
    /// Gemini manifests beside it), agents, commands, skills, hooks.
    ClaudePlugin,
    /// Cursor rules (`.mdc`) and Cursor commands.
    Cursor,
    /// `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, Copilot instructions and
    /// `.claude/rules`.
    Instructions,
    /// MCP bundle manifests (`manifest.json`, formerly DXT).
    Mcpb,
    /// GitHub Copilot: custom agents, prompt files, chat modes, hooks,
    /// instructions and skills under `.github/`.
    Copilot,
    /// Agent Plugins packages: a root `plugin.json`, `skills/*/SKILL.md`,
    /// `mcp.json`.
    AgentPlugin,
    /// MCP server configurations: `.mcp.json`, `mcp.json`,
    /// `.vscode/mcp.json`.
    Mcp,
}

impl Format {
    /// Whether files of `kind` are imported under this format.
    fn accepts(self, kind: &FileKind) -> bool {
        match self {
            Format::Auto => true,
            Format::Skill => matches!(kind, FileKind::Skill),
            Format::ClaudePlugin => matches!(
                kind,
                FileKind::Skill
                    | FileKind::Agent
                    | FileKind::Command { cursor: false }
                    | FileKind::PluginManifest(_)
                    | FileKind::Hooks
                    | FileKind::Settings
                    | FileKind::McpServers(_)
            ),
            Format::Cursor => matches!(
                kind,
                FileKind::CursorRule | FileKind::Command { cursor: true }
            ),
            Format::Instructions => matches!(kind, FileKind::Instructions),
            Format::Mcpb => matches!(kind, FileKind::Bundle),
            Format::Copilot => matches!(
                kind,
                FileKind::CopilotAgent
                    | FileKind::PromptFile
                    | FileKind::ChatMode
                    | FileKind::CopilotHooks
                    | FileKind::Instructions
                    | FileKind::Skill
                    | FileKind::McpServers(McpFile::VsCode)
            ),
            Format::AgentPlugin => matches!(
                kind,
                FileKind::PluginManifest(Host::AgentPlugins)
                    | FileKind::Skill
                    | FileKind::McpServers(McpFile::AgentPlugins)
            ),
            Format::Mcp => matches!(kind, FileKind::McpServers(_)),
        }
    }
}

/// How to import.
#[derive(Debug, Clone)]
pub struct Options {
    pub format: Format,
    /// Who owns what is imported (`--owner`); agent-author by default.
    pub owner: Owner,
    /// The plugins' scope (`--scope`); by default the source folder's name.
    pub scope: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            format: Format::Auto,
            owner: Owner::AgentAuthor,
            scope: None,
        }
    }
}

/// One source folder, imported.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The source folder's name.
    pub source: String,
    pub manifests: Vec<Manifest>,
    /// Files imported into some manifest.
    pub files_read: usize,
    pub skipped: Vec<Skipped>,
    pub failures: Vec<Failure>,
    /// What the sources' own formats say is wrong with them, located.
    pub problems: Vec<Problem>,
    /// Files some of whose text was dropped before the checker's rules
    /// (over one of the language's limits), with why: `contrib check`
    /// reports each where it is, never leaving it out silently.
    pub left_out: Vec<Failure>,
    /// Manifests too large to write (over the 4 MiB limit), which
    /// `contrib check` still runs the rules about meaning on.
    pub oversized: Vec<Manifest>,
    /// Files of each format taken for import, by the format's label.
    pub formats: BTreeMap<&'static str, usize>,
}

/// One written manifest.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// Where it goes under the output folder: `scope/name.contrib`.
    pub path: String,
    /// `scope/name`.
    pub plugin: String,
    pub text: String,
    pub contributors: Vec<Produced>,
    /// What could not be mapped; each is also a comment in `text`.
    pub notes: Vec<Note>,
    /// The source files read into it.
    pub files: Vec<String>,
    /// Tools the sources name, and whether the workspace declares each.
    pub vocabulary: BTreeMap<String, bool>,
    /// The MCP servers its sources declare, by name.
    pub servers: Vec<String>,
}

/// A contributor the import produced.
#[derive(Debug, Clone)]
pub struct Produced {
    pub id: String,
    pub kind: Kind,
    pub placement: Placement,
    /// When it applies: `always`, or the condition its source gave.
    pub activation: ActivationKind,
    /// What the checker will measure, in the workspace's tokenizer.
    pub tokens: u64,
    pub budget: u64,
    pub source: String,
    /// For a `text`, the body as imported (what the manifest's body decodes
    /// to).
    pub body: Option<String>,
    /// Whether `body` is the source file's own text after its frontmatter
    /// (less the line breaks at its ends), rather than one the importer made.
    pub verbatim: bool,
}

/// Something in a source file the language cannot express. It is written
/// as a comment in the manifest and listed in the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub file: String,
    /// A short category for the report's counts: `metadata`, `hook`, …
    pub category: &'static str,
    /// One line.
    pub message: String,
    /// The source's own text, when it is worth keeping (more lines).
    pub detail: Option<String>,
    /// Whether a person must act on it (a version written as `0.0.0`),
    /// rather than only know it.
    pub warning: bool,
}

impl Note {
    pub fn new(file: &str, category: &'static str, message: impl Into<String>) -> Self {
        Note {
            file: file.to_string(),
            category,
            message: message.into(),
            detail: None,
            warning: false,
        }
    }

    /// A note a person must act on, written `# WARNING (…)`.
    pub fn warning(file: &str, category: &'static str, message: impl Into<String>) -> Self {
        Note {
            warning: true,
            ..Note::new(file, category, message)
        }
    }

    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        let detail = detail.into();
        if !detail.trim().is_empty() {
            self.detail = Some(detail);
        }
        self
    }
}

/// A file that was not imported, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub file: String,
    pub reason: String,
}

/// A file that should have imported but could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub file: String,
    pub message: String,
}

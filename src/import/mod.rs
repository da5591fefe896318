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
mod claude_plugin;
mod copilot;
mod cursor;
pub mod detect;
pub mod emit;
pub mod frontmatter;
mod in_place;
mod instructions;
mod located;
mod mcpb;
mod package;
pub mod problem;
pub mod read;
pub mod report;
mod skill;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::config::Config;
use crate::ir::{ActivationKind, Kind, Owner, Placement};

use detect::{FileKind, Host, Layout, McpFile, Unit};
use emit::Draft;

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

/// Imports one source folder.
pub fn import(tree: &SourceTree, options: &Options, config: &Config) -> Imported {
    import_into(tree, options, config, &mut HashSet::new())
}

/// Imports several source folders, keeping every plugin's name distinct
/// across them (they may share a scope).
pub fn import_all(trees: &[SourceTree], options: &Options, config: &Config) -> Vec<Imported> {
    let mut names = HashSet::new();
    trees
        .iter()
        .map(|tree| import_into(tree, options, config, &mut names))
        .collect()
}

/// Imports one source folder; `names` holds the `scope/name`s taken.
fn import_into(
    tree: &SourceTree,
    options: &Options,
    config: &Config,
    names: &mut HashSet<String>,
) -> Imported {
    let scope = emit::kebab(options.scope.as_deref().unwrap_or(&tree.name), "imported");
    let layout = Layout::new(tree.files.iter().map(|file| file.path.as_str()));
    let mut skipped = tree.skipped.clone();
    let mut units: BTreeMap<Unit, Vec<(&InputFile, FileKind)>> = BTreeMap::new();
    for file in &tree.files {
        match layout.classify(&file.path, &file.text) {
            Ok(kind) if options.format.accepts(&kind) => {
                units
                    .entry(layout.unit(&file.path, &kind))
                    .or_default()
                    .push((file, kind));
            }
            Ok(_) => skipped.push(Skipped {
                file: file.path.clone(),
                reason: format!("not a {} file", format_name(options.format)),
            }),
            Err(reason) => skipped.push(Skipped {
                file: file.path.clone(),
                reason: reason.to_string(),
            }),
        }
    }

    let mut failures = tree.failures.clone();
    let mut problems = Vec::new();
    let paths: HashSet<&str> = tree
        .files
        .iter()
        .map(|file| file.path.as_str())
        .chain(tree.skipped.iter().map(|skipped| skipped.file.as_str()))
        .collect();
    let mut checked = Vec::new();
    let known = checks::Known::new(&paths);
    for files in units.values() {
        let package = files.iter().any(|(file, kind)| {
            *kind == FileKind::PluginManifest(Host::AgentPlugins)
                && layout.unit(&file.path, kind) == Unit::Folder(folder_of(&file.path).to_string())
        });
        for (file, kind) in files {
            let in_package = package && *kind == FileKind::Skill;
            checked.extend(checks::file_problems(file, kind, &known, in_package));
        }
    }
    let mut drafts = Vec::new();
    for (unit, files) in &units {
        let mut draft = Draft::new(&scope, &unit_name(unit, &tree.name));
        attribute(&mut draft, tree, unit);
        match unit {
            Unit::Bundle(_) => {
                for (file, _) in files {
                    if let Err(failure) = mcpb::import(file, &mut draft) {
                        failures.push(failure);
                    }
                }
            }
            Unit::Folder(root) => {
                let mut found = Found {
                    failures: &mut failures,
                    problems: &mut problems,
                    paths: &paths,
                    scope_given: options.scope.is_some(),
                };
                plugin(root, files, config, &mut draft, &mut found)
            }
        }
        hidden_notes(&mut draft, &checked);
        within_limits(&mut draft, &mut failures);
        // A unit whose every file failed has nothing to write.
        if !draft.files.is_empty() {
            drafts.push((unit, draft));
        }
    }

    let mut manifests = Vec::new();
    let mut files_read = BTreeSet::new();
    for (unit, mut draft) in drafts {
        draft.name = distinct_name(&draft.scope, &draft.name, unit, names);
        let manifest = emit::emit(&draft, options.owner, config);
        if manifest.text.len() > crate::limits::MAX_FILE_BYTES {
            failures.push(Failure {
                file: unit.path().to_string(),
                message: format!(
                    "the manifest would be {} bytes, over the 4 MiB limit; import its folders one at a time",
                    manifest.text.len()
                ),
            });
            continue;
        }
        files_read.extend(manifest.files.iter().cloned());
        manifests.push(manifest);
    }
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    problems.extend(checked);
    problems.sort_by(|a, b| (&a.file, a.span.start).cmp(&(&b.file, b.span.start)));
    problems.dedup();
    let mut formats = BTreeMap::new();
    for (_, kind) in units.values().flatten() {
        *formats.entry(kind.label()).or_insert(0) += 1;
    }
    Imported {
        formats,
        source: tree.name.clone(),
        manifests,
        files_read: files_read.len(),
        skipped,
        failures,
        problems,
    }
}

/// What reading a folder unit finds besides its draft.
pub(crate) struct Found<'a> {
    pub failures: &'a mut Vec<Failure>,
    pub problems: &'a mut Vec<Problem>,
    /// Every path of the source, read or skipped.
    pub paths: &'a HashSet<&'a str>,
    /// Whether `--scope` was given (a dotted Agent Plugins name gives the
    /// scope otherwise).
    pub scope_given: bool,
}

/// A warning for each invisible character in the plugin's sources: the
/// manifest writes it as an escape (`\u{2060}`), which `hidden-character`
/// accepts as meant, yet the model still receives the character.
fn hidden_notes(draft: &mut Draft, checked: &[Problem]) {
    for problem in checked {
        if problem.kind == ProblemKind::InvisibleCharacter && draft.files.contains(&problem.file) {
            draft.notes.push(Note::warning(
                &problem.file,
                "hidden",
                format!("{}; the manifest writes it as an escape", problem.message),
            ));
        }
    }
}

/// Drops what the language could not read back: a text over its string
/// limit, contributors past its limit per plugin. Each is a failure of its
/// source file, never a manifest with a language error in it.
fn within_limits(draft: &mut Draft, failures: &mut Vec<Failure>) {
    draft.contributors.retain(|contributor| {
        let fits = emit::fits_string_limit(&contributor.content);
        if !fits {
            failures.push(Failure {
                file: contributor.source.clone(),
                message: format!(
                    "its text is over the language's limit of {} bytes for one string",
                    crate::limits::MAX_STRING_BYTES
                ),
            });
        }
        fits
    });
    let limit = crate::limits::MAX_CONTRIBUTORS;
    if draft.contributors.len() > limit {
        for contributor in draft.contributors.drain(limit..) {
            failures.push(Failure {
                file: contributor.source,
                message: format!(
                    "the plugin already has {limit} contributors, the language's limit; import its folders one at a time"
                ),
            });
        }
    }
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Auto => "supported",
        Format::Skill => "skill",
        Format::ClaudePlugin => "claude-plugin",
        Format::Cursor => "cursor",
        Format::Instructions => "instructions",
        Format::Mcpb => "mcpb",
        Format::Copilot => "copilot",
        Format::AgentPlugin => "agent-plugin",
        Format::Mcp => "mcp",
    }
}

/// A unit's name before any manifest says otherwise: its folder's name
/// (without a leading dot), or the source's for the top folder.
fn unit_name(unit: &Unit, source: &str) -> String {
    let path = match unit {
        Unit::Folder(root) => root.as_str(),
        Unit::Bundle(file) => file.rsplit_once('/').map_or("", |(dir, _)| dir),
    };
    match path.rsplit('/').next() {
        Some(last) if !last.is_empty() => last.trim_start_matches('.').to_string(),
        _ => source.to_string(),
    }
}

/// Plugin names are file names under the scope, so two units that call
/// themselves the same are told apart by where they are: their folder (or
/// the bundle manifest's file name), else their whole path.
fn distinct_name(scope: &str, name: &str, unit: &Unit, taken: &mut HashSet<String>) -> String {
    let place = match unit {
        Unit::Folder(root) => root.clone(),
        Unit::Bundle(file) => file.trim_end_matches(".json").to_string(),
    };
    let nearest = place.rsplit('/').next().unwrap_or(&place).to_string();
    let candidates = [
        name.to_string(),
        emit::kebab(&format!("{name} {nearest}"), "plugin"),
        emit::kebab(&format!("{name} {place}"), "plugin"),
    ];
    for candidate in &candidates {
        if taken.insert(format!("{scope}/{candidate}")) {
            return candidate.clone();
        }
    }
    let longest = &candidates[2];
    let mut n = 2;
    loop {
        let candidate = format!("{longest}-{n}");
        if taken.insert(format!("{scope}/{candidate}")) {
            return candidate;
        }
        n += 1;
    }
}

/// The header every manifest starts with: where it came from, under what
/// licence, and that a person should review it.
fn attribute(draft: &mut Draft, tree: &SourceTree, unit: &Unit) {
    let place = match unit.path() {
        "" => tree.name.clone(),
        path => format!("{}/{path}", tree.name),
    };
    draft.header.push(format!(
        "Imported by `contrib import` from {place}; review before use."
    ));
    for note in tree.attribution_for(unit.path()) {
        draft.header.push(format!("Source: {note}"));
    }
}

/// A folder unit: a plugin root, or a project's files.
fn plugin(
    root: &str,
    files: &[(&InputFile, FileKind)],
    config: &Config,
    draft: &mut Draft,
    found: &mut Found,
) {
    let of = |wanted: &dyn Fn(&FileKind) -> bool| -> Vec<&InputFile> {
        let mut chosen: Vec<&InputFile> = files
            .iter()
            .filter(|(_, kind)| wanted(kind))
            .map(|(file, _)| *file)
            .collect();
        chosen.sort_by(|a, b| a.path.cmp(&b.path));
        chosen
    };
    let package = of(&|kind| *kind == FileKind::PluginManifest(Host::AgentPlugins))
        .into_iter()
        .find(|file| folder_of(&file.path) == root);
    let package = match package {
        Some(file) => match package::read(root, file, files, draft, found) {
            Some(package) => Some(package),
            // A refused plugin: none of its components is read.
            None => return,
        },
        None => None,
    };
    let mut always_loaded = claude_plugin::manifests(
        root,
        &of(&|kind| matches!(kind, FileKind::PluginManifest(host) if *host != Host::AgentPlugins)),
        draft,
        found.failures,
        package.is_some(),
    );
    let mut instruction_files = of(&|kind| matches!(kind, FileKind::Instructions));
    instruction_files.sort_by_key(|file| instructions::folder_order(&file.path));
    let siblings: Vec<&str> = instruction_files
        .iter()
        .map(|file| file.path.as_str())
        .collect();
    for file in &instruction_files {
        for (skill, why) in instructions::import(root, file, &siblings, draft) {
            always_loaded
                .entry(skill)
                .and_modify(|reasons| {
                    reasons.push_str("; ");
                    reasons.push_str(&why);
                })
                .or_insert(why);
        }
    }
    for file in of(&|kind| matches!(kind, FileKind::CursorRule)) {
        cursor::import(file, draft);
    }
    for file in of(&|kind| matches!(kind, FileKind::Skill)) {
        if let Some(package) = &package {
            if !package.skills.contains(&file.path) {
                continue;
            }
        }
        skill::import(file, &always_loaded, config, draft);
    }
    for file in of(&|kind| matches!(kind, FileKind::Agent | FileKind::CopilotAgent)) {
        claude_plugin::agent(file, config, draft);
    }
    for file in of(&|kind| matches!(kind, FileKind::Command { .. } | FileKind::PromptFile)) {
        claude_plugin::command(file, config, draft);
    }
    for file in of(&|kind| matches!(kind, FileKind::ChatMode)) {
        copilot::chat_mode(file, config, draft);
    }
    for file in of(&|kind| {
        matches!(
            kind,
            FileKind::Hooks | FileKind::Settings | FileKind::CopilotHooks
        )
    }) {
        if let Err(failure) = claude_plugin::hooks(file, draft) {
            found.failures.push(failure);
        }
    }
    for file in of(&|kind| matches!(kind, FileKind::McpServers(_))) {
        if package.is_some() && folder_of(&file.path) == root && file.path.ends_with("/mcp.json")
            || package.is_some() && root.is_empty() && file.path == "mcp.json"
        {
            continue;
        }
        if let Err(failure) = claude_plugin::mcp_servers(file, draft) {
            found.failures.push(failure);
        }
    }
}

/// The note for a name the language writes differently: reported, never
/// silently changed.
pub(crate) fn renamed(file: &str, what: &str, written: &str, name: &str) -> Note {
    Note::new(
        file,
        "name",
        format!("the {what} `{written}` is written `{name}`: names are lowercase kebab-case in the language"),
    )
}

/// Skills the sources say are always loaded, by skill folder, with why.
pub(crate) type AlwaysLoaded = BTreeMap<String, String>;

/// Parses JSON, or says which file is not JSON.
fn json(file: &InputFile) -> Result<serde_json::Value, Failure> {
    serde_json::from_str(&file.text).map_err(|error| Failure {
        file: file.path.clone(),
        message: format!("not valid JSON: {error}"),
    })
}

/// The folder of a relative path (`""` at the top).
fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The name of a file without its folder and extension.
fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split_once('.').map_or(name, |(stem, _)| stem)
}

/// Frontmatter keys that describe a package rather than what it adds to a
/// prompt; they are noted together, in one line per file.
const METADATA_KEYS: &[&str] = &[
    "author",
    "color",
    "compatibility",
    "homepage",
    "icon",
    "keywords",
    "license",
    "metadata",
    "repository",
    "tags",
    "version",
];

/// Notes for what a file's frontmatter holds beyond `mapped`: the reader's
/// problems, package metadata in one note, every other key in its own.
pub(crate) fn frontmatter_notes(
    file: &str,
    front: &frontmatter::Frontmatter,
    mapped: &[&str],
) -> Vec<Note> {
    let mut notes: Vec<Note> = front
        .problems
        .iter()
        .map(|problem| Note::new(file, "frontmatter", problem.clone()))
        .collect();
    let mut metadata = Vec::new();
    for entry in front.unmapped(mapped) {
        let value = entry.value.display();
        if METADATA_KEYS.contains(&entry.key.as_str()) {
            metadata.push((entry.key.clone(), value));
        } else if value.contains('\n') || value.len() > 80 {
            notes.push(
                Note::new(
                    file,
                    "field",
                    format!("`{}` has no counterpart in the language", entry.key),
                )
                .detail(value),
            );
        } else {
            notes.push(Note::new(
                file,
                "field",
                format!(
                    "`{}: {value}` has no counterpart in the language",
                    entry.key
                ),
            ));
        }
    }
    if !metadata.is_empty() {
        notes.push(metadata_note(file, metadata));
    }
    notes
}

/// One note for a file's package metadata (homepage, keywords, …), which
/// describes the package and adds nothing to a prompt.
pub(crate) fn metadata_note(file: &str, entries: Vec<(String, String)>) -> Note {
    let keys: Vec<String> = entries.iter().map(|(key, _)| format!("`{key}`")).collect();
    let detail: Vec<String> = entries
        .iter()
        .map(|(key, value)| format!("{key}: {}", shorten(value)))
        .collect();
    Note::new(
        file,
        "metadata",
        format!("package metadata {}", keys.join(", ")),
    )
    .detail(detail.join("\n"))
}

/// A value cut to a few hundred characters for a comment; the source file
/// named above it has the rest.
pub(crate) fn shorten(value: &str) -> String {
    const LIMIT: usize = 300;
    if value.len() <= LIMIT {
        return value.to_string();
    }
    let cut = crate::source::floor_char_boundary(value, LIMIT);
    format!(
        "{}… ({} more bytes in the source)",
        &value[..cut],
        value.len() - cut
    )
}

/// The comment for a list of tools (`allowed-tools`, `tools`): the names as
/// the language spells tools, and which the workspace does not declare.
/// Each is recorded in the draft's vocabulary for the report.
pub(crate) fn tool_vocabulary(
    key: &str,
    tools: &[String],
    config: &Config,
    draft: &mut Draft,
) -> String {
    let mut names: Vec<String> = Vec::new();
    for tool in tools {
        let base = tool.split('(').next().unwrap_or(tool).trim();
        if base.is_empty() || base == "*" {
            continue;
        }
        let name = emit::tool_name(base);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let undeclared: Vec<String> = names
        .iter()
        .filter(|name| !config.tools.contains_key(*name))
        .map(|name| format!("`{name}`"))
        .collect();
    for name in &names {
        draft
            .vocabulary
            .insert(name.clone(), config.tools.contains_key(name));
    }
    let spelled: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
    let mut comment = format!(
        "{key}: {}\ntool vocabulary: {}",
        tools.join(", "),
        spelled.join(", ")
    );
    if !undeclared.is_empty() {
        comment.push_str(&format!(
            "\nnot declared in the workspace: {}",
            undeclared.join(", ")
        ));
    }
    comment
}

/// The body as imported: the text after the frontmatter, without the line
/// breaks that only separate it from the frontmatter or end the file.
pub fn body_text(body: &str) -> String {
    body.trim_start_matches(['\n', '\r'])
        .trim_end_matches(['\n', '\r'])
        .to_string()
}

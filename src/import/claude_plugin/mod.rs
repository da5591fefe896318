//! Claude Code plugins: `plugin.json`, `agents/`, `commands/`, `hooks/`
//! and `.mcp.json`, with the Codex, Cursor, Kimi and Gemini manifests that
//! often sit beside `.claude-plugin/` (and `.claude/` in a project:
//! `agents/`, `commands/`, `settings.json`).
//!
//! - The manifest gives the plugin's name, version (a missing or
//!   non-semver version is written `0.0.0` with a warning), summary, and
//!   the author and licence as comments: the language's `owner` is a role,
//!   not a person, so it comes from `--owner`. When several agents'
//!   manifests describe the plugin, the first of Claude Code, Codex,
//!   Cursor, Kimi and Gemini names it and the others' differences are
//!   noted. Kimi's `skillInstructions` is a declarative contributor: an
//!   `agent` text. Kimi's `sessionStart` names a skill that is always
//!   loaded.
//! - A subagent (`agents/*.md`) is listed to the main agent by name and
//!   description (an `agent` text); its body is the subagent's own system
//!   prompt, a text that `applies on subagent NAME`: what the conversation
//!   is told when the agent delegates to it.
//! - A command (`commands/*.md`) is listed by name, argument hint and
//!   description (an `agent` text, unless the command hides itself from
//!   the model); its body is added to the conversation when a person runs
//!   it, a text that `applies on command NAME`. Its shell expansions
//!   (`` !`cmd` ``) and `$ARGUMENTS` are noted: they run or vary per
//!   invocation.
//! - Both bodies are placed at `agent`: placement says how widely a text is
//!   shared, and these are the same for everyone who uses the agent; when
//!   they are sent is their activation's to say.
//! - A `SessionStart` hook becomes an `eager-run` stub of
//!   [`HOOK_TOOL`] with the command, flagged for review. The tool is left
//!   undeclared on purpose: a hook runs a shell command, and the checker
//!   must not take it for read-only, so `unknown-tool` refuses it until a
//!   workspace declares it (as `effect = "write"`, which `eager-run-writes`
//!   refuses in turn). Other hook events are noted.
//! - MCP servers (`.mcp.json`, `mcpServers`) are noted: their tools are
//!   loaded at start, but the files do not name them.

use serde_json::{Map, Value};

use super::detect::Host;
use super::emit::{kebab, Content, Draft, DraftContributor};
use super::{json, metadata_note, shorten, AlwaysLoaded, Failure, InputFile, Note};
use crate::ir::Placement;

mod hooks;
mod prompts;

use hooks::hook_events;
pub(super) use hooks::hooks;
pub(super) use prompts::{agent, command};

/// The tool an imported hook's `eager-run` calls. No workspace declares it
/// unless it chooses to, so the checker cannot take a hook for read-only.
pub(super) const HOOK_TOOL: &str = "run_shell_command";

/// Manifest keys that only describe the package.
const PACKAGE_KEYS: &[&str] = &[
    "$schema",
    "brandColor",
    "category",
    "displayName",
    "homepage",
    "interface",
    "keywords",
    "logo",
    "publisher",
    "repository",
    "tags",
];

/// Manifest keys that say where the plugin's files are; the files are
/// found by the layout, so these are kept in a comment only.
const LOCATION_KEYS: &[&str] = &["skills", "agents", "commands", "rules", "contextFileName"];

/// Reads the plugin manifests of a plugin root (none for a project);
/// returns the skills they say are always loaded. A manifest that cannot
/// be read is a failure of its own; the plugin is imported without it.
///
/// `named`: an Agent Plugins manifest already named the plugin, so every
/// manifest here only adds what it says beyond that.
pub(super) fn manifests(
    root: &str,
    files: &[&InputFile],
    draft: &mut Draft,
    failures: &mut Vec<Failure>,
    named: bool,
) -> AlwaysLoaded {
    let mut always = AlwaysLoaded::new();
    let mut manifests = Vec::new();
    for file in files {
        match json(file) {
            Ok(Value::Object(object)) => manifests.push((host_of(&file.path), *file, object)),
            Ok(_) => failures.push(Failure {
                file: file.path.clone(),
                message: "a plugin manifest must be a JSON object".into(),
            }),
            Err(failure) => failures.push(failure),
        }
    }
    manifests.sort_by_key(|(host, file, _)| (*host, file.path.clone()));
    if named {
        for (host, file, object) in &manifests {
            draft.read(&file.path);
            rest(root, *host, file, object, draft, &mut always);
        }
        return always;
    }
    let Some((first_host, first_file, first)) = manifests.first() else {
        draft.header.push(
            "Not a packaged plugin: no manifest gives a version, so it is written as 0.0.0.".into(),
        );
        return always;
    };
    identity(*first_host, first_file, first, draft);
    for (host, file, object) in &manifests {
        draft.read(&file.path);
        if !std::ptr::eq(*file, *first_file) {
            differences(*host, file, object, first, draft);
        }
        rest(root, *host, file, object, draft, &mut always);
    }
    always
}

fn host_of(path: &str) -> Host {
    if !path.contains("-plugin/") && path.ends_with("plugin.json") {
        return Host::AgentPlugins;
    }
    [
        (".claude-plugin/", Host::Claude),
        (".codex-plugin/", Host::Codex),
        (".cursor-plugin/", Host::Cursor),
        (".kimi-plugin/", Host::Kimi),
    ]
    .into_iter()
    .find(|(folder, _)| format!("/{path}").contains(&format!("/{folder}")))
    .map_or(Host::Gemini, |(_, host)| host)
}

/// Name, version, summary, author and licence, from the first manifest.
fn identity(host: Host, file: &InputFile, object: &Map<String, Value>, draft: &mut Draft) {
    let manifest = format!("the {} manifest", host.as_str());
    name_and_version(file, object, &manifest, "plugin", draft);
    describe(draft, object);
    // Codex's `interface` says in a line what the plugin is for: the
    // summary, when the manifest gives no description.
    if draft.summary.is_none() {
        draft.summary = object
            .get("interface")
            .and_then(|interface| interface.get("shortDescription"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_string);
    }
}

/// The name (as kebab case, else `fallback`) and semantic version a
/// manifest (plugin.json, an MCP bundle's manifest.json) gives; a missing
/// or unreadable version is a warning naming `manifest` ("the bundle").
pub(super) fn name_and_version(
    file: &InputFile,
    object: &Map<String, Value>,
    manifest: &str,
    fallback: &str,
    draft: &mut Draft,
) {
    if let Some(name) = object.get("name").and_then(Value::as_str) {
        draft.name = kebab(name, fallback);
    }
    let message = match object.get("version") {
        Some(Value::String(version)) => match semver::Version::parse(version) {
            Ok(parsed) => {
                draft.version = parsed;
                return;
            }
            Err(_) => format!("{manifest}'s version `{version}` is not a semantic version"),
        },
        Some(other) => format!("{manifest}'s version `{other}` is not a semantic version"),
        None => format!("{manifest} gives no version"),
    };
    warn_version(draft, &file.path, message);
}

/// The summary, author and licence a manifest (plugin.json, an MCP
/// bundle's manifest.json) gives, in the draft's summary and header.
pub(super) fn describe(draft: &mut Draft, object: &serde_json::Map<String, Value>) {
    draft.summary = object
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_string);
    if let Some(author) = object.get("author").map(author) {
        draft.header.push(format!(
            "Author: {author} (the language's owner is a role, set by `--owner`)"
        ));
    }
    if let Some(license) = object.get("license").and_then(Value::as_str) {
        draft.header.push(format!("Declared licence: {license}"));
    }
}

pub(super) fn warn_version(draft: &mut Draft, file: &str, message: String) {
    draft.notes.push(Note::warning(
        file,
        "version",
        format!("{message}; written as 0.0.0"),
    ));
}

/// `{name, email, url}` or a string, as one line.
pub(super) fn author(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Object(object) => {
            let field = |key: &str| object.get(key).and_then(Value::as_str);
            let mut text = field("name").unwrap_or("(no name)").to_string();
            if let Some(email) = field("email") {
                text.push_str(&format!(" <{email}>"));
            }
            if let Some(url) = field("url") {
                text.push_str(&format!(" ({url})"));
            }
            text
        }
        other => other.to_string(),
    }
}

/// What another agent's manifest says differently about the plugin.
fn differences(
    host: Host,
    file: &InputFile,
    object: &Map<String, Value>,
    first: &Map<String, Value>,
    draft: &mut Draft,
) {
    for key in ["name", "version", "description", "author", "license"] {
        let (Some(theirs), ours) = (object.get(key), first.get(key)) else {
            continue;
        };
        if Some(theirs) != ours {
            let theirs = if key == "author" {
                author(theirs)
            } else {
                display(theirs)
            };
            draft.notes.push(Note::new(
                &file.path,
                "host",
                format!(
                    "the {} manifest's {key} differs: {}",
                    host.as_str(),
                    shorten(&theirs)
                ),
            ));
        }
    }
}

/// Everything but the identity: host-specific contributors, hooks, MCP
/// servers, and notes for what has no counterpart.
fn rest(
    root: &str,
    host: Host,
    file: &InputFile,
    object: &Map<String, Value>,
    draft: &mut Draft,
    always: &mut AlwaysLoaded,
) {
    let mut package = Vec::new();
    let mut locations = Vec::new();
    for (key, value) in object {
        match key.as_str() {
            "name" | "version" | "description" | "author" | "license" => {}
            "skillInstructions" => skill_instructions(file, value, draft),
            "sessionStart" => session_start(root, file, object, value, draft, always),
            "hooks" => match value {
                Value::Object(_) => hook_events(file, None, value, draft),
                Value::String(path) => locations.push(format!("hooks in `{path}`")),
                _ => {}
            },
            "mcpServers" => servers(file, value, draft),
            key if LOCATION_KEYS.contains(&key) => {
                locations.push(format!("{key} in `{}`", display(value)));
            }
            key if PACKAGE_KEYS.contains(&key) => package.push((key.to_string(), display(value))),
            key => draft.notes.push(unmapped_field(file, key, value)),
        }
    }
    if !locations.is_empty() {
        draft.header.push(format!(
            "The {} manifest ({}) puts {}.",
            host.as_str(),
            file.path,
            locations.join(", ")
        ));
    }
    if !package.is_empty() {
        draft.notes.push(metadata_note(&file.path, package));
    }
}

/// Kimi's `skillInstructions`: text Kimi adds to every conversation.
fn skill_instructions(file: &InputFile, value: &Value, draft: &mut Draft) {
    let Some(text) = value.as_str().filter(|text| !text.trim().is_empty()) else {
        return;
    };
    draft.contributors.push(DraftContributor {
        activation: None,
        id: "skill-instructions".into(),
        source: file.path.clone(),
        comments: vec![format!(
            "from {}: Kimi's `skillInstructions`, added to every conversation",
            file.path
        )],
        notes: Vec::new(),
        placement: Placement::Agent,
        content: Content::Text(text.to_string()),
    });
}

/// Kimi's `sessionStart: { skill }`: that skill is loaded at every start.
fn session_start(
    root: &str,
    file: &InputFile,
    object: &Map<String, Value>,
    value: &Value,
    draft: &mut Draft,
    always: &mut AlwaysLoaded,
) {
    let skill = value.get("skill").and_then(Value::as_str);
    let Some(skill) = skill else {
        draft.notes.push(
            Note::new(&file.path, "field", "`sessionStart` names no skill").detail(display(value)),
        );
        return;
    };
    let skills = object
        .get("skills")
        .and_then(Value::as_str)
        .unwrap_or("./skills/");
    let folder = [
        root,
        skills.trim_start_matches("./").trim_end_matches('/'),
        skill,
    ]
    .into_iter()
    .filter(|part| !part.is_empty())
    .collect::<Vec<_>>()
    .join("/");
    always.insert(folder, format!("Kimi's `sessionStart` in {}", file.path));
}

/// The MCP servers of a manifest or `.mcp.json`, each a note.
fn servers(file: &InputFile, value: &Value, draft: &mut Draft) {
    let Value::Object(servers) = value else {
        return;
    };
    for (name, server) in servers {
        let start = match (
            server.get("command").and_then(Value::as_str),
            server.get("url").and_then(Value::as_str),
        ) {
            (Some(command), _) => {
                let args: Vec<String> = server
                    .get("args")
                    .and_then(Value::as_array)
                    .map(|args| args.iter().map(display).collect())
                    .unwrap_or_default();
                format!(
                    "runs `{}`",
                    [vec![command.to_string()], args].concat().join(" ")
                )
            }
            (None, Some(url)) => format!("connects to {url}"),
            (None, None) => "has no command or url".to_string(),
        };
        let transport =
            server
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or(if server.get("url").is_some() {
                    "http"
                } else {
                    "stdio"
                });
        draft.servers.push(super::agent_plugin::Server {
            name: name.clone(),
            transport: transport.to_string(),
            target: start.clone(),
        });
        draft.notes.push(Note::new(
            &file.path,
            "mcp server",
            format!("MCP server `{name}` {start}: its tools are loaded at start, but no file names them, so there is no `eager-load` for them"),
        ));
    }
}

/// `.mcp.json` or a project's `mcp.json`: servers under `mcpServers`
/// (VS Code: `servers`), or at the top. VS Code's `inputs` (values asked
/// of the person) are noted.
pub(super) fn mcp_servers(file: &InputFile, draft: &mut Draft) -> Result<(), Failure> {
    let value = json(file)?;
    draft.read(&file.path);
    match value.get("mcpServers").or_else(|| value.get("servers")) {
        Some(listed) => servers(file, listed, draft),
        None => servers(file, &value, draft),
    }
    if let Some(inputs) = value.get("inputs") {
        draft.notes.push(
            Note::new(
                &file.path,
                "field",
                "`inputs`: values VS Code asks the person for when a server starts; they reach the server, never the prompt",
            )
            .detail(shorten(&display(inputs))),
        );
    }
    Ok(())
}

/// Servers an Agent Plugins `mcp.json` declares, already checked.
pub(super) fn checked_servers(
    file: &str,
    servers: Vec<super::agent_plugin::Server>,
    draft: &mut Draft,
) {
    draft.read(file);
    for server in servers {
        let start = match server.transport.as_str() {
            "stdio" => format!("runs `{}`", server.target),
            transport => format!("connects to {} ({transport})", server.target),
        };
        draft.notes.push(Note::new(
            file,
            "mcp server",
            format!("MCP server `{}` {start}: its tools are loaded at start, but no file names them, so there is no `eager-load` for them", server.name),
        ));
        draft.servers.push(server);
    }
}

/// A JSON value on one line: strings without quotes, the rest as JSON.
pub(super) fn display(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The note for a manifest key the language has no counterpart for.
pub(super) fn unmapped_field(file: &InputFile, key: &str, value: &Value) -> Note {
    Note::new(
        &file.path,
        "field",
        format!("`{key}` has no counterpart in the language"),
    )
    .detail(shorten(&display(value)))
}

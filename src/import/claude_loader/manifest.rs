//! `.claude-plugin/plugin.json` as Claude Code reads it: a JSON object
//! whose `name` is required, whose metadata fields have fixed types, and
//! whose component paths (`commands`, `agents`, `skills`, `hooks`,
//! `mcpServers`, `outputStyles`, `lspServers`) start with `./`, stay in the
//! plugin, exist, and are of the kind the component needs. Any of these
//! broken and Claude Code does not load the plugin. Fields it does not
//! know are ignored, with a warning.

use serde_json::{Map, Value};

use super::super::checks::Known;
use super::super::json_path::Step;
use super::super::problem::{Problem, ProblemKind};
use super::super::InputFile;
use super::{
    a_json, hooks, is_kebab, is_plugin_relative, is_reserved, join, required_string, servers,
    Judged, ENTRY_FIELDS, PLUGIN_FIELDS,
};

const REFUSED: &str = "so Claude Code does not load the plugin";

/// Component paths, and whether each entry must be a Markdown file
/// (`agents`) or a folder (`skills`).
const COMPONENTS: &[(&str, Entry)] = &[
    ("commands", Entry::FileOrFolder),
    ("agents", Entry::Markdown),
    ("skills", Entry::Folder),
    ("hooks", Entry::FileOrFolder),
    ("mcpServers", Entry::FileOrFolder),
    ("outputStyles", Entry::FileOrFolder),
    ("lspServers", Entry::FileOrFolder),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Entry {
    FileOrFolder,
    Markdown,
    Folder,
}

/// The problems of a Claude Code `plugin.json`; `listed_by_anthropic`
/// says a marketplace of Anthropic's own lists the plugin, which may then
/// bear a reserved name.
pub(in crate::import) fn plugin_manifest(
    file: &InputFile,
    known: &Known,
    listed_by_anthropic: bool,
) -> Vec<Problem> {
    let mut judged = Judged::new(file);
    let Some(value) = judged.json(ProblemKind::InvalidPluginManifest, REFUSED) else {
        return judged.problems;
    };
    let Value::Object(object) = value else {
        judged.push(
            ProblemKind::InvalidPluginManifest,
            &[],
            format!(
                "`plugin.json` is {}, not a JSON object, {REFUSED}",
                a_json(&value)
            ),
            "not an object",
            "write the manifest as one JSON object: `{ \"name\": … }`",
        );
        return judged.problems;
    };
    let root = plugin_root(&file.path);
    name(&mut judged, &object, listed_by_anthropic);
    metadata(&mut judged, &object);
    for (key, entry) in COMPONENTS {
        if let Some(value) = object.get(*key) {
            component(&mut judged, known, &root, key, *entry, value);
        }
    }
    unknown_fields(&mut judged, &object);
    judged.problems
}

/// The plugin's root: the folder holding `.claude-plugin/`.
fn plugin_root(path: &str) -> String {
    let folder = super::super::folder_of(path);
    super::super::folder_of(folder).to_string()
}

fn name(judged: &mut Judged, object: &Map<String, Value>, listed_by_anthropic: bool) {
    let key = [Step::Key("name")];
    match object.get("name") {
        None => {
            judged.push(
                ProblemKind::InvalidPluginManifest,
                &[],
                format!("`plugin.json` has no `name`, {REFUSED}"),
                "no `name` in this object",
                "add `\"name\": \"my-plugin\"`, in kebab-case",
            );
        }
        Some(Value::String(name)) if name.contains(char::is_whitespace) => {
            judged.push(
                ProblemKind::InvalidPluginManifest,
                &key,
                format!("the plugin name `{name}` holds spaces, {REFUSED}"),
                "spaces in the name",
                format!(
                    "use kebab-case: `{}`",
                    super::super::emit::kebab(name, "plugin")
                ),
            );
        }
        Some(Value::String(name)) if is_reserved(name) && !listed_by_anthropic => {
            judged.push(
                ProblemKind::InvalidPluginManifest,
                &key,
                format!("the plugin name `{name}` is reserved for Anthropic's own plugins, {REFUSED}"),
                "a reserved name",
                "name the plugin for what it does, without `claude`, `anthropic` or `cc-plugin-` at its start",
            );
        }
        Some(Value::String(name)) if !is_kebab(name) => {
            judged.push(
                ProblemKind::CatalogMetadata,
                &key,
                format!("the plugin name `{name}` is not kebab-case, which Claude's marketplace sync requires"),
                "not kebab-case",
                format!("rename the plugin `{}`", super::super::emit::kebab(name, "plugin")),
            );
        }
        Some(Value::String(_)) => {}
        Some(other) => {
            judged.push(
                ProblemKind::InvalidPluginManifest,
                &key,
                format!("`name` is {}, not a string, {REFUSED}", a_json(other)),
                "not a string",
                "write the name as a string in kebab-case",
            );
        }
    }
}

/// The metadata fields' types, and what a catalog expects of them.
fn metadata(judged: &mut Judged, object: &Map<String, Value>) {
    for key in [
        "version",
        "description",
        "license",
        "repository",
        "displayName",
        "$schema",
    ] {
        judged.string_field(
            object,
            &[],
            key,
            ProblemKind::InvalidPluginManifest,
            REFUSED,
        );
    }
    match object.get("homepage") {
        Some(Value::String(url)) if !is_url(url) => {
            judged.push(
                ProblemKind::InvalidPluginManifest,
                &[Step::Key("homepage")],
                format!("`homepage` is `{url}`, not a URL, {REFUSED}"),
                "not a URL",
                "write the full address, starting `https://`",
            );
        }
        Some(Value::String(_)) | None => {}
        Some(other) => {
            judged.push(
                ProblemKind::InvalidPluginManifest,
                &[Step::Key("homepage")],
                format!("`homepage` is {}, not a URL, {REFUSED}", a_json(other)),
                "not a URL",
                "write the full address as a string, starting `https://`",
            );
        }
    }
    if let Some(keywords) = object.get("keywords") {
        if !keywords.is_array() {
            judged.push(
                ProblemKind::InvalidPluginManifest,
                &[Step::Key("keywords")],
                format!("`keywords` is {}, not a list, {REFUSED}", a_json(keywords)),
                "not a list",
                "write the keywords as a list: `[\"a\", \"b\"]`",
            );
        }
    }
    author(judged, object.get("author"));
    for key in ["version", "author"] {
        if !object.contains_key(key) {
            judged.push(
                ProblemKind::CatalogMetadata,
                &[],
                match key {
                    "version" => "`plugin.json` has no `version`, which catalogs show and updates compare".to_string(),
                    _ => "`plugin.json` has no `author`, which catalogs show to people installing the plugin".to_string(),
                },
                &format!("no `{key}` in this object"),
                match key {
                    "version" => "add `\"version\": \"1.0.0\"`, a semantic version",
                    _ => "add `\"author\": { \"name\": … }`",
                },
            );
        }
    }
}

fn author(judged: &mut Judged, author: Option<&Value>) {
    let key = [Step::Key("author")];
    match author {
        None => {}
        Some(Value::Object(fields)) => match fields.get("name") {
            Some(Value::String(_)) => {}
            other => {
                judged.push(
                    ProblemKind::InvalidPluginManifest,
                    &key,
                    required_string("`author`", "name", other, REFUSED),
                    "no author name",
                    "give the author's name: `\"author\": { \"name\": \"…\" }`",
                );
            }
        },
        Some(other) => {
            judged.push(
                ProblemKind::InvalidPluginManifest,
                &key,
                format!("`author` is {}, not an object, {REFUSED}", a_json(other)),
                "not an object",
                "write the author as an object: `\"author\": { \"name\": \"…\" }`",
            );
        }
    }
}

/// One component field: paths that start with `./`, stay inside, exist
/// and are of the right kind; inline hooks and servers, as their files.
fn component(
    judged: &mut Judged,
    known: &Known,
    root: &str,
    key: &str,
    entry: Entry,
    value: &Value,
) {
    let paths: Vec<(Vec<Step<'_>>, &str)> = match value {
        Value::String(path) => vec![(vec![Step::Key(key)], path.as_str())],
        Value::Array(items) if items.iter().all(Value::is_string) => items
            .iter()
            .enumerate()
            .filter_map(|(index, item)| {
                item.as_str()
                    .map(|path| (vec![Step::Key(key), Step::Index(index)], path))
            })
            .collect(),
        Value::Object(_) if key == "hooks" => {
            let problems = hooks::inline(judged.file, &[Step::Key("hooks")], value);
            judged.problems.extend(problems);
            return;
        }
        Value::Object(_) if key == "mcpServers" => {
            let problems = servers::inline(judged.file, &[Step::Key("mcpServers")], value);
            judged.problems.extend(problems);
            return;
        }
        other => {
            judged.push(
                ProblemKind::InvalidPluginManifest,
                &[Step::Key(key)],
                format!(
                    "`{key}` is {}, not a path or a list of paths, {REFUSED}",
                    a_json(other)
                ),
                "not a path",
                format!("write `{key}` as `\"./{key}/\"` or a list of such paths"),
            );
            return;
        }
    };
    for (path_steps, path) in paths {
        if !is_plugin_relative(path) {
            judged.push(
                ProblemKind::InvalidPluginManifest,
                &path_steps,
                format!("`{key}` names `{path}`, which does not start with `./` inside the plugin, {REFUSED}"),
                "not `./…`",
                "write the path relative to the plugin's root, starting `./`, without `..`",
            );
            continue;
        }
        let joined = join(root, path);
        let is_folder = known.is_folder(&joined);
        if !is_folder && !known.is_file(&joined) {
            judged.push(
                ProblemKind::MissingPath,
                &path_steps,
                format!("`{key}` names `{path}`, which is not in the plugin, {REFUSED}"),
                "no such file or folder",
                "correct the path (relative to the plugin's root, starting `./`), or add what it names",
            );
            continue;
        }
        match entry {
            Entry::Markdown if !path.ends_with(".md") => {
                judged.push(
                    ProblemKind::InvalidPluginManifest,
                    &path_steps,
                    format!("`agents` names `{path}`, but each of its entries must be a `.md` file, {REFUSED}"),
                    "not a `.md` file",
                    "list each subagent's file (`./agents/reviewer.md`), or remove `agents`: Claude Code reads `agents/` by itself",
                );
            }
            Entry::Folder if !is_folder => {
                judged.push(
                    ProblemKind::InvalidPluginManifest,
                    &path_steps,
                    format!("`skills` names the file `{path}`, but each of its entries must be a folder holding `SKILL.md`, {REFUSED}"),
                    "a file, not a folder",
                    format!("name the skill's folder: `{}`", path.rsplit_once('/').map_or(path, |(folder, _)| folder)),
                );
            }
            _ => {}
        }
    }
}

fn unknown_fields(judged: &mut Judged, object: &Map<String, Value>) {
    for key in object.keys() {
        if PLUGIN_FIELDS.contains(&key.as_str()) {
            continue;
        }
        let (message, help) = if ENTRY_FIELDS.contains(&key.as_str()) {
            (
                format!("`{key}` belongs in the plugin's marketplace entry, so Claude Code ignores it in `plugin.json`"),
                format!("move `{key}` to the plugin's entry in `marketplace.json`, or remove it"),
            )
        } else {
            let closest = crate::suggest::closest(key, PLUGIN_FIELDS.iter().copied());
            (
                format!("`{key}` is not a field of Claude Code's `plugin.json`, so it is ignored"),
                match closest {
                    Some(field) => format!("did you mean `{field}`? otherwise remove it"),
                    None => "remove it, or move what it says into `description`".to_string(),
                },
            )
        };
        judged.push(
            ProblemKind::IgnoredManifestField,
            &[Step::Key(key)],
            message,
            "ignored",
            help,
        );
    }
}

/// Whether `text` is an absolute URL with a scheme and a host.
fn is_url(text: &str) -> bool {
    text.split_once("://").is_some_and(|(scheme, rest)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !rest.is_empty()
            && !rest.starts_with('/')
            && !text.contains(char::is_whitespace)
    })
}

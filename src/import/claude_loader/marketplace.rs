//! `.claude-plugin/marketplace.json`, the catalogue Claude Code installs
//! plugins from: a `name` usable in plugin ids, an `owner` with a name, and
//! `plugins`, each entry with a unique `name` and a `source` (a `./` path
//! in the repository, or an object naming where to fetch it). A broken
//! marketplace installs nothing, so each problem is an error; a field
//! Claude Code does not read is ignored, with a warning.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::super::json_path::Step;
use super::super::problem::{Problem, ProblemKind};
use super::super::InputFile;
use super::{
    a_json, hooks, is_reserved, required_string, servers, Judged, ENTRY_FIELDS, PLUGIN_FIELDS,
};

const REFUSED: &str = "so Claude Code cannot install from the marketplace";

/// The fields of the marketplace itself.
const FIELDS: &[&str] = &[
    "$schema",
    "name",
    "owner",
    "plugins",
    "metadata",
    "description",
    "version",
    "allowCrossMarketplaceDependenciesOn",
    "renames",
];

/// Where a plugin is fetched from, by `source.source`, and what each needs.
const SOURCES: &[(&str, &str)] = &[
    ("github", "repo"),
    ("url", "url"),
    ("git", "url"),
    ("git-subdir", "url"),
    ("npm", "package"),
    ("pip", "package"),
];

/// Whether `path` is a Claude Code marketplace file.
pub(in crate::import) fn is_marketplace(path: &str) -> bool {
    path == ".claude-plugin/marketplace.json" || path.ends_with("/.claude-plugin/marketplace.json")
}

/// The problems of a marketplace, and the names of the plugins it lists
/// with whether it is Anthropic's own (its name is reserved, as only
/// Anthropic's may be).
pub(in crate::import) fn marketplace(file: &InputFile) -> (Vec<Problem>, Vec<String>, bool) {
    let mut judged = Judged::new(file);
    let Some(value) = judged.json(ProblemKind::InvalidMarketplace, REFUSED) else {
        return (judged.problems, Vec::new(), false);
    };
    // Another tool's catalogue under the same name (a list of its own
    // components, no marketplace field at all) is not Claude Code's.
    if value.as_object().is_some_and(|object| {
        !["name", "owner", "plugins"]
            .iter()
            .any(|key| object.contains_key(*key))
    }) {
        return (Vec::new(), Vec::new(), false);
    }
    let Value::Object(object) = &value else {
        judged.push(
            ProblemKind::InvalidMarketplace,
            &[],
            format!(
                "`marketplace.json` is {}, not a JSON object, {REFUSED}",
                a_json(&value)
            ),
            "not an object",
            "write `{ \"name\": …, \"owner\": { \"name\": … }, \"plugins\": [ … ] }`",
        );
        return (judged.problems, Vec::new(), false);
    };
    let anthropic = name(&mut judged, object);
    owner(&mut judged, object.get("owner"));
    let plugin_root = object
        .get("metadata")
        .is_some_and(|metadata| metadata.get("pluginRoot").is_some());
    let listed = plugins(&mut judged, object.get("plugins"), plugin_root);
    let described = object.contains_key("description")
        || object
            .get("metadata")
            .is_some_and(|metadata| metadata.get("description").is_some());
    if !described {
        judged.push(
            ProblemKind::CatalogMetadata,
            &[],
            "the marketplace has no `description`, which people choosing it read",
            "no `description`",
            "add `\"description\": \"…\"`, saying what the marketplace offers",
        );
    }
    unknown(&mut judged, &[], object, FIELDS, "the marketplace");
    (judged.problems, listed, anthropic)
}

/// The marketplace's name; returns whether it is reserved (Anthropic's).
fn name(judged: &mut Judged, object: &Map<String, Value>) -> bool {
    let key = [Step::Key("name")];
    match object.get("name") {
        Some(Value::String(name)) => {
            let usable = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
            if !usable {
                judged.push(
                    ProblemKind::InvalidMarketplace,
                    &key,
                    format!("the marketplace name `{name}` cannot be part of a plugin id, {REFUSED}"),
                    "not usable in `plugin@marketplace`",
                    "use letters, digits, `.`, `_` and `-`, starting with a letter or digit, such as `acme-tools`",
                );
            }
            is_reserved(name)
        }
        other => {
            judged.push(
                ProblemKind::InvalidMarketplace,
                if other.is_some() { &key } else { &[] },
                required_string("`marketplace.json`", "name", other, REFUSED),
                "no name",
                "add `\"name\": \"acme-tools\"`",
            );
            false
        }
    }
}

fn owner(judged: &mut Judged, owner: Option<&Value>) {
    let key = [Step::Key("owner")];
    let problem = match owner {
        Some(Value::Object(fields)) if fields.get("name").is_some_and(Value::is_string) => return,
        Some(Value::Object(_)) => "`owner` has no `name`".to_string(),
        None => "`marketplace.json` has no `owner`".to_string(),
        Some(other) => format!("`owner` is {}, not an object", a_json(other)),
    };
    judged.push(
        ProblemKind::InvalidMarketplace,
        if owner.is_some() { &key } else { &[] },
        format!("{problem}, {REFUSED}"),
        "no owner name",
        "say who maintains it: `\"owner\": { \"name\": \"…\", \"email\": \"…\" }`",
    );
}

/// The entries; returns the plugin names listed. `plugin_root`: the
/// marketplace's `metadata.pluginRoot` gives the folder bare sources are in.
fn plugins(judged: &mut Judged, plugins: Option<&Value>, plugin_root: bool) -> Vec<String> {
    let key = [Step::Key("plugins")];
    let entries = match plugins {
        Some(Value::Array(entries)) => entries,
        other => {
            judged.push(
                ProblemKind::InvalidMarketplace,
                if other.is_some() { &key } else { &[] },
                match other {
                    None => format!("`marketplace.json` has no `plugins` list, {REFUSED}"),
                    Some(value) => format!("`plugins` is {}, not a list, {REFUSED}", a_json(value)),
                },
                "no list of plugins",
                "list the plugins: `\"plugins\": [ { \"name\": …, \"source\": \"./plugins/…\" } ]`",
            );
            return Vec::new();
        }
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut listed = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let at = [Step::Key("plugins"), Step::Index(index)];
        let Value::Object(entry) = entry else {
            judged.push(
                ProblemKind::InvalidMarketplace,
                &at,
                format!(
                    "a plugin entry is {}, not an object, {REFUSED}",
                    a_json(entry)
                ),
                "not an object",
                "write `{ \"name\": …, \"source\": \"./plugins/…\" }`",
            );
            continue;
        };
        if let Some(name) = entry_name(judged, &at, entry) {
            if let Some(first) = seen.insert(name.clone(), index) {
                judged.push(
                    ProblemKind::InvalidMarketplace,
                    &[&at[..], &[Step::Key("name")]].concat(),
                    format!(
                        "the plugin `{name}` is listed twice (entries {} and {}), {REFUSED}",
                        first + 1,
                        index + 1
                    ),
                    "listed again",
                    "remove one of the entries, or rename one of the plugins",
                );
            }
            listed.push(name);
        }
        source(judged, &at, entry.get("source"), plugin_root);
        entry_types(judged, &at, entry);
        let fields: Vec<&str> = ENTRY_FIELDS.iter().chain(PLUGIN_FIELDS).copied().collect();
        unknown(judged, &at, entry, &fields, "a plugin entry");
    }
    listed
}

fn entry_name(judged: &mut Judged, at: &[Step<'_>], entry: &Map<String, Value>) -> Option<String> {
    match entry.get("name") {
        Some(Value::String(name)) => Some(name.clone()),
        other => {
            judged.push(
                ProblemKind::InvalidMarketplace,
                at,
                required_string("a plugin entry", "name", other, REFUSED),
                "no name",
                "give the entry the plugin's name: `\"name\": \"…\"`",
            );
            None
        }
    }
}

fn source(judged: &mut Judged, at: &[Step<'_>], source: Option<&Value>, plugin_root: bool) {
    let path = [at, &[Step::Key("source")]].concat();
    let problem = match source {
        None => "has no `source`".to_string(),
        Some(Value::String(path)) if path.starts_with("./") || plugin_root => return,
        Some(Value::String(path)) => {
            format!("has the source `{path}`, which does not start with `./`")
        }
        Some(Value::Object(fields)) => match fields.get("source").and_then(Value::as_str) {
            Some(kind) => match SOURCES.iter().find(|(name, _)| *name == kind) {
                Some((_, needs)) if fields.get(*needs).is_some_and(Value::is_string) => return,
                Some((_, needs)) => format!("has a `{kind}` source without `{needs}`"),
                None => format!("has a source of the unknown kind `{kind}`"),
            },
            None => "has a source object without `source` saying its kind".to_string(),
        },
        Some(other) => format!("has {} as its `source`", a_json(other)),
    };
    judged.push(
        ProblemKind::InvalidMarketplace,
        if source.is_some() { &path } else { at },
        format!("a plugin entry {problem}, {REFUSED}"),
        "no usable source",
        "write `\"source\": \"./plugins/name\"`, or `{ \"source\": \"github\", \"repo\": \"owner/repo\" }`",
    );
}

/// The entry's typed fields, and its inline components.
fn entry_types(judged: &mut Judged, at: &[Step<'_>], entry: &Map<String, Value>) {
    for key in [
        "version",
        "description",
        "category",
        "license",
        "homepage",
        "repository",
    ] {
        judged.string_field(entry, at, key, ProblemKind::InvalidMarketplace, REFUSED);
    }
    type Fits = fn(&Value) -> bool;
    let typed: &[(&str, Fits, &str)] = &[
        ("keywords", Value::is_array, "a list"),
        ("tags", Value::is_array, "a list"),
        ("strict", Value::is_boolean, "`true` or `false`"),
    ];
    for (key, fits, wanted) in typed {
        if let Some(value) = entry.get(*key) {
            if !fits(value) {
                judged.push(
                    ProblemKind::InvalidMarketplace,
                    &[at, &[Step::Key(key)]].concat(),
                    format!(
                        "a plugin entry's `{key}` is {}, not {wanted}, {REFUSED}",
                        a_json(value)
                    ),
                    "wrong type",
                    format!("write `{key}` as {wanted}"),
                );
            }
        }
    }
    if let Some(value) = entry.get("hooks") {
        let path = [at, &[Step::Key("hooks")]].concat();
        match value {
            Value::Object(_) => {
                let problems = hooks::inline(judged.file, &path, value);
                judged.problems.extend(problems);
            }
            Value::String(_) | Value::Array(_) => {}
            other => {
                judged.push(
                    ProblemKind::InvalidMarketplace,
                    &path,
                    format!("a plugin entry's `hooks` is {}, not a path or an object of events, {REFUSED}", a_json(other)),
                    "wrong type",
                    "write `\"hooks\": \"./hooks/hooks.json\"`",
                );
            }
        }
    }
    if let Some(value @ Value::Object(_)) = entry.get("mcpServers") {
        let path = [at, &[Step::Key("mcpServers")]].concat();
        let problems = servers::inline(judged.file, &path, value);
        judged.problems.extend(problems);
    }
}

fn unknown(
    judged: &mut Judged,
    at: &[Step<'_>],
    object: &Map<String, Value>,
    fields: &[&str],
    what: &str,
) {
    for key in object.keys() {
        if fields.contains(&key.as_str()) {
            continue;
        }
        let closest = crate::suggest::closest(key, fields.iter().copied());
        judged.push(
            ProblemKind::IgnoredManifestField,
            &[at, &[Step::Key(key)]].concat(),
            format!(
                "`{key}` is not a field of {what} in `marketplace.json`, so Claude Code ignores it"
            ),
            "ignored",
            match closest {
                Some(field) => format!("did you mean `{field}`? otherwise remove it"),
                None => "remove it".to_string(),
            },
        );
    }
}

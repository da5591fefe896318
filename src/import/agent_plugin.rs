//! Agent Plugins packages (agent-plugins.org, specification 1.0.0; 1.1.0 in
//! draft): a root `plugin.json` with its `$schema`, skills in
//! `skills/*/SKILL.md`, MCP servers in `mcp.json`.
//!
//! Reading a package is validating it, as the specification says a client
//! must:
//!
//! - `plugin.json` (§5): a closed object. An unknown top-level field and a
//!   non-object `extensions` are reported and ignored (§5.2, §8.1); any
//!   other violation — no or an unsupported `$schema`, a `name` outside
//!   §5.5's rules, a field of the wrong type, an `author` with a field
//!   other than `name`, `email`, `url` — refuses the plugin, and none of
//!   its components is read;
//! - `mcp.json` (§7.2): invalid JSON, another version than the manifest's,
//!   or top-level fields other than `$schema` and `mcpServers` disable MCP
//!   for the plugin; a server entry that breaks its transport's closed
//!   variant is skipped, the others kept;
//! - skills (§7.1): only `skills/<folder>/SKILL.md`, never deeper; a skill
//!   that breaks the Agent Skills specification is skipped, the others
//!   kept;
//! - a fixed location of the wrong kind (`skills` a file, `mcp.json` a
//!   folder) invalidates that component type (§6.2).
//!
//! 1.1.0 (a draft) adds `presentation { displayName, icon }` to the
//! manifest; it is read when the manifest's `$schema` names 1.1.0.

use serde_json::{Map, Value};

use super::problem::{first_line, json_span, Problem, ProblemKind};
use crate::source::Span;

/// The specification versions read, with whether each is a draft.
pub const VERSIONS: &[(&str, bool)] = &[("1.0.0", false), ("1.1.0", true)];

const SCHEMA_PREFIX: &str = "https://agent-plugins.org/schemas/";

/// The manifest's fields, in 1.0.0.
const FIELDS: &[&str] = &[
    "$schema",
    "name",
    "version",
    "description",
    "author",
    "homepage",
    "repository",
    "license",
    "keywords",
    "extensions",
];

/// The specification version a `$schema` names for `document`
/// (`plugin` or `mcp`), if it is one this reads.
pub fn schema_version(schema: &str, document: &str) -> Option<&'static str> {
    VERSIONS
        .iter()
        .map(|(version, _)| *version)
        .find(|version| schema == format!("{SCHEMA_PREFIX}{version}/{document}.schema.json"))
}

/// Whether a `$schema` value is an Agent Plugins one (supported or not).
pub fn is_agent_plugins_schema(schema: &str) -> bool {
    schema.starts_with(SCHEMA_PREFIX) || schema.contains("agent-plugins.org")
}

/// A manifest, read.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    /// The name as written (`acme.reports`).
    pub name: String,
    /// The specification version its `$schema` names.
    pub spec: &'static str,
    pub version: Option<String>,
    pub description: Option<String>,
    pub author: Option<Value>,
    pub license: Option<String>,
    /// 1.1.0's `presentation.displayName`.
    pub display_name: Option<String>,
    /// Metadata kept for a comment: homepage, repository, keywords,
    /// extensions.
    pub metadata: Vec<(String, String)>,
}

/// Reads `plugin.json`; `None` when the plugin is refused (the problems
/// say why).
pub fn manifest(path: &str, text: &str, problems: &mut Vec<Problem>) -> Option<Manifest> {
    let refuse =
        |problems: &mut Vec<Problem>, span: Span, message: String, label: &str, help: &str| {
            problems.push(Problem::new(
                path,
                span,
                ProblemKind::InvalidPluginManifest,
                message,
                label,
                help,
            ));
            None
        };
    let object = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => object,
        Ok(_) => {
            return refuse(
                problems,
                first_line(text),
                "`plugin.json` is not a JSON object, so the plugin is refused".into(),
                "not an object",
                "write the manifest as one JSON object: `{ \"$schema\": …, \"name\": … }`",
            )
        }
        Err(error) => {
            let offset = offset_of(text, error.line(), error.column());
            return refuse(
                problems,
                Span::new(offset, offset),
                format!("`plugin.json` is not valid JSON ({error}), so the plugin is refused"),
                "the JSON breaks here",
                "fix the JSON syntax",
            );
        }
    };
    let spec = match object.get("$schema") {
        None => {
            return refuse(
                problems,
                first_line(text),
                "`plugin.json` has no `$schema`, so the plugin is refused".into(),
                "no `$schema` in this object",
                "add `\"$schema\": \"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json\"`",
            )
        }
        Some(Value::String(schema)) => match schema_version(schema, "plugin") {
            Some(spec) => spec,
            None => {
                return refuse(
                    problems,
                    json_span(text, &["$schema"]),
                    format!("`$schema` names `{schema}`, an Agent Plugins version contrib does not read, so the plugin is refused"),
                    "unsupported version",
                    "target Agent Plugins 1.0.0: `https://agent-plugins.org/schemas/1.0.0/plugin.schema.json`",
                )
            }
        },
        Some(_) => {
            return refuse(
                problems,
                json_span(text, &["$schema"]),
                "`$schema` is not a string, so the plugin is refused".into(),
                "not a string",
                "write the schema identifier as a string",
            )
        }
    };
    let draft = VERSIONS
        .iter()
        .any(|(version, draft)| *version == spec && *draft);
    let mut read = Manifest {
        spec,
        ..Manifest::default()
    };
    match object.get("name") {
        Some(Value::String(name)) => {
            if let Err(why) = check_name(name) {
                return refuse(
                    problems,
                    json_span(text, &["name"]),
                    format!("the plugin name `{name}` {why}, so the plugin is refused"),
                    "invalid name",
                    "use 1 to 64 lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit, without `--` or `..`",
                );
            }
            read.name = name.clone();
        }
        Some(_) => {
            return refuse(
                problems,
                json_span(text, &["name"]),
                "the plugin `name` is not a string, so the plugin is refused".into(),
                "not a string",
                "write the name as a string such as `\"acme.reports\"`",
            )
        }
        None => {
            return refuse(
                problems,
                first_line(text),
                "`plugin.json` has no `name`, so the plugin is refused".into(),
                "no `name` in this object",
                "add a `name` such as `\"acme.reports\"`",
            )
        }
    }
    for (key, value) in &object {
        let known = FIELDS.contains(&key.as_str()) || (draft && key == "presentation");
        if !known {
            problems.push(Problem::new(
                path,
                json_span(text, &[key]),
                ProblemKind::IgnoredManifestField,
                format!("`{key}` is not an Agent Plugins {spec} manifest field, so it is ignored"),
                "unknown field",
                "move client-specific data under `extensions` in a reverse-domain namespace, or remove it",
            ));
            continue;
        }
        if let Err(why) = field(&mut read, key, value) {
            if key == "extensions" && !value.is_object() {
                problems.push(Problem::new(
                    path,
                    json_span(text, &[key]),
                    ProblemKind::IgnoredManifestField,
                    "`extensions` is not an object, so it is ignored",
                    "not an object",
                    "write `extensions` as an object keyed by reverse-domain namespaces, each an object",
                ));
                continue;
            }
            return refuse(
                problems,
                json_span(text, &[key]),
                format!("`{key}` {why}, so the plugin is refused"),
                "does not match the manifest schema",
                "give the field the type the specification defines, or remove it",
            );
        }
    }
    Some(read)
}

/// One manifest field, checked and kept.
fn field(read: &mut Manifest, key: &str, value: &Value) -> Result<(), String> {
    let text = || {
        value
            .as_str()
            .map(str::to_string)
            .ok_or("is not a string".to_string())
    };
    match key {
        "$schema" | "name" => {}
        "version" => read.version = Some(text()?),
        "description" => read.description = Some(text()?),
        "license" => read.license = Some(text()?),
        "homepage" | "repository" => read.metadata.push((key.to_string(), text()?)),
        "author" => {
            let Value::Object(author) = value else {
                return Err("is not an object".into());
            };
            for (field, value) in author {
                if !["name", "email", "url"].contains(&field.as_str()) {
                    return Err(format!(
                        "has the field `{field}`, which is not `name`, `email` or `url`"
                    ));
                }
                if !value.is_string() {
                    return Err(format!("has a `{field}` that is not a string"));
                }
            }
            read.author = Some(value.clone());
        }
        "keywords" => {
            let words = value.as_array().ok_or("is not a list")?;
            if words.iter().any(|word| !word.is_string()) {
                return Err("holds something other than strings".into());
            }
            read.metadata.push((key.to_string(), value.to_string()));
        }
        "extensions" => {
            let Value::Object(namespaces) = value else {
                return Err("is not an object".into());
            };
            if let Some((namespace, _)) = namespaces.iter().find(|(_, value)| !value.is_object()) {
                return Err(format!("has `{namespace}`, whose value is not an object"));
            }
            read.metadata.push((key.to_string(), value.to_string()));
        }
        "presentation" => {
            let Value::Object(presentation) = value else {
                return Err("is not an object".into());
            };
            for (field, value) in presentation {
                if !["displayName", "icon"].contains(&field.as_str()) {
                    return Err(format!(
                        "has the field `{field}`, which is not `displayName` or `icon`"
                    ));
                }
                if !value.is_string() {
                    return Err(format!("has a `{field}` that is not a string"));
                }
            }
            read.display_name = presentation
                .get("displayName")
                .and_then(Value::as_str)
                .filter(|name| !name.is_empty())
                .map(str::to_string);
        }
        _ => {}
    }
    Ok(())
}

/// §5.5: 1–64 of `a-z`, `0-9`, `-`, `.`; alphanumeric at both ends; no
/// `--` or `..`. Says what is wrong.
pub fn check_name(name: &str) -> Result<(), &'static str> {
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    if name.is_empty() {
        return Err("is empty");
    }
    if name.chars().count() > 64 {
        return Err("is longer than 64 characters");
    }
    if !name.chars().all(|c| alnum(c) || c == '-' || c == '.') {
        return Err("holds characters other than lowercase letters, digits, `-` and `.`");
    }
    if !name.starts_with(alnum) || !name.ends_with(alnum) {
        return Err("does not start and end with a letter or digit");
    }
    if name.contains("--") || name.contains("..") {
        return Err("holds `--` or `..`");
    }
    Ok(())
}

/// An MCP server a configuration declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub name: String,
    /// `stdio`, `streamable-http`, `sse`, or the host's own word.
    pub transport: String,
    /// What it starts or where it connects.
    pub target: String,
}

/// Reads an Agent Plugins `mcp.json` for a manifest of version `spec`;
/// the servers kept (`None` when MCP is disabled for the plugin).
pub fn mcp(path: &str, text: &str, spec: &str, problems: &mut Vec<Problem>) -> Option<Vec<Server>> {
    let disable =
        |problems: &mut Vec<Problem>, span: Span, why: String, label: &str, help: &str| {
            problems.push(Problem::new(
                path,
                span,
                ProblemKind::InvalidMcpConfig,
                format!("{why}, so MCP is disabled for the plugin"),
                label,
                help,
            ));
            None
        };
    let object: Map<String, Value> = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => object,
        Ok(_) => {
            return disable(
                problems,
                first_line(text),
                "`mcp.json` is not a JSON object".into(),
                "not an object",
                "write `{ \"$schema\": …, \"mcpServers\": { … } }`",
            )
        }
        Err(error) => {
            let offset = offset_of(text, error.line(), error.column());
            return disable(
                problems,
                Span::point(offset),
                format!("`mcp.json` is not valid JSON ({error})"),
                "the JSON breaks here",
                "fix the JSON syntax",
            );
        }
    };
    match object.get("$schema").and_then(Value::as_str) {
        None => {
            return disable(
                problems,
                first_line(text),
                "`mcp.json` has no `$schema`".into(),
                "no `$schema` in this object",
                "add `\"$schema\": \"https://agent-plugins.org/schemas/1.0.0/mcp.schema.json\"`",
            )
        }
        Some(schema) => match schema_version(schema, "mcp") {
            Some(version) if version == spec => {}
            Some(version) => {
                return disable(
                    problems,
                    json_span(text, &["$schema"]),
                    format!(
                    "`mcp.json` targets Agent Plugins {version} but `plugin.json` targets {spec}"
                ),
                    "another version",
                    "make both files name the same Agent Plugins version",
                )
            }
            None => {
                return disable(
                    problems,
                    json_span(text, &["$schema"]),
                    format!(
                    "`$schema` names `{schema}`, an Agent Plugins version contrib does not read"
                ),
                    "unsupported version",
                    "target the same Agent Plugins version as `plugin.json`",
                )
            }
        },
    }
    if let Some(key) = object
        .keys()
        .find(|key| !["$schema", "mcpServers"].contains(&key.as_str()))
    {
        return disable(
            problems,
            json_span(text, &[key]),
            format!("`mcp.json` has the top-level field `{key}`"),
            "not `$schema` or `mcpServers`",
            "remove it: the file holds only `$schema` and `mcpServers`",
        );
    }
    let Some(Value::Object(servers)) = object.get("mcpServers") else {
        return disable(
            problems,
            first_line(text),
            "`mcpServers` is missing or not an object".into(),
            "no `mcpServers` object",
            "add `\"mcpServers\": { … }`, an object of servers by name",
        );
    };
    let mut kept = Vec::new();
    for (name, entry) in servers {
        match server(name, entry) {
            Ok(server) => kept.push(server),
            Err(why) => problems.push(Problem::new(
                path,
                json_span(text, &["mcpServers", name]),
                ProblemKind::InvalidMcpServer,
                format!("the MCP server `{name}` {why}, so it is skipped"),
                "invalid server entry",
                "give the entry exactly the fields of its `type`: `stdio` takes `command`, `args`, `env`, `cwd`; `streamable-http` and `sse` take `url`, `headers`",
            )),
        }
    }
    Some(kept)
}

/// One server entry, checked against its transport's closed variant.
fn server(name: &str, entry: &Value) -> Result<Server, String> {
    let Value::Object(fields) = entry else {
        return Err("is not an object".into());
    };
    let transport = fields
        .get("type")
        .and_then(Value::as_str)
        .ok_or("has no `type`")?;
    let allowed: &[&str] = match transport {
        "stdio" => &["type", "command", "args", "env", "cwd"],
        "streamable-http" | "sse" => &["type", "url", "headers"],
        other => return Err(format!("has the unknown `type` `{other}`")),
    };
    if let Some(key) = fields.keys().find(|key| !allowed.contains(&key.as_str())) {
        return Err(format!(
            "has `{key}`, which a `{transport}` server does not take"
        ));
    }
    let target = if transport == "stdio" {
        stdio(fields)?
    } else {
        remote(fields)?
    };
    Ok(Server {
        name: name.to_string(),
        transport: transport.to_string(),
        target,
    })
}

fn strings(value: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_string)
                    .ok_or(format!("has `{what}` with something other than strings"))
            })
            .collect(),
        Some(_) => Err(format!("has `{what}` that is not a list of strings")),
    }
}

fn string_map<'a>(
    value: Option<&'a Value>,
    what: &str,
) -> Result<Vec<(&'a String, &'a str)>, String> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(key, value)| {
                value
                    .as_str()
                    .map(|v| (key, v))
                    .ok_or(format!("has `{what}` with a value that is not a string"))
            })
            .collect(),
        Some(_) => Err(format!("has `{what}` that is not an object of strings")),
    }
}

fn stdio(fields: &Map<String, Value>) -> Result<String, String> {
    let command = fields.get("command").ok_or("has no `command`")?;
    let command = command
        .as_str()
        .ok_or("has a `command` that is not a string")?;
    let args = strings(fields.get("args"), "args")?;
    let env = string_map(fields.get("env"), "env")?;
    if command.is_empty() || command.contains(char::is_whitespace) && !command.starts_with("./") {
        return Err(format!(
            "has the command `{command}`, which is not one executable token"
        ));
    }
    if command.contains("${") {
        return Err(format!(
            "has the command `{command}`, where placeholders are not expanded"
        ));
    }
    if command.contains('/') || command.contains('\\') {
        if !command.starts_with("./") {
            return Err(format!(
                "has the command `{command}`, neither a bare name nor a path starting with `./`"
            ));
        }
        if escapes(&command[2..]) {
            return Err(format!(
                "has the command `{command}`, which leads out of the plugin"
            ));
        }
    }
    if let Some((key, _)) = env
        .iter()
        .find(|(key, _)| ["PLUGIN_ROOT", "PLUGIN_DATA"].contains(&key.as_str()))
    {
        return Err(format!("sets `{key}` in `env`, which the client provides"));
    }
    if let Some(cwd) = fields.get("cwd") {
        let cwd = cwd.as_str().ok_or("has a `cwd` that is not a string")?;
        let inside = ["./", "${PLUGIN_ROOT}/", "${PLUGIN_DATA}/"]
            .iter()
            .find_map(|prefix| cwd.strip_prefix(prefix))
            .or_else(|| {
                ["${PLUGIN_ROOT}", "${PLUGIN_DATA}"]
                    .contains(&cwd)
                    .then_some("")
            });
        match inside {
            None => return Err(format!("has the working folder `{cwd}`, not `./…`, `${{PLUGIN_ROOT}}…` or `${{PLUGIN_DATA}}…`")),
            Some(rest) if escapes(rest) => return Err(format!("has the working folder `{cwd}`, which leads out of its root")),
            Some(_) => {}
        }
    }
    Ok([vec![command.to_string()], args].concat().join(" "))
}

fn remote(fields: &Map<String, Value>) -> Result<String, String> {
    let url = fields.get("url").ok_or("has no `url`")?;
    let url = url.as_str().ok_or("has a `url` that is not a string")?;
    let headers = string_map(fields.get("headers"), "headers")?;
    let mut seen = std::collections::HashSet::new();
    if let Some((name, _)) = headers
        .iter()
        .find(|(name, _)| !seen.insert(name.to_ascii_lowercase()))
    {
        return Err(format!("gives the header `{name}` twice"));
    }
    let (scheme, rest) = url
        .split_once("://")
        .ok_or(format!("has the URL `{url}`, which is not absolute"))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if url.contains('#') {
        return Err(format!("has the URL `{url}`, which holds a fragment"));
    }
    if authority.contains('@') {
        return Err(format!("has the URL `{url}`, which holds user information"));
    }
    let host = if let Some(bracketed) = authority.strip_prefix('[') {
        bracketed.split(']').next().unwrap_or("")
    } else {
        authority.split(':').next().unwrap_or("")
    };
    match scheme {
        "https" => {}
        "http" if is_loopback(host) => {}
        "http" => {
            return Err(format!(
                "has the URL `{url}`, plain HTTP to a host that is not loopback"
            ))
        }
        _ => return Err(format!("has the URL `{url}`, which is not HTTP or HTTPS")),
    }
    if host.is_empty() {
        return Err(format!("has the URL `{url}`, which names no host"));
    }
    Ok(url.to_string())
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

/// Whether a relative path leads above where it starts.
pub fn escapes(path: &str) -> bool {
    let mut depth: i64 = 0;
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            _ => depth += 1,
        }
    }
    false
}

/// The byte offset of a 1-based line and column, as serde_json reports.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (index, piece) in text.split_inclusive('\n').enumerate() {
        if index + 1 == line {
            let column = column.saturating_sub(1).min(piece.len());
            return crate::source::floor_char_boundary(text, offset + column);
        }
        offset += piece.len();
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_section_5_5() {
        for good in ["my-plugin", "acme.tools", "lint3r", "a"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for bad in ["My-Plugin", "-start", "has--double", "too.many..dots", ""] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn paths_that_climb_out_escape() {
        assert!(escapes("data/../.."));
        assert!(!escapes("data/../bin"));
    }
}

//! `mcp.json` (§7.2): the configuration's version and closed top level,
//! and each server's transport variant (stdio or remote) checked on its
//! own, so a bad entry is skipped and the others kept. Apart from
//! `plugin.json`, which has rules of its own.

use serde_json::{Map, Value};

use crate::import::problem::{first_line, json_span, Problem, ProblemKind};
use crate::source::Span;

use super::{escapes, offset_of, schema_version};

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

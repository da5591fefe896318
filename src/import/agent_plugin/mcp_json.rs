//! `mcp.json` (§7.2): the configuration's version and closed top level,
//! and each server's transport variant (stdio or remote) checked on its
//! own, so a bad entry is skipped and the others kept. Apart from
//! `plugin.json`, which has rules of its own.

use serde_json::{Map, Value};

use crate::import::problem::{first_line, json_span, Problem, ProblemKind};
use crate::source::Span;

use super::bad_server::{BadCommand, BadServer, BadUrl};
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
fn server(name: &str, entry: &Value) -> Result<Server, BadServer> {
    let Value::Object(fields) = entry else {
        return Err(BadServer::NotAnObject);
    };
    let transport = fields
        .get("type")
        .and_then(Value::as_str)
        .ok_or(BadServer::Missing("type"))?;
    let allowed: &[&str] = match transport {
        "stdio" => &["type", "command", "args", "env", "cwd"],
        "streamable-http" | "sse" => &["type", "url", "headers"],
        other => return Err(BadServer::UnknownType(other.to_string())),
    };
    if let Some(key) = fields.keys().find(|key| !allowed.contains(&key.as_str())) {
        return Err(BadServer::NotTaken {
            key: key.clone(),
            transport: transport.to_string(),
        });
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

fn strings(value: Option<&Value>, what: &'static str) -> Result<Vec<String>, BadServer> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_string)
                    .ok_or(BadServer::NotStrings(what))
            })
            .collect(),
        Some(_) => Err(BadServer::NotAList(what)),
    }
}

fn string_map<'a>(
    value: Option<&'a Value>,
    what: &'static str,
) -> Result<Vec<(&'a String, &'a str)>, BadServer> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(key, value)| {
                value
                    .as_str()
                    .map(|v| (key, v))
                    .ok_or(BadServer::NotStringValues(what))
            })
            .collect(),
        Some(_) => Err(BadServer::NotAnObjectOfStrings(what)),
    }
}

fn stdio(fields: &Map<String, Value>) -> Result<String, BadServer> {
    let command = fields.get("command").ok_or(BadServer::Missing("command"))?;
    let command = command.as_str().ok_or(BadServer::NotAString("command"))?;
    let args = strings(fields.get("args"), "args")?;
    let env = string_map(fields.get("env"), "env")?;
    let bad = |why| {
        Err(BadServer::Command {
            command: command.to_string(),
            why,
        })
    };
    if command.is_empty() || command.contains(char::is_whitespace) && !command.starts_with("./") {
        return bad(BadCommand::NotOneToken);
    }
    if command.contains("${") {
        return bad(BadCommand::Placeholder);
    }
    if command.contains('/') || command.contains('\\') {
        if !command.starts_with("./") {
            return bad(BadCommand::NotBareOrRelative);
        }
        if escapes(&command[2..]) {
            return bad(BadCommand::LeadsOut);
        }
    }
    if let Some((key, _)) = env
        .iter()
        .find(|(key, _)| ["PLUGIN_ROOT", "PLUGIN_DATA"].contains(&key.as_str()))
    {
        return Err(BadServer::ClientVariable(key.to_string()));
    }
    if let Some(cwd) = fields.get("cwd") {
        let cwd = cwd.as_str().ok_or(BadServer::NotAString("cwd"))?;
        let inside = ["./", "${PLUGIN_ROOT}/", "${PLUGIN_DATA}/"]
            .iter()
            .find_map(|prefix| cwd.strip_prefix(prefix))
            .or_else(|| {
                ["${PLUGIN_ROOT}", "${PLUGIN_DATA}"]
                    .contains(&cwd)
                    .then_some("")
            });
        match inside {
            None => return Err(BadServer::CwdOutsideRoots(cwd.to_string())),
            Some(rest) if escapes(rest) => return Err(BadServer::CwdLeadsOut(cwd.to_string())),
            Some(_) => {}
        }
    }
    Ok([vec![command.to_string()], args].concat().join(" "))
}

fn remote(fields: &Map<String, Value>) -> Result<String, BadServer> {
    let url = fields.get("url").ok_or(BadServer::Missing("url"))?;
    let url = url.as_str().ok_or(BadServer::NotAString("url"))?;
    let bad = |why| BadServer::Url {
        url: url.to_string(),
        why,
    };
    let headers = string_map(fields.get("headers"), "headers")?;
    let mut seen = std::collections::HashSet::new();
    if let Some((name, _)) = headers
        .iter()
        .find(|(name, _)| !seen.insert(name.to_ascii_lowercase()))
    {
        return Err(BadServer::DuplicateHeader(name.to_string()));
    }
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| bad(BadUrl::NotAbsolute))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if url.contains('#') {
        return Err(bad(BadUrl::Fragment));
    }
    if authority.contains('@') {
        return Err(bad(BadUrl::UserInformation));
    }
    let host = if let Some(bracketed) = authority.strip_prefix('[') {
        bracketed.split(']').next().unwrap_or("")
    } else {
        authority.split(':').next().unwrap_or("")
    };
    match scheme {
        "https" => {}
        "http" if is_loopback(host) => {}
        "http" => return Err(bad(BadUrl::PlainHttp)),
        _ => return Err(bad(BadUrl::NotHttp)),
    }
    if host.is_empty() {
        return Err(bad(BadUrl::NoHost));
    }
    Ok(url.to_string())
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

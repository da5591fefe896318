//! The MCP servers a Claude Code plugin starts: `.mcp.json` (servers under
//! `mcpServers`, or the file itself keyed by server name) and
//! `plugin.json`'s `mcpServers` written inline. Claude Code drops a server
//! it cannot read without a word at load, so each is an error here: the
//! plugin's author expects the server to be there.

use serde_json::{Map, Value};

use super::super::json_path::Step;
use super::super::problem::{Problem, ProblemKind};
use super::super::InputFile;
use super::{a_json, Judged};

const DROPPED: &str = "so Claude Code drops the server at load";

/// A Claude Code `.mcp.json`.
pub(in crate::import) fn mcp_file(file: &InputFile) -> Vec<Problem> {
    let mut judged = Judged::new(file);
    let Some(value) = judged.json(
        ProblemKind::InvalidMcpConfig,
        "so Claude Code loads no server from it",
    ) else {
        return judged.problems;
    };
    match value.get("mcpServers") {
        Some(servers) => self::servers(&mut judged, &[Step::Key("mcpServers")], servers),
        None => self::servers(&mut judged, &[], &value),
    }
    judged.problems
}

/// `plugin.json`'s `mcpServers` object.
pub(super) fn inline(file: &InputFile, at: &[Step<'_>], value: &Value) -> Vec<Problem> {
    let mut judged = Judged::new(file);
    servers(&mut judged, at, value);
    judged.problems
}

fn servers(judged: &mut Judged, at: &[Step<'_>], servers: &Value) {
    let Value::Object(servers) = servers else {
        judged.push(
            ProblemKind::InvalidMcpConfig,
            at,
            format!("the MCP servers are {}, not an object keyed by server name, so Claude Code loads none of them", a_json(servers)),
            "not an object",
            "write `\"mcpServers\": { \"name\": { \"command\": \"…\" } }`",
        );
        return;
    };
    for (name, server) in servers {
        let path = [at, &[Step::Key(name)]].concat();
        match server {
            Value::Object(server) => self::server(judged, &path, name, server),
            other => {
                judged.push(
                    ProblemKind::InvalidMcpServer,
                    &path,
                    format!("the MCP server `{name}` is {}, not an object, {DROPPED}", a_json(other)),
                    "not an object",
                    "write the server as `{ \"command\": \"…\" }` or `{ \"type\": \"http\", \"url\": \"…\" }`",
                );
            }
        }
    }
}

fn server(judged: &mut Judged, path: &[Step<'_>], name: &str, server: &Map<String, Value>) {
    let bad = |judged: &mut Judged, key: Option<&str>, what: String, help: &str| {
        let at = match key {
            Some(key) => [path, &[Step::Key(key)]].concat(),
            None => path.to_vec(),
        };
        judged.push(
            ProblemKind::InvalidMcpServer,
            &at,
            format!("the MCP server `{name}` {what}, {DROPPED}"),
            "dropped",
            help,
        );
    };
    let remote = match server.get("type").and_then(Value::as_str) {
        Some("http" | "sse" | "ws") => true,
        Some("stdio") | None => false,
        // Claude Code passes other types on to its transports.
        Some(_) => return,
    };
    if remote {
        if !server.get("url").is_some_and(Value::is_string) {
            bad(
                judged,
                None,
                "has no `url`".into(),
                "give the server's address: `\"url\": \"https://…\"`",
            );
        }
    } else if server.contains_key("url") && !server.contains_key("type") {
        bad(
            judged,
            Some("url"),
            "has a `url` but no `type`, so it is read as a local server without a `command`".into(),
            "add `\"type\": \"http\"` (or `sse`, `ws`)",
        );
    } else if !server.get("command").is_some_and(Value::is_string) {
        bad(
            judged,
            server.contains_key("command").then_some("command"),
            "has no `command` to start".into(),
            "give the program to run: `\"command\": \"npx\"`, with `args` for its arguments",
        );
    }
    if let Some(args) = server.get("args") {
        let strings = args
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string));
        if !strings {
            bad(
                judged,
                Some("args"),
                format!("has {} as its `args`, not a list of strings", a_json(args)),
                "write `\"args\": [\"-y\", \"package\"]`",
            );
        }
    }
    for key in ["env", "headers"] {
        if let Some(values) = server.get(key) {
            let strings = values
                .as_object()
                .is_some_and(|map| map.values().all(Value::is_string));
            if !strings {
                bad(
                    judged,
                    Some(key),
                    format!("has a `{key}` that is not an object of strings"),
                    "write each value as a string: `\"KEY\": \"value\"`",
                );
            }
        }
    }
}

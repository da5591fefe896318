//! Why an `mcp.json` server entry is skipped. Each says what the entry
//! does wrong after its name ("the MCP server `x` has no `command`"), so
//! the problem reads as one sentence.

use std::fmt;

/// What is wrong with one server entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum BadServer {
    NotAnObject,
    /// A field the transport needs (`type`, `command`, `url`) is missing.
    Missing(&'static str),
    /// A field that must be a string is not one.
    NotAString(&'static str),
    UnknownType(String),
    /// A field the entry's transport does not take.
    NotTaken {
        key: String,
        transport: String,
    },
    /// `args` holds something other than strings.
    NotStrings(&'static str),
    /// `args` is not a list.
    NotAList(&'static str),
    /// `env` or `headers` has a value that is not a string.
    NotStringValues(&'static str),
    /// `env` or `headers` is not an object.
    NotAnObjectOfStrings(&'static str),
    Command {
        command: String,
        why: BadCommand,
    },
    /// `env` sets a variable the client provides.
    ClientVariable(String),
    /// `cwd` is not under `./`, `${PLUGIN_ROOT}` or `${PLUGIN_DATA}`.
    CwdOutsideRoots(String),
    /// `cwd` climbs out of its root with `..`.
    CwdLeadsOut(String),
    DuplicateHeader(String),
    Url {
        url: String,
        why: BadUrl,
    },
}

/// Why a stdio server's command is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BadCommand {
    NotOneToken,
    Placeholder,
    NotBareOrRelative,
    LeadsOut,
}

/// Why a remote server's URL is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BadUrl {
    NotAbsolute,
    Fragment,
    UserInformation,
    PlainHttp,
    NotHttp,
    NoHost,
}

impl fmt::Display for BadServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadServer::NotAnObject => f.write_str("is not an object"),
            BadServer::Missing(field) => write!(f, "has no `{field}`"),
            BadServer::NotAString(field) => write!(f, "has a `{field}` that is not a string"),
            BadServer::UnknownType(other) => write!(f, "has the unknown `type` `{other}`"),
            BadServer::NotTaken { key, transport } => {
                write!(f, "has `{key}`, which a `{transport}` server does not take")
            }
            BadServer::NotStrings(what) => {
                write!(f, "has `{what}` with something other than strings")
            }
            BadServer::NotAList(what) => write!(f, "has `{what}` that is not a list of strings"),
            BadServer::NotStringValues(what) => {
                write!(f, "has `{what}` with a value that is not a string")
            }
            BadServer::NotAnObjectOfStrings(what) => {
                write!(f, "has `{what}` that is not an object of strings")
            }
            BadServer::Command { command, why } => write!(f, "has the command `{command}`, {why}"),
            BadServer::ClientVariable(key) => {
                write!(f, "sets `{key}` in `env`, which the client provides")
            }
            BadServer::CwdOutsideRoots(cwd) => write!(
                f,
                "has the working folder `{cwd}`, not `./…`, `${{PLUGIN_ROOT}}…` or `${{PLUGIN_DATA}}…`"
            ),
            BadServer::CwdLeadsOut(cwd) => {
                write!(f, "has the working folder `{cwd}`, which leads out of its root")
            }
            BadServer::DuplicateHeader(name) => write!(f, "gives the header `{name}` twice"),
            BadServer::Url { url, why } => write!(f, "has the URL `{url}`, {why}"),
        }
    }
}

impl fmt::Display for BadCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BadCommand::NotOneToken => "which is not one executable token",
            BadCommand::Placeholder => "where placeholders are not expanded",
            BadCommand::NotBareOrRelative => "neither a bare name nor a path starting with `./`",
            BadCommand::LeadsOut => "which leads out of the plugin",
        })
    }
}

impl fmt::Display for BadUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BadUrl::NotAbsolute => "which is not absolute",
            BadUrl::Fragment => "which holds a fragment",
            BadUrl::UserInformation => "which holds user information",
            BadUrl::PlainHttp => "plain HTTP to a host that is not loopback",
            BadUrl::NotHttp => "which is not HTTP or HTTPS",
            BadUrl::NoHost => "which names no host",
        })
    }
}

impl std::error::Error for BadServer {}

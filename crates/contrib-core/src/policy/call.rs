//! A tool call made with nobody asking (an eager run, a preface's
//! retrieval) or a tool loaded up front, judged against the workspace's
//! registry: the tool must be one it has, a tool that writes runs only
//! when the workspace opted it in, every host the arguments carry must be
//! allowed, the arguments must fit the tool's parameters, and a gated
//! tool waits for a person.

use std::fmt;

use super::url::{self, Unfetchable};
use crate::config::{Config, Effect, ParamKind};
use crate::suggest;
use crate::vocabulary::Value;

/// One call, as a manifest writes it or a bundle records it.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// The contributor's id.
    pub contributor: &'a str,
    pub tool: &'a str,
    /// Its arguments, in the order written.
    pub arguments: &'a [(&'a str, &'a Value)],
}

/// A tool the workspace does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTool<'a> {
    pub tool: &'a str,
    /// The workspace's tool whose name is closest, if one is close.
    pub suggestion: Option<&'a str>,
}

impl fmt::Display for UnknownTool<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown tool `{}`", self.tool)
    }
}

/// `tool`, called or loaded, if the workspace does not have it.
pub fn unknown_tool<'a>(config: &'a Config, tool: &'a str) -> Option<UnknownTool<'a>> {
    if config.tools.contains_key(tool) {
        return None;
    }
    let known = config.tools.keys().map(String::as_str);
    Some(UnknownTool {
        tool,
        suggestion: suggest::closest(tool, known),
    })
}

/// A call with nobody asking to a tool that writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writes<'a> {
    pub contributor: &'a str,
    pub tool: &'a str,
    /// The workspace opted the tool in to eager runs (`eager = true`).
    pub opted_in: bool,
}

impl fmt::Display for Writes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (contributor, tool) = (self.contributor, self.tool);
        write!(
            f,
            "`{contributor}` runs `{tool}` with nobody asking, and `{tool}` writes"
        )
    }
}

/// The call, if its tool writes.
pub fn writes<'a>(config: &Config, call: &Call<'a>) -> Option<Writes<'a>> {
    let tool = config.tools.get(call.tool)?;
    (tool.effect == Effect::Write).then_some(Writes {
        contributor: call.contributor,
        tool: call.tool,
        opted_in: tool.eager,
    })
}

/// A host a call reaches that the workspace's `[egress] allow` does not
/// hold, or cannot be shown to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Egress<'a> {
    /// A host outside the allow-list.
    NotAllowed {
        contributor: &'a str,
        param: &'a str,
        host: String,
    },
    /// A value whose host cannot be read: built from a variable (an
    /// egress question), or not a URL that can be fetched (also an
    /// argument that does not fit, [`Argument::NotFetchable`]).
    Unprovable {
        contributor: &'a str,
        param: &'a str,
        why: Unfetchable,
    },
}

impl Egress<'_> {
    /// The parameter the host was given for.
    pub fn param(&self) -> &str {
        match self {
            Egress::NotAllowed { param, .. } | Egress::Unprovable { param, .. } => param,
        }
    }
}

impl fmt::Display for Egress<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Egress::NotAllowed {
                contributor, host, ..
            } => write!(f, "`{contributor}` reaches `{host}`, which the workspace does not allow"),
            Egress::Unprovable {
                contributor, why, ..
            } if why.from_variable => write!(
                f,
                "`{contributor}` reaches a host built from a variable, which no allow-list can be shown to hold"
            ),
            Egress::Unprovable {
                contributor,
                param,
                why,
            } => write!(
                f,
                "`{contributor}`'s `{param}` cannot be checked against `[egress] allow`: {}",
                why.why
            ),
        }
    }
}

/// Every host the call reaches that the workspace does not allow, or that
/// cannot be shown to be allowed. Nothing for a tool it does not have.
pub fn egress<'a>(config: &Config, call: &Call<'a>) -> Vec<Egress<'a>> {
    let Some(tool) = config.tools.get(call.tool) else {
        return Vec::new();
    };
    url::hosts(tool, call.arguments.iter().copied())
        .into_iter()
        .filter_map(|found| match found.host {
            Ok(host) if config.egress_allows(&host) => None,
            Ok(host) => Some(Egress::NotAllowed {
                contributor: call.contributor,
                param: found.param,
                host,
            }),
            Err(why) => Some(Egress::Unprovable {
                contributor: call.contributor,
                param: found.param,
                why,
            }),
        })
        .collect()
}

/// A call to a gated tool, which waits for a person's approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gated<'a> {
    pub contributor: &'a str,
    pub tool: &'a str,
}

impl fmt::Display for Gated<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` calls the gated tool `{}`, which waits for approval",
            self.contributor, self.tool
        )
    }
}

/// The call, if its tool is gated.
pub fn gated<'a>(config: &Config, call: &Call<'a>) -> Option<Gated<'a>> {
    let tool = config.tools.get(call.tool)?;
    tool.gated.then_some(Gated {
        contributor: call.contributor,
        tool: call.tool,
    })
}

/// An argument that does not fit the tool's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Argument<'a> {
    /// No parameter of that name; `suggestion` is the one it is taken to
    /// be a misspelling of.
    Unknown {
        tool: &'a str,
        name: &'a str,
        suggestion: Option<&'a str>,
        /// The tool's parameters.
        params: Vec<&'a str>,
    },
    /// A value of another type than the parameter's.
    WrongType {
        tool: &'a str,
        name: &'a str,
        expected: ParamKind,
        found: &'static str,
    },
    /// A value that should be a URL and is not one that can be fetched.
    NotFetchable {
        name: &'a str,
        text: &'a str,
        why: Unfetchable,
    },
    /// A required parameter not given.
    Missing {
        tool: &'a str,
        name: &'a str,
        kind: ParamKind,
    },
}

impl Argument<'_> {
    /// The argument it is about.
    pub fn name(&self) -> &str {
        match self {
            Argument::Unknown { name, .. }
            | Argument::WrongType { name, .. }
            | Argument::NotFetchable { name, .. }
            | Argument::Missing { name, .. } => name,
        }
    }
}

impl fmt::Display for Argument<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Argument::Unknown { tool, name, .. } => {
                write!(f, "`{tool}` takes no argument `{name}`")
            }
            Argument::WrongType {
                tool,
                name,
                expected,
                found,
            } => write!(
                f,
                "`{tool}` takes {} for `{name}`, not {}",
                a(expected.as_str()),
                a(found)
            ),
            Argument::NotFetchable { text, why, .. } => {
                write!(f, "`{text}` is not a URL that can be fetched: {}", why.why)
            }
            Argument::Missing { tool, name, .. } => {
                write!(f, "`{tool}` needs the argument `{name}`")
            }
        }
    }
}

/// Every way the call's arguments do not fit its tool's parameters.
/// Nothing for a tool the workspace does not have.
pub fn arguments<'a>(config: &'a Config, call: &Call<'a>) -> Vec<Argument<'a>> {
    let Some(tool) = config.tools.get(call.tool) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    // Parameters an unknown argument is taken to be a misspelling of: a
    // fix renames it, so they are not reported missing as well.
    let mut misspelt = Vec::new();
    for &(name, value) in call.arguments {
        let Some(param) = tool.params.get(name) else {
            let params: Vec<&str> = tool.params.keys().map(String::as_str).collect();
            let suggestion = suggest::closest(name, params.iter().copied());
            misspelt.extend(suggestion);
            found.push(Argument::Unknown {
                tool: call.tool,
                name,
                suggestion,
                params,
            });
            continue;
        };
        if !fits(value, param.kind) {
            found.push(Argument::WrongType {
                tool: call.tool,
                name,
                expected: param.kind,
                found: value.type_name(),
            });
            continue;
        }
        for host in url::hosts(tool, [(name, value)]) {
            if let Err(why) = host.host {
                if !why.from_variable {
                    found.push(Argument::NotFetchable {
                        name,
                        text: host.text,
                        why,
                    });
                }
            }
        }
    }
    for (name, param) in &tool.params {
        let given = call.arguments.iter().any(|(given, _)| given == name);
        if param.required && !given && !misspelt.contains(&name.as_str()) {
            found.push(Argument::Missing {
                tool: call.tool,
                name,
                kind: param.kind,
            });
        }
    }
    found
}

/// A type's name with its article: "a string", "an integer".
pub fn a(kind: &str) -> String {
    match kind.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

fn fits(value: &Value, kind: ParamKind) -> bool {
    matches!(
        (value, kind),
        (Value::String(_), ParamKind::String)
            | (Value::Integer(_), ParamKind::Integer)
            | (Value::Boolean(_), ParamKind::Boolean)
            | (Value::List(_), ParamKind::List)
    )
}

//! The hosts a call's arguments reach, for egress checks.
//!
//! Which parameters carry hosts is the workspace's registry's to say
//! (`[tools.NAME] hosts`), never the parameter's name: `http_get {
//! endpoint: … }` is checked as `fetch_url { url: … }` is. Besides those,
//! any argument of a tool that reaches the network whose value is a URL is
//! checked too, whatever it is called.
//!
//! Only `http` and `https` URLs with a host name, or bare host names, are
//! accepted: an eager run reaches the network with nobody watching, so
//! anything unusual (another scheme, an IP address, credentials in the
//! URL, a host built from a `{variable}`) is refused rather than guessed
//! at.

use crate::config::Tool;
use crate::vocabulary::Value;

/// Why a URL cannot be fetched, and how to write one that can.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unfetchable {
    /// What is wrong, as the end of "… is not a URL that can be fetched: ".
    pub why: &'static str,
    pub help: &'static str,
    /// The host is built from a variable: whatever fills it could name any
    /// host, so it cannot be proven inside an allow-list (an egress
    /// question, not a malformed argument).
    pub from_variable: bool,
}

const WRITE_A_URL: &str = "write a full URL such as \"https://docs.acme.dev/style\"";

fn unfetchable(why: &'static str, help: &'static str) -> Unfetchable {
    Unfetchable {
        why,
        help,
        from_variable: false,
    }
}

const FROM_VARIABLE: Unfetchable = Unfetchable {
    why: "its host is built from a variable, so no allow-list can be proven to hold it",
    help: "write the host out in full; a value filled in later could name any host",
    from_variable: true,
};

/// One host-carrying value among a call's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostArgument<'a> {
    /// The parameter it was given for.
    pub param: &'a str,
    /// The value as written.
    pub text: &'a str,
    /// The host it reaches, or why that cannot be known.
    pub host: Result<String, Unfetchable>,
}

/// Every host the arguments of a call to `tool` reach: each value of a
/// parameter the tool says carries hosts (which must name one), and any
/// other value that is a URL. Nothing for a tool that does not reach the
/// network.
pub fn hosts<'a>(
    tool: &Tool,
    arguments: impl IntoIterator<Item = (&'a str, &'a Value)>,
) -> Vec<HostArgument<'a>> {
    let mut found = Vec::new();
    if !tool.egress {
        return found;
    }
    for (param, value) in arguments {
        let carries = tool.carries_host(param);
        for text in strings(value) {
            let host = if carries {
                host_or_url(text)
            } else if text.contains("://") {
                host(text)
            } else {
                continue;
            };
            found.push(HostArgument { param, text, host });
        }
    }
    found
}

/// The strings in a value, lists included.
fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(text) => vec![text.as_str()],
        Value::List(items) => items.iter().flat_map(strings).collect(),
        Value::Integer(_) | Value::Boolean(_) => Vec::new(),
    }
}

/// The host of a URL, or a bare host name.
fn host_or_url(text: &str) -> Result<String, Unfetchable> {
    if text.contains("://") || text.contains('/') {
        return host(text);
    }
    if text.contains('{') {
        return Err(FROM_VARIABLE);
    }
    let lowered = text.to_ascii_lowercase();
    if crate::config::is_host(&lowered) && lowered.parse::<std::net::Ipv4Addr>().is_err() {
        Ok(lowered)
    } else {
        Err(unfetchable(
            "it is neither a URL nor a host name",
            "give a full URL such as \"https://docs.acme.dev/style\", or a host name such as \"docs.acme.dev\"",
        ))
    }
}

/// The lowercase host of `url`, or why it cannot be used.
pub fn host(url: &str) -> Result<String, Unfetchable> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or(unfetchable("it has no scheme", WRITE_A_URL))?;
    if !scheme.eq_ignore_ascii_case("https") && !scheme.eq_ignore_ascii_case("http") {
        return Err(unfetchable(
            "only `https://` and `http://` URLs can be fetched",
            WRITE_A_URL,
        ));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('{') {
        return Err(FROM_VARIABLE);
    }
    if authority.contains('@') {
        return Err(unfetchable(
            "it holds credentials",
            "remove the `user:password@` part; pass credentials through the tool's configuration instead",
        ));
    }
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => host,
        Some(_) => {
            return Err(unfetchable(
                "its port is not a number",
                "write the port as digits after the host, such as `docs.acme.dev:8443`, or leave it out",
            ))
        }
        None => authority,
    };
    let host = host.to_ascii_lowercase();
    if host.is_empty() {
        return Err(unfetchable("it has no host", WRITE_A_URL));
    }
    if host.parse::<std::net::Ipv4Addr>().is_ok() || host.starts_with('[') {
        return Err(unfetchable(
            "it names an IP address",
            "egress is allowed by host name: use the host's name, and allow it in `[egress]`",
        ));
    }
    if !crate::config::is_host(&host) {
        return Err(unfetchable(
            "its host is not a valid host name",
            "a host is dot-separated letters, digits and `-`, such as `docs.acme.dev`",
        ));
    }
    Ok(host)
}

#[cfg(test)]
mod tests {
    use super::{host, hosts};
    use crate::config::Config;
    use crate::vocabulary::Value;

    #[test]
    fn hosts_are_found_by_the_registry_not_the_parameter_name() {
        let mut tool = Config::platform().tools["fetch_url"].clone();
        tool.params.insert(
            "endpoint".into(),
            crate::config::Param {
                kind: crate::config::ParamKind::String,
                required: false,
            },
        );
        tool.hosts = Some(vec!["endpoint".into()]);
        let endpoint = Value::String("evil.example".into());
        let url = Value::String("https://docs.acme.dev/x".into());
        let found = hosts(&tool, [("endpoint", &endpoint), ("url", &url)]);
        let reached: Vec<_> = found.iter().map(|found| found.host.clone()).collect();
        // `endpoint` carries a bare host; `url` is not declared, but a URL
        // in an egress tool's argument is checked whatever it is called.
        assert_eq!(
            reached,
            vec![
                Ok("evil.example".to_string()),
                Ok("docs.acme.dev".to_string())
            ]
        );
    }

    #[test]
    fn a_host_from_a_variable_cannot_be_proven() {
        for url in ["https://{person.name}.acme.dev/", "https://a.dev{x}/"] {
            assert!(host(url).is_err_and(|why| why.from_variable), "{url}");
        }
        assert!(host("https://docs.acme.dev/{person.name}").is_ok());
    }

    #[test]
    fn reads_hosts() {
        assert_eq!(
            host("https://docs.acme.dev/style").as_deref(),
            Ok("docs.acme.dev")
        );
        assert_eq!(
            host("HTTP://Docs.Acme.Dev:8080?q=1").as_deref(),
            Ok("docs.acme.dev")
        );
    }

    #[test]
    fn refuses_what_it_cannot_judge() {
        for url in [
            "docs.acme.dev",
            "ftp://x.dev",
            "https://user:pw@x.dev",
            "https://10.0.0.1/",
            "https://[::1]/",
            "https:///x",
            "https://x.dev:abc/",
        ] {
            assert!(host(url).is_err(), "{url}");
        }
    }
}

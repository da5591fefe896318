//! The host of a `url` argument, for egress checks.
//!
//! Only `http` and `https` URLs with a host name are accepted: an eager run
//! reaches the network with nobody watching, so anything unusual (another
//! scheme, an IP address, credentials in the URL) is refused rather than
//! guessed at.

/// Why a URL cannot be fetched, and how to write one that can.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unfetchable {
    /// What is wrong, as the end of "… is not a URL that can be fetched: ".
    pub why: &'static str,
    pub help: &'static str,
}

const WRITE_A_URL: &str = "write a full URL such as \"https://docs.acme.dev/style\"";

fn unfetchable(why: &'static str, help: &'static str) -> Unfetchable {
    Unfetchable { why, help }
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
    use super::host;

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

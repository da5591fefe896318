//! The host of a `url` argument, for egress checks.
//!
//! Only `http` and `https` URLs with a host name are accepted: an eager run
//! reaches the network with nobody watching, so anything unusual (another
//! scheme, an IP address, credentials in the URL) is refused rather than
//! guessed at.

/// The lowercase host of `url`, or why it cannot be used.
pub fn host(url: &str) -> Result<String, &'static str> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or("it has no scheme; write `https://host/path`")?;
    if !scheme.eq_ignore_ascii_case("https") && !scheme.eq_ignore_ascii_case("http") {
        return Err("only `https://` and `http://` URLs can be fetched");
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Err("it holds credentials; pass them through the tool's configuration instead");
    }
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => host,
        Some(_) => return Err("its port is not a number"),
        None => authority,
    };
    let host = host.to_ascii_lowercase();
    if host.is_empty() {
        return Err("it has no host");
    }
    if host.parse::<std::net::Ipv4Addr>().is_ok() || host.starts_with('[') {
        return Err("it names an IP address; egress is allowed by host name");
    }
    if !crate::config::is_host(&host) {
        return Err("its host is not a valid host name");
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

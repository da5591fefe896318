//! Answering a registry's challenge (`WWW-Authenticate`), without sending
//! credentials anywhere the registry points.
//!
//! A registry that wants a token names the service to ask for one (its
//! `realm`), and a hostile registry can name any host. So credentials go
//! only to the registry's own host, or to a host the person running
//! contrib allowed (`CONTRIB_REGISTRY_AUTH_HOSTS`, comma-separated: Docker
//! Hub's `auth.docker.io`, GitLab's `gitlab.com`), and never over plain
//! HTTP unless to this machine. A token asked for anonymously (a public
//! registry's pull) carries no secret, so any realm may be asked. The
//! token, like the credentials, is sent only to the registry's own
//! origin (and reqwest drops it on a redirect to another host).

use std::collections::HashMap;
use std::sync::Mutex;

use reqwest::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use reqwest::Url;

use super::credentials::RegistryAuth;
use super::http::{self, limit, Answer, Deadlines};
use crate::bundle::oci::is_loopback_host as is_loopback;

/// What a token is asked for: a repository, to pull or to push too.
pub(crate) type Scope = (String, bool);

/// The credentials of one registry, and what they were turned into.
pub(crate) struct Auth {
    credentials: RegistryAuth,
    /// The registry's host, without its port.
    host: String,
    /// Whether the registry is spoken to over plain HTTP.
    plain: bool,
    /// Hosts besides the registry's own a token may be asked of with the
    /// credentials.
    allowed: Vec<String>,
    /// The `Authorization` for each scope, once a challenge was answered.
    answered: Mutex<HashMap<Scope, String>>,
    /// Set once the registry asked for HTTP Basic: then every request
    /// carries it.
    basic: Mutex<Option<String>>,
}

/// A parsed challenge: its scheme and parameters.
#[derive(Debug, PartialEq, Eq)]
struct Challenge {
    scheme: String,
    params: Vec<(String, String)>,
}

impl Challenge {
    fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

impl Auth {
    pub(crate) fn new(credentials: RegistryAuth, host: &str, plain: bool) -> Auth {
        let allowed = std::env::var("CONTRIB_REGISTRY_AUTH_HOSTS")
            .unwrap_or_default()
            .split(',')
            .map(|host| host.trim().to_ascii_lowercase())
            .filter(|host| !host.is_empty())
            .collect();
        Auth {
            credentials,
            host: host.to_ascii_lowercase(),
            plain,
            allowed,
            answered: Mutex::default(),
            basic: Mutex::default(),
        }
    }

    /// The `Authorization` a request to the registry for `scope` carries,
    /// if any is known yet.
    pub(crate) fn header(&self, scope: &Scope) -> Option<String> {
        let answered = self
            .answered
            .lock()
            .ok()
            .and_then(|answered| answered.get(scope).cloned());
        answered.or_else(|| self.basic.lock().ok().and_then(|basic| basic.clone()))
    }

    /// Answers the challenge of `refused` (a 401) for `scope`: after it,
    /// [`Auth::header`] gives what to send again. Refused, with the
    /// reason, when it would send credentials where they may not go.
    pub(crate) async fn answer(
        &self,
        client: &reqwest::Client,
        refused: &Answer,
        scope: &Scope,
        deadlines: Deadlines,
    ) -> Result<(), String> {
        let challenge = refused
            .header(WWW_AUTHENTICATE)
            .and_then(parse)
            .ok_or_else(refusal)?;
        let header = match (challenge.scheme.as_str(), &self.credentials) {
            (_, RegistryAuth::Anonymous) if challenge.scheme == "basic" => return Err(refusal()),
            ("basic", RegistryAuth::Basic(user, password)) => {
                self.may_send_to_registry()?;
                let header = basic(user, password);
                if let Ok(mut known) = self.basic.lock() {
                    *known = Some(header.clone());
                }
                header
            }
            (_, RegistryAuth::Bearer(token)) => {
                self.may_send_to_registry()?;
                format!("Bearer {token}")
            }
            ("bearer", _) => {
                let token = self.token(client, &challenge, scope, deadlines).await?;
                format!("Bearer {token}")
            }
            _ => return Err(refusal()),
        };
        if let Ok(mut answered) = self.answered.lock() {
            answered.insert(scope.clone(), header);
        }
        Ok(())
    }

    /// Refuses to send credentials to the registry over plain HTTP when it
    /// is not on this machine.
    fn may_send_to_registry(&self) -> Result<(), String> {
        if self.plain && !is_loopback(&self.host) {
            return Err(format!(
                "the registry asks for credentials, which are never sent over plain HTTP to a host not on this machine (`{}`); use HTTPS",
                self.host
            ));
        }
        Ok(())
    }

    /// A token from the challenge's realm for `scope`, asked for with the
    /// credentials when the realm may have them, else refused; asked for
    /// anonymously without credentials.
    async fn token(
        &self,
        client: &reqwest::Client,
        challenge: &Challenge,
        scope: &Scope,
        deadlines: Deadlines,
    ) -> Result<String, String> {
        let realm = challenge
            .param("realm")
            .and_then(|realm| Url::parse(realm).ok())
            .filter(|realm| matches!(realm.scheme(), "https" | "http"))
            .ok_or_else(|| "the registry's token challenge names no realm to ask".to_string())?;
        let mut url = realm.clone();
        {
            let mut query = url.query_pairs_mut();
            if let Some(service) = challenge.param("service") {
                query.append_pair("service", service);
            }
            let access = if scope.1 { "pull,push" } else { "pull" };
            query.append_pair("scope", &format!("repository:{}:{access}", scope.0));
        }
        let mut request = client.get(url);
        if let RegistryAuth::Basic(user, password) = &self.credentials {
            self.may_send_to(&realm)?;
            request = request.header(AUTHORIZATION, basic(user, password));
        }
        let answer = http::exchange(request, limit::TOKEN, deadlines)
            .await
            .map_err(|stopped| format!("the token service: {stopped}"))?;
        if matches!(answer.status, 401 | 403) {
            return Err(refusal());
        }
        if !answer.ok() {
            return Err(format!("the token service: {}", answer.failure()));
        }
        let body: serde_json::Value = serde_json::from_slice(&answer.body)
            .map_err(|_| "the token service answered something other than a token".to_string())?;
        body["token"]
            .as_str()
            .or(body["access_token"].as_str())
            .filter(|token| is_token(token))
            .map(str::to_string)
            .ok_or_else(|| "the token service answered something other than a token".to_string())
    }

    /// Whether the credentials may go to `realm`: the registry's own host
    /// or an allowed one, over HTTPS or to this machine.
    fn may_send_to(&self, realm: &Url) -> Result<(), String> {
        let host = realm.host_str().unwrap_or_default().to_ascii_lowercase();
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host != self.host && !self.allowed.iter().any(|allowed| allowed == host) {
            return Err(format!(
                "the registry asks for the credentials to be sent to `{}`, which is not its own host, so they were not sent; if that token service is the registry's, allow it with `CONTRIB_REGISTRY_AUTH_HOSTS={}`",
                crate::report::terminal::visible(host),
                crate::report::terminal::visible(host)
            ));
        }
        if realm.scheme() != "https" && !is_loopback(host) {
            return Err(format!(
                "the registry asks for the credentials to be sent to `{}` over plain HTTP, so they were not sent",
                crate::report::terminal::visible(host)
            ));
        }
        Ok(())
    }
}

/// The refusal a registry's 401 comes to.
pub(crate) fn refusal() -> String {
    "the registry refused the credentials (see `docs/catalogs.md`, credentials)".to_string()
}

fn basic(user: &str, password: &str) -> String {
    use base64::Engine;
    let pair = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!("Basic {pair}")
}

/// Whether `token` can be sent as a header value: visible ASCII.
fn is_token(token: &str) -> bool {
    !token.is_empty() && token.len() < 16 << 10 && token.bytes().all(|b| b.is_ascii_graphic())
}

/// The first challenge of a `WWW-Authenticate` value: its scheme
/// (lowercased) and its `key=value` or `key="value"` parameters.
fn parse(value: &str) -> Option<Challenge> {
    let value = value.trim();
    let (scheme, mut rest) = value.split_once(' ').unwrap_or((value, ""));
    let mut params = Vec::new();
    loop {
        rest = rest.trim_start_matches([' ', ',']);
        let Some((key, after)) = rest.split_once('=') else {
            break;
        };
        let key = key.trim().to_string();
        let after = after.trim_start();
        let (value, left) = match after.strip_prefix('"') {
            Some(quoted) => quoted_string(quoted)?,
            None => {
                let end = after.find(',').unwrap_or(after.len());
                (after[..end].trim().to_string(), &after[end..])
            }
        };
        params.push((key, value));
        rest = left;
    }
    Some(Challenge {
        scheme: scheme.to_ascii_lowercase(),
        params,
    })
}

/// A quoted string's value (its closing quote found, `\"` unescaped) and
/// what follows it.
fn quoted_string(text: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Some((value, &text[at + 1..])),
            '\\' => value.push(chars.next()?.1),
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_read_with_their_quoted_parameters() {
        let challenge = parse(
            r#"Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push""#,
        )
        .expect("a challenge");
        assert_eq!(challenge.scheme, "bearer");
        assert_eq!(challenge.param("realm"), Some("https://auth.example/token"));
        assert_eq!(challenge.param("scope"), Some("repository:a/b:pull,push"));
        let basic = parse(r#"Basic realm="a \"quoted\" realm""#).expect("a challenge");
        assert_eq!(basic.scheme, "basic");
        assert_eq!(basic.param("realm"), Some(r#"a "quoted" realm"#));
        assert!(parse(r#"Bearer realm="unterminated"#).is_none());
    }

    #[test]
    fn credentials_go_to_the_registrys_host_or_an_allowed_one_over_https() {
        let credentials = RegistryAuth::Basic("ci".into(), "secret".into());
        let mut auth = Auth::new(credentials, "registry.example", false);
        let url = |text: &str| Url::parse(text).expect("a URL");
        assert!(auth
            .may_send_to(&url("https://registry.example/token"))
            .is_ok());
        assert!(auth
            .may_send_to(&url("https://registry.example:8443/t"))
            .is_ok());
        let refused = auth
            .may_send_to(&url("https://evil.example/token"))
            .expect_err("another host");
        assert!(
            refused.contains("CONTRIB_REGISTRY_AUTH_HOSTS=evil.example"),
            "{refused}"
        );
        assert!(auth
            .may_send_to(&url("http://registry.example/token"))
            .is_err());
        auth.allowed = vec!["auth.example".into()];
        assert!(auth.may_send_to(&url("https://auth.example/token")).is_ok());
        assert!(auth.may_send_to(&url("http://auth.example/token")).is_err());
        let local = Auth::new(RegistryAuth::Anonymous, "127.0.0.1", true);
        assert!(local
            .may_send_to(&url("http://127.0.0.1:5000/token"))
            .is_ok());
        assert!(local.may_send_to_registry().is_ok());
        let plain = Auth::new(RegistryAuth::Anonymous, "registry.example", true);
        assert!(plain.may_send_to_registry().is_err());
    }
}

//! Registry credentials where people already keep them, in this order:
//!
//! 1. `CONTRIB_REGISTRY_USERNAME` and `CONTRIB_REGISTRY_PASSWORD` (CI);
//! 2. the Podman/containers auth file (`REGISTRY_AUTH_FILE`, else
//!    `$XDG_RUNTIME_DIR/containers/auth.json`, else
//!    `~/.config/containers/auth.json`);
//! 3. the Docker configuration (`$DOCKER_CONFIG/config.json`, else
//!    `~/.docker/config.json`).
//!
//! In a file, a `credHelpers` entry for the registry wins, then an `auths`
//! entry, then the `credsStore`; a helper is run as
//! `docker-credential-NAME get` with the registry on its input, per the
//! Docker credential-helper protocol. Nothing found: anonymous. A secret is
//! never taken from the command line, and never written to a message.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use base64::Engine;
use serde::Deserialize;

/// What a registry is told about who is asking.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum RegistryAuth {
    Anonymous,
    /// A user and password (or token) for HTTP Basic, and for asking a
    /// token service on the registry's behalf.
    Basic(String, String),
    /// A token sent to the registry as it is (`identitytoken`, or a
    /// helper's `<token>` answer).
    Bearer(String),
}

impl std::fmt::Debug for RegistryAuth {
    /// Never the secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RegistryAuth::Anonymous => "anonymous",
            RegistryAuth::Basic(..) => "basic",
            RegistryAuth::Bearer(_) => "bearer",
        })
    }
}

#[derive(Default, Deserialize)]
struct AuthFile {
    #[serde(default)]
    auths: std::collections::BTreeMap<String, AuthEntry>,
    #[serde(default, rename = "credHelpers")]
    cred_helpers: std::collections::BTreeMap<String, String>,
    #[serde(default, rename = "credsStore")]
    creds_store: Option<String>,
}

#[derive(Default, Deserialize)]
struct AuthEntry {
    #[serde(default)]
    auth: Option<String>,
    #[serde(default)]
    username: Option<String>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    identitytoken: Option<String>,
}

#[derive(Deserialize)]
struct HelperAnswer {
    #[serde(rename = "Username")]
    username: String,
    #[serde(rename = "Secret")]
    secret: String,
}

/// The credentials for `registry` (`HOST[:PORT]`, on `host`).
pub(crate) fn find(host: &str, registry: &str) -> Result<RegistryAuth, String> {
    if let (Ok(user), Ok(password)) = (
        std::env::var("CONTRIB_REGISTRY_USERNAME"),
        std::env::var("CONTRIB_REGISTRY_PASSWORD"),
    ) {
        return Ok(RegistryAuth::Basic(user, password));
    }
    for path in auth_files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let file: AuthFile = serde_json::from_str(&text).map_err(|_| {
            format!(
                "`{}` is not a credentials file (JSON with `auths`)",
                path.display()
            )
        })?;
        if let Some(found) = in_file(&file, host, registry, &path)? {
            return Ok(found);
        }
    }
    Ok(RegistryAuth::Anonymous)
}

fn auth_files() -> Vec<PathBuf> {
    let var = |name: &str| std::env::var_os(name).map(PathBuf::from);
    let home = var("HOME");
    let mut files = Vec::new();
    match var("REGISTRY_AUTH_FILE") {
        Some(file) => files.push(file),
        None => {
            if let Some(runtime) = var("XDG_RUNTIME_DIR") {
                files.push(runtime.join("containers/auth.json"));
            }
            if let Some(home) = &home {
                files.push(home.join(".config/containers/auth.json"));
            }
        }
    }
    match var("DOCKER_CONFIG") {
        Some(folder) => files.push(folder.join("config.json")),
        None => files.extend(home.map(|home| home.join(".docker/config.json"))),
    }
    files
}

/// What `file` holds for the registry: a helper's answer or an entry.
fn in_file(
    file: &AuthFile,
    host: &str,
    registry: &str,
    path: &std::path::Path,
) -> Result<Option<RegistryAuth>, String> {
    let names = |key: &str| {
        let bare = key
            .trim_start_matches("https://")
            .trim_start_matches("http://");
        let bare = bare.split('/').next().unwrap_or_default();
        bare == registry || bare == host
    };
    if let Some((_, helper)) = file.cred_helpers.iter().find(|(key, _)| names(key)) {
        return helper_get(helper, registry);
    }
    if let Some((_, entry)) = file.auths.iter().find(|(key, _)| names(key)) {
        if let Some(token) = &entry.identitytoken {
            return Ok(Some(RegistryAuth::Bearer(token.clone())));
        }
        if let (Some(user), Some(password)) = (&entry.username, &entry.password) {
            return Ok(Some(RegistryAuth::Basic(user.clone(), password.clone())));
        }
        if let Some(encoded) = &entry.auth {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(encoded.trim())
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok());
            let Some((user, password)) = decoded.as_deref().and_then(|text| text.split_once(':'))
            else {
                return Err(format!(
                    "`{}`: the `auth` of `{registry}` is not base64 of `user:password`",
                    path.display()
                ));
            };
            return Ok(Some(RegistryAuth::Basic(user.into(), password.into())));
        }
    }
    match &file.creds_store {
        Some(store) => helper_get(store, registry),
        None => Ok(None),
    }
}

/// Asks `docker-credential-NAME` for the registry's credentials; `None`
/// when it has none.
fn helper_get(name: &str, registry: &str) -> Result<Option<RegistryAuth>, String> {
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        return Err(format!(
            "`{}` is not a credential helper's name",
            crate::report::terminal::visible(name)
        ));
    }
    let program = format!("docker-credential-{name}");
    let mut child = Command::new(&program)
        .arg("get")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| format!("cannot run the credential helper `{program}`: {error}"))?;
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(registry.as_bytes());
    }
    let output = child
        .wait_with_output()
        .map_err(|error| format!("the credential helper `{program}` failed: {error}"))?;
    if !output.status.success() {
        // The protocol's "credentials not found": anonymous.
        return Ok(None);
    }
    let answer: HelperAnswer = serde_json::from_slice(&output.stdout).map_err(|_| {
        format!("the credential helper `{program}` answered something other than its JSON")
    })?;
    Ok(Some(if answer.username == "<token>" {
        RegistryAuth::Bearer(answer.secret)
    } else {
        RegistryAuth::Basic(answer.username, answer.secret)
    }))
}

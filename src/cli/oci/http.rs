//! HTTP to a registry, bounded on every side a registry could stretch.
//!
//! - **Bytes.** Every body is read against a limit by the bytes that
//!   arrive, never by what the server declares: a response that sends one
//!   byte more than its limit is refused, and no more is read.
//! - **Time.** Every request has a deadline from sending it to its last
//!   byte ([`Deadlines::request`], `CONTRIB_REGISTRY_TIMEOUT`), so a
//!   server that sends one byte a second does not hold it forever; every
//!   command has one for all its requests together
//!   ([`Deadlines::command`], `CONTRIB_REGISTRY_DEADLINE`).
//! - **Words.** What a server answers with when it fails is shown as a
//!   short excerpt, its characters escaped ([`excerpt`]), never whole.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long one request may take, from sending it to its answer's last
/// byte; `CONTRIB_REGISTRY_TIMEOUT` (seconds) changes it.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How long one command's registry requests may take together;
/// `CONTRIB_REGISTRY_DEADLINE` (seconds) changes it. `catalog check` of
/// 10,000 versions takes under a minute on a local registry.
const COMMAND_DEADLINE: Duration = Duration::from_secs(600);

/// The most of a failed answer's body read, to explain it.
const ERROR_BYTES: u64 = 8 << 10;

/// The most characters of a server's own words shown in a message.
const EXCERPT_CHARS: usize = 200;

/// The limits on what one answer's body may hold.
pub(crate) mod limit {
    /// A manifest (an event, a version's bundle manifest, a signature, a
    /// referrers index): the OCI distribution specification's 4 MiB.
    pub(crate) const MANIFEST: u64 = 4 << 20;
    /// One page of a tag listing. A registry may answer with every tag
    /// at once, whatever page it was asked for (distribution 2.8 does),
    /// so a page may hold the whole listing: [`super::super::client::MAX_TAGS`]
    /// event tags (41 characters) with their JSON.
    pub(crate) const TAG_PAGE: u64 = 32 << 20;
    /// A token service's answer.
    pub(crate) const TOKEN: u64 = 64 << 10;
    /// Nothing: a `HEAD`, a push.
    pub(crate) const NONE: u64 = 0;
}

/// When a command's registry requests must end, and how long each may
/// take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadlines {
    /// How long one request may take.
    pub request: Duration,
    /// How long the command's requests may take together.
    pub command: Duration,
    /// When they must have ended.
    pub until: Instant,
}

impl Deadlines {
    /// The command's deadlines, from the environment: counted from the
    /// first connection the command makes, the same for every later one.
    pub(crate) fn of_command() -> Deadlines {
        static STARTED: OnceLock<Instant> = OnceLock::new();
        let started = *STARTED.get_or_init(Instant::now);
        let seconds = |name: &str, default: Duration| {
            std::env::var(name)
                .ok()
                .and_then(|text| text.parse().ok())
                .map_or(default, Duration::from_secs)
        };
        let request = seconds("CONTRIB_REGISTRY_TIMEOUT", REQUEST_TIMEOUT);
        let command = seconds("CONTRIB_REGISTRY_DEADLINE", COMMAND_DEADLINE);
        Deadlines {
            request,
            command,
            until: started + command,
        }
    }

    /// These deadlines, ending no later than one request's time from now:
    /// for work that only refreshes what is already kept.
    pub(crate) fn within_one_request(self) -> Deadlines {
        Deadlines {
            until: self.until.min(Instant::now() + self.request),
            command: self.command.min(self.request),
            ..self
        }
    }
}

/// A registry's answer: its status, headers and body, read within bounds.
pub(crate) struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    /// The body; for a failure, at most its first [`ERROR_BYTES`].
    pub body: Vec<u8>,
}

impl Answer {
    pub(crate) fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The header `name`, if it is text.
    pub(crate) fn header(&self, name: reqwest::header::HeaderName) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The failure in words: the status, and an excerpt of what the server
    /// said.
    pub(crate) fn failure(&self) -> String {
        match excerpt(&self.body) {
            Some(said) => format!("the registry answered {}: {said}", self.status),
            None => format!("the registry answered {}", self.status),
        }
    }
}

/// Why an exchange stopped before an answer was read.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// The request took longer than one request may.
    Timeout(Duration),
    /// The command's deadline passed.
    Deadline(Duration),
    /// The body was longer than its limit.
    Over(u64),
    /// The connection failed.
    Network(String),
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Timeout(limit) => write!(
                f,
                "the registry did not answer in time (a request may take {} s; `CONTRIB_REGISTRY_TIMEOUT` changes it)",
                limit.as_secs()
            ),
            Stopped::Deadline(limit) => write!(
                f,
                "the command's deadline for registry requests passed ({} s; `CONTRIB_REGISTRY_DEADLINE` changes it)",
                limit.as_secs()
            ),
            Stopped::Over(limit) => write!(
                f,
                "the registry sent more than the {limit} bytes this answer may hold, so it was not read further"
            ),
            Stopped::Network(why) => f.write_str(why),
        }
    }
}

/// Sends `request` and reads its answer: a successful answer's body at
/// most `limit` bytes, a failure's at most [`ERROR_BYTES`], the whole
/// within one request's time and the command's deadline.
pub(crate) async fn exchange(
    request: reqwest::RequestBuilder,
    limit: u64,
    deadlines: Deadlines,
) -> Result<Answer, Stopped> {
    let left = deadlines.until.saturating_duration_since(Instant::now());
    let (time, stopped) = if left < deadlines.request {
        (left, Stopped::Deadline(deadlines.command))
    } else {
        (deadlines.request, Stopped::Timeout(deadlines.request))
    };
    if time.is_zero() {
        return Err(stopped);
    }
    let exchanged = async {
        let response = request
            .send()
            .await
            .map_err(|error| network(&error, deadlines))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = if (200..300).contains(&status) {
            read_bounded(response, limit, deadlines).await?
        } else {
            read_start(response, ERROR_BYTES).await
        };
        Ok(Answer {
            status,
            headers,
            body,
        })
    };
    tokio::time::timeout(time, exchanged)
        .await
        .unwrap_or(Err(stopped))
}

fn network(error: &reqwest::Error, deadlines: Deadlines) -> Stopped {
    if error.is_timeout() {
        return Stopped::Timeout(deadlines.request);
    }
    // reqwest's words, with the causes it wraps: "error sending request
    // for url (…): connection refused".
    let mut why = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        why.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    Stopped::Network(crate::report::terminal::visible(&why).into_owned())
}

/// The body, refused as soon as more than `limit` bytes arrive (or are
/// declared).
async fn read_bounded(
    mut response: reqwest::Response,
    limit: u64,
    deadlines: Deadlines,
) -> Result<Vec<u8>, Stopped> {
    if response
        .content_length()
        .is_some_and(|length| length > limit)
    {
        return Err(Stopped::Over(limit));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| network(&error, deadlines))?
    {
        if body.len() as u64 + chunk.len() as u64 > limit {
            return Err(Stopped::Over(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// At most the first `limit` bytes of the body; the rest is not read.
async fn read_start(mut response: reqwest::Response, limit: u64) -> Vec<u8> {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        let room = (limit as usize).saturating_sub(body.len());
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() as u64 >= limit {
            break;
        }
    }
    body
}

/// What a server said in a failed answer's `body`, as a reader may see it:
/// the OCI error envelope's codes and messages when it is one, else the
/// text itself; white space folded, at most [`EXCERPT_CHARS`] characters,
/// every character a terminal would act on escaped, in backticks. `None`
/// for an empty body.
pub(crate) fn excerpt(body: &[u8]) -> Option<String> {
    let said = envelope_words(body).unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    let folded = said.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.is_empty() {
        return None;
    }
    let mut cut: String = folded.chars().take(EXCERPT_CHARS).collect();
    if cut.len() < folded.len() || body.len() as u64 >= ERROR_BYTES {
        cut.push('…');
    }
    Some(format!(
        "`{}`",
        crate::report::terminal::visible(&cut).replace('`', "'")
    ))
}

/// The OCI error envelope's errors (`{"errors": [{"code", "message"}]}`),
/// as `CODE: message; …`.
fn envelope_words(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let errors = value["errors"].as_array()?;
    let words: Vec<String> = errors
        .iter()
        .take(3)
        .map(|error| {
            let code = error["code"].as_str().unwrap_or("ERROR");
            match error["message"].as_str() {
                Some(message) => format!("{code}: {message}"),
                None => code.to_string(),
            }
        })
        .collect();
    (!words.is_empty()).then(|| words.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_is_short_folded_and_escaped() {
        let mut body = b"\x1b[2J\x1b[31mboom\n\n  it broke".to_vec();
        assert_eq!(
            excerpt(&body).as_deref(),
            Some("`\\u{1b}[2J\\u{1b}[31mboom it broke`")
        );
        body.extend(std::iter::repeat_n(b'A', 10_000));
        let long = excerpt(&body).expect("an excerpt");
        assert!(long.chars().count() < EXCERPT_CHARS + 40, "{long}");
        assert!(long.ends_with("…`"), "{long}");
        assert_eq!(excerpt(b"  \n"), None);
        let envelope =
            br#"{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{}}]}"#;
        assert_eq!(
            excerpt(envelope).as_deref(),
            Some("`MANIFEST_UNKNOWN: manifest unknown`")
        );
    }
}

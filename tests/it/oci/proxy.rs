//! A hostile registry for the tests: a proxy on 127.0.0.1 in front of the
//! real `docker-registry`, which forwards each request or does what the
//! test's rule says instead (fail it, answer it slowly, without end, or
//! with other headers), and counts what it sent. Beside it, the few raw
//! distribution-API calls a test makes as an attacker would, with no
//! contrib code in the way.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};

/// One request as the proxy read it.
pub(crate) struct Request {
    pub method: String,
    /// The path and query, as sent.
    pub path: String,
    /// The whole head, headers included.
    pub head: String,
}

impl Request {
    pub(crate) fn is(&self, method: &str, path_contains: &str) -> bool {
        self.method == method && self.path.contains(path_contains)
    }

    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_string())
        })
    }
}

/// Whether `request` fetches a bundle blob (any blob but the empty one
/// every config and event shares).
pub(crate) fn is_bundle_blob(request: &Request) -> bool {
    let empty = "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";
    request.is("GET", "/blobs/sha256:") && !request.path.contains(empty)
}

/// What the proxy does with a request.
pub(crate) enum Answer {
    /// Pass it to the registry and its answer back.
    Forward,
    /// Answer with this status and body, without asking the registry.
    Fail(u16, Vec<u8>),
    /// Pass it to the registry, then answer with this status instead of
    /// the registry's answer (the registry acted on it: a 500 after a
    /// write).
    ForwardThenFail(u16),
    /// Pass it on, then send the registry's answer: its head at once, its
    /// body one byte per interval.
    Trickle(Duration),
    /// Pass it on after waiting.
    Delay(Duration),
    /// Answer with this head (status line and headers, no blank line),
    /// then bytes until the client hangs up or this many were sent (a cap
    /// that keeps a client with no bound of its own from exhausting the
    /// machine's memory).
    Endless(String, u64),
    /// Answer with exactly these bytes (a whole response).
    Raw(Vec<u8>),
    /// Send these bytes, then nothing more for a minute, the connection
    /// open.
    Stall(Vec<u8>),
}

type Rule = dyn Fn(&Request) -> Answer + Send + Sync;

/// The proxy: its port, and how many bytes it sent to clients.
pub(crate) struct Proxy {
    pub port: u16,
    sent: Arc<AtomicU64>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Proxy {
    /// Starts a proxy in front of the registry on `upstream`, answering
    /// each request as `rule` says.
    pub(crate) fn start(
        upstream: u16,
        rule: impl Fn(&Request) -> Answer + Send + Sync + 'static,
    ) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let port = listener.local_addr().expect("an address").port();
        let rule: Arc<Rule> = Arc::new(rule);
        let sent = Arc::new(AtomicU64::new(0));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (counter, log) = (sent.clone(), seen.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let (rule, counter, log) = (rule.clone(), counter.clone(), log.clone());
                std::thread::spawn(move || serve(client, upstream, &*rule, &counter, &log));
            }
        });
        Proxy { port, sent, seen }
    }

    /// The catalog `namespace` through the proxy.
    pub(crate) fn catalog(&self, namespace: &str) -> String {
        format!("oci://127.0.0.1:{}/{namespace}", self.port)
    }

    /// Bytes sent to clients so far.
    pub(crate) fn sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }

    /// The heads of the requests seen so far.
    pub(crate) fn seen(&self) -> Vec<String> {
        self.seen.lock().expect("the log").clone()
    }
}

/// One client connection: each request read whole, then answered as the
/// rule says; forwarded requests go to the registry over a fresh
/// connection, closed after its answer.
fn serve(
    mut client: TcpStream,
    upstream: u16,
    rule: &Rule,
    sent: &AtomicU64,
    seen: &Mutex<Vec<String>>,
) {
    loop {
        let Some(bytes) = read_message(&mut client) else {
            return;
        };
        let split = head_end(&bytes);
        let head = String::from_utf8_lossy(&bytes[..split]).into_owned();
        let line = head.lines().next().unwrap_or_default().to_string();
        let mut words = line.split(' ');
        let request = Request {
            method: words.next().unwrap_or_default().to_string(),
            path: words.next().unwrap_or_default().to_string(),
            head: head.clone(),
        };
        if let Ok(mut log) = seen.lock() {
            log.push(head);
        }
        let mut write = |data: &[u8]| -> bool {
            sent.fetch_add(data.len() as u64, Ordering::SeqCst);
            client.write_all(data).is_ok()
        };
        match rule(&request) {
            Answer::Forward => {
                let Some(response) = forward(&bytes, upstream) else {
                    return;
                };
                if !write(&response) {
                    return;
                }
            }
            Answer::Fail(status, body) => {
                let head = format!(
                    "HTTP/1.1 {status} Failed\r\nContent-Length: {}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                write(head.as_bytes());
                write(&body);
                return;
            }
            Answer::ForwardThenFail(status) => {
                let _ = forward(&bytes, upstream);
                let head = format!(
                    "HTTP/1.1 {status} Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                write(head.as_bytes());
                return;
            }
            Answer::Trickle(interval) => {
                let Some(response) = forward(&bytes, upstream) else {
                    return;
                };
                let body = head_end(&response).saturating_add(4).min(response.len());
                if !write(&response[..body]) {
                    return;
                }
                for &byte in &response[body..] {
                    if !write(&[byte]) {
                        return;
                    }
                    std::thread::sleep(interval);
                }
                return;
            }
            Answer::Delay(wait) => {
                std::thread::sleep(wait);
                let Some(response) = forward(&bytes, upstream) else {
                    return;
                };
                if !write(&response) {
                    return;
                }
            }
            Answer::Endless(head, cap) => {
                if !write(format!("{head}\r\n\r\n").as_bytes()) {
                    return;
                }
                let chunk = vec![b'A'; 64 * 1024];
                let mut left = cap;
                while left > 0 && write(&chunk) {
                    left = left.saturating_sub(chunk.len() as u64);
                }
                return;
            }
            Answer::Raw(response) => {
                write(&response);
                return;
            }
            Answer::Stall(start) => {
                write(&start);
                std::thread::sleep(Duration::from_secs(60));
                return;
            }
        }
    }
}

/// The registry's answer to `request`, sent over a connection of its own.
fn forward(request: &[u8], upstream: u16) -> Option<Vec<u8>> {
    let request = with_connection_close(request);
    let mut server = TcpStream::connect(("127.0.0.1", upstream)).ok()?;
    server.write_all(&request).ok()?;
    let mut response = Vec::new();
    let _ = server.read_to_end(&mut response);
    Some(response)
}

fn head_end(bytes: &[u8]) -> usize {
    bytes
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .unwrap_or(bytes.len())
}

/// A message read whole: its head, and as much body as `Content-Length`
/// says.
fn read_message(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut byte = [0u8; 1];
    while !bytes.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).ok()? == 0 {
            return None;
        }
        bytes.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&bytes).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).ok()?;
    bytes.extend(body);
    Some(bytes)
}

/// The request with `Connection: close`, so the registry ends its answer
/// by closing.
fn with_connection_close(request: &[u8]) -> Vec<u8> {
    let split = head_end(request);
    let head = String::from_utf8_lossy(&request[..split]);
    let mut out: Vec<u8> = head
        .lines()
        .filter(|line| !line.to_ascii_lowercase().starts_with("connection:"))
        .collect::<Vec<_>>()
        .join("\r\n")
        .into_bytes();
    out.extend_from_slice(b"\r\nConnection: close");
    out.extend_from_slice(&request[split..]);
    out
}

/// `sha256:` and the hex of `bytes`' SHA-256.
pub(crate) fn sha256(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// One request to the registry on `port`, as an attacker with push rights
/// makes it: its status, headers and body.
pub(crate) fn call(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the registry");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (key, value) in headers {
        head.push_str(&format!("{key}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("sent");
    stream.write_all(body).expect("sent");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("an answer");
    let split = head_end(&response);
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = response.get(split + 4..).unwrap_or_default().to_vec();
    (status, head, body)
}

/// Pushes `bytes` as a blob of `repository`; its digest.
pub(crate) fn push_blob(port: u16, repository: &str, bytes: &[u8]) -> String {
    let digest = sha256(bytes);
    let (status, head, _) = call(
        port,
        "POST",
        &format!("/v2/{repository}/blobs/uploads/"),
        &[],
        &[],
    );
    assert_eq!(status, 202, "{head}");
    let location = head
        .lines()
        .find_map(|line| line.strip_prefix("Location: "))
        .expect("an upload location")
        .trim()
        .to_string();
    let path = location
        .split_once("://")
        .map_or(location.as_str(), |(_, rest)| {
            &rest[rest.find('/').unwrap_or(0)..]
        })
        .to_string();
    let separator = if path.contains('?') { '&' } else { '?' };
    let (status, head, _) = call(
        port,
        "PUT",
        &format!("{path}{separator}digest={digest}"),
        &[("Content-Type", "application/octet-stream")],
        bytes,
    );
    assert_eq!(status, 201, "{head}");
    digest
}

/// Pushes `manifest` into `repository` under `reference` (a tag, or its
/// digest); its digest.
pub(crate) fn push_manifest(
    port: u16,
    repository: &str,
    reference: Option<&str>,
    manifest: &serde_json::Value,
) -> String {
    let bytes = serde_json::to_vec(manifest).expect("json");
    let digest = sha256(&bytes);
    let reference = reference.unwrap_or(&digest).to_string();
    let (status, head, body) = call(
        port,
        "PUT",
        &format!("/v2/{repository}/manifests/{reference}"),
        &[("Content-Type", "application/vnd.oci.image.manifest.v1+json")],
        &bytes,
    );
    assert_eq!(status, 201, "{head}{}", String::from_utf8_lossy(&body));
    digest
}

/// The manifest `reference` names in `repository`, as JSON, and its
/// digest.
pub(crate) fn manifest(
    port: u16,
    repository: &str,
    reference: &str,
) -> (serde_json::Value, String) {
    let (status, head, body) = call(
        port,
        "GET",
        &format!("/v2/{repository}/manifests/{reference}"),
        &[("Accept", "application/vnd.oci.image.manifest.v1+json")],
        &[],
    );
    assert_eq!(status, 200, "{head}");
    (
        serde_json::from_slice(&body).expect("a manifest"),
        sha256(&body),
    )
}

/// Every tag of `repository` (none when it has none).
pub(crate) fn tags(port: u16, repository: &str) -> Vec<String> {
    let (status, head, body) = call(
        port,
        "GET",
        &format!("/v2/{repository}/tags/list?n=10000"),
        &[],
        &[],
    );
    if status == 404 {
        return Vec::new();
    }
    assert_eq!(status, 200, "{head}");
    let value: serde_json::Value = serde_json::from_slice(&body).expect("a tag list");
    value["tags"]
        .as_array()
        .map(|tags| {
            tags.iter()
                .filter_map(|tag| tag.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A bundle manifest for the bundle `bytes`, as `contrib publish` writes
/// one (the empty config, the bundle as its one layer), pushed with the
/// bundle into `repository`; the manifest's digest.
pub(crate) fn push_bundle(port: u16, repository: &str, tag: Option<&str>, bytes: &[u8]) -> String {
    let empty = push_blob(port, repository, b"{}");
    let layer = push_blob(port, repository, bytes);
    let bundle: serde_json::Value = serde_json::from_slice(bytes).expect("a bundle");
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "artifactType": "application/vnd.contrib.bundle.v1",
        "config": { "mediaType": "application/vnd.oci.empty.v1+json", "digest": empty, "size": 2 },
        "layers": [{
            "mediaType": "application/vnd.contrib.bundle.v1+json",
            "digest": layer,
            "size": bytes.len(),
        }],
        "annotations": { "dev.contrib.bundle.digest": bundle["digest"] },
    });
    push_manifest(port, repository, tag, &manifest)
}

/// An index event with these annotations, pushed under `tag`; its digest.
pub(crate) fn push_event(
    port: u16,
    index_repository: &str,
    tag: &str,
    annotations: &serde_json::Value,
) -> String {
    let empty = push_blob(port, index_repository, b"{}");
    let descriptor = serde_json::json!({ "mediaType": "application/vnd.oci.empty.v1+json", "digest": empty, "size": 2 });
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "artifactType": "application/vnd.contrib.catalog.event.v1",
        "config": descriptor,
        "layers": [descriptor],
        "annotations": annotations,
    });
    push_manifest(port, index_repository, Some(tag), &manifest)
}

/// A listener on 127.0.0.`last`'s free port that answers every request
/// with `response` and records each request's head: a token server, or
/// any host a registry should not send a client to.
pub(crate) fn listen_on(last: u8, response: &'static [u8]) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener =
        TcpListener::bind(("127.0.0.".to_string() + &last.to_string(), 0)).expect("a port");
    let port = listener.local_addr().expect("an address").port();
    let heads = Arc::new(Mutex::new(Vec::new()));
    let log = heads.clone();
    std::thread::spawn(move || {
        for mut client in listener.incoming().flatten() {
            client.set_read_timeout(Some(Duration::from_secs(5))).ok();
            if let Some(bytes) = read_message(&mut client) {
                let split = head_end(&bytes);
                if let Ok(mut heads) = log.lock() {
                    heads.push(String::from_utf8_lossy(&bytes[..split]).into_owned());
                }
                let _ = client.write_all(response);
            }
        }
    });
    (port, heads)
}

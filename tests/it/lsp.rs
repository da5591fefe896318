//! `contrib lsp` end to end: the real binary, spoken to over its stdio in
//! JSON-RPC with `Content-Length` framing, as an editor would.
//!
//! Every read has a timeout, so a server that hangs fails its test instead
//! of blocking the suite; a server left running is killed on drop.

use crate::common::isolated;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long any one answer may take. Generous: the suite runs its servers
/// in parallel on a small machine, unoptimised.
const TIMEOUT: Duration = Duration::from_secs(30);

const CONFIG: &str = r#"[egress]
allow = ["docs.acme.dev"]

[tools.search_code]
effect = "read"
params = { query = "string", limit = "integer?" }
schema_tokens = 150

[skills.code-review]
version = "2.3.0"
manifest_tokens = 300
operations = [{ name = "diff", tokens = 400 }, { name = "annotate", tokens = 200 }]
"#;

const CLEAN: &str = r#"plugin acme/code-review 1.4.0 {
    owner agent-author
    requires skill code-review "^2.1"

    text stance {
        placement agent
        budget 40 tokens
        body "Challenge premises; do not call a design good when it is merely fine."
    }

    eager-load review-ops {
        placement agent
        budget 2000 tokens
        tools [read_object, search_code]
        skill code-review operations [diff, annotate]
    }
}
"#;

/// [`CLEAN`] with two mistakes: a misspelt field (`unknown-field`, with a
/// safe fix) and the time in agent placement (`placement-too-wide`).
fn broken() -> String {
    CLEAN
        .replace("budget 40 tokens", "budgt 40 tokens")
        .replace("merely fine.", "merely fine. It is {now}.")
}

/// A running `contrib lsp` and what it has said.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Messages read while waiting for something else.
    backlog: Vec<Value>,
    next_id: i64,
    workspace: tempfile::TempDir,
}

impl Server {
    /// Starts a server on a workspace holding [`CONFIG`] as `contrib.toml`.
    fn start() -> Server {
        let workspace = tempfile::tempdir().unwrap();
        std::fs::write(workspace.path().join("contrib.toml"), CONFIG).unwrap();
        let mut command = isolated::contrib_command();
        isolated::isolate(&mut command, &workspace.path().join("cache"));
        let mut child = command
            .arg("lsp")
            // Anything the server wrote under these would show up here.
            .env("HOME", workspace.path().join("home"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_frame(&mut reader) {
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            messages,
            backlog: Vec::new(),
            next_id: 0,
            workspace,
        }
    }

    /// Starts a server and initializes it.
    fn initialized() -> Server {
        let mut server = Server::start();
        let root = uri_of(server.workspace.path());
        let result = server.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": root,
                "capabilities": {
                    "textDocument": { "completion": { "completionItem": { "snippetSupport": false } } },
                    "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": false } }
                }
            }),
        );
        assert!(result.get("result").is_some(), "{result}");
        server.notify("initialized", json!({}));
        server
    }

    fn path(&self, name: &str) -> PathBuf {
        self.workspace.path().join(name)
    }

    fn write_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        self.write_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and waits for its response (with `result` or
    /// `error`), keeping what else arrives in the backlog.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.response(&json!(id))
    }

    fn response(&mut self, id: &Value) -> Value {
        self.wait_for(|message| message.get("id") == Some(id) && message.get("method").is_none())
    }

    /// The first message, old or new, that `matches`.
    fn wait_for(&mut self, matches: impl Fn(&Value) -> bool) -> Value {
        if let Some(index) = self.backlog.iter().position(&matches) {
            return self.backlog.remove(index);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) if matches(&message) => return message,
                Ok(message) => self.backlog.push(message),
                Err(RecvTimeoutError::Timeout) => panic!("timed out; got {:#?}", self.backlog),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the server closed its output; got {:#?}", self.backlog)
                }
            }
        }
    }

    /// The diagnostics published for `uri` at `version`.
    fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Vec<Value> {
        let message = self.wait_for(|message| {
            message["method"] == "textDocument/publishDiagnostics"
                && message["params"]["uri"] == uri
                && version.is_none_or(|version| message["params"]["version"] == version)
        });
        message["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    fn open(&mut self, name: &str, text: &str) -> String {
        let uri = uri_of(&self.path(name));
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "contrib", "version": 1, "text": text } }),
        );
        uri
    }

    fn change(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{ "text": text }]
            }),
        );
    }

    /// Shuts down and exits as the protocol says; the exit status.
    fn shut_down(mut self) -> ExitStatus {
        let response = self.request("shutdown", Value::Null);
        assert_eq!(response["result"], Value::Null, "{response}");
        self.notify("exit", Value::Null);
        self.wait()
    }

    fn wait(&mut self) -> ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display()).replace(' ', "%20")
}

/// The LSP position of the first `needle` in `text`, `at` bytes into it
/// (the texts here are ASCII, so bytes are UTF-16 units).
fn position(text: &str, needle: &str, at: usize) -> Value {
    let offset = text.find(needle).unwrap_or_else(|| panic!("{needle}")) + at;
    let line = text[..offset].matches('\n').count();
    let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1);
    json!({ "line": line, "character": column })
}

/// The text a diagnostic's range covers.
fn covered<'t>(text: &'t str, range: &Value) -> &'t str {
    let offset = |position: &Value| {
        let line = position["line"].as_u64().unwrap() as usize;
        let character = position["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        start + character
    };
    &text[offset(&range["start"])..offset(&range["end"])]
}

/// `text` with LSP text edits applied (ASCII texts).
fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |position: &Value| {
        let line = position["line"].as_u64().unwrap() as usize;
        let character = position["character"].as_u64().unwrap() as usize;
        text.split_inclusive('\n')
            .take(line)
            .map(str::len)
            .sum::<usize>()
            + character
    };
    let mut edits: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|edit| {
            (
                offset(&edit["range"]["start"]),
                offset(&edit["range"]["end"]),
                edit["newText"].as_str().unwrap(),
            )
        })
        .collect();
    edits.sort_by_key(|edit| std::cmp::Reverse(edit.0));
    let mut out = text.to_string();
    for (start, end, new_text) in edits {
        out.replace_range(start..end, new_text);
    }
    out
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics
        .iter()
        .map(|diagnostic| diagnostic["code"].as_str().unwrap())
        .collect()
}

#[test]
fn initialize_announces_what_the_server_does() {
    let mut server = Server::start();
    let response = server.request("initialize", json!({ "capabilities": {} }));
    let capabilities = &response["result"]["capabilities"];
    assert_eq!(capabilities["positionEncoding"], "utf-16");
    assert_eq!(capabilities["textDocumentSync"]["change"], 1, "full sync");
    for provider in [
        "hoverProvider",
        "completionProvider",
        "codeActionProvider",
        "documentSymbolProvider",
        "definitionProvider",
    ] {
        assert!(
            !capabilities[provider].is_null(),
            "{provider}: {capabilities}"
        );
    }
    assert_eq!(response["result"]["serverInfo"]["name"], "contrib");
    assert!(server.shut_down().success());
}

#[test]
fn diagnostics_appear_on_open_and_clear_when_fixed() {
    let mut server = Server::initialized();
    let text = broken();
    let uri = server.open("review.contrib", &text);
    let diagnostics = server.diagnostics(&uri, Some(1));
    // A misspelt budget is one diagnostic: it is not also reported missing.
    assert_eq!(codes(&diagnostics), ["C0004"], "{diagnostics:#?}");
    let unknown = &diagnostics[0];
    assert_eq!(covered(&text, &unknown["range"]), "budgt");
    assert_eq!(unknown["severity"], 1);
    assert_eq!(unknown["source"], "contrib");
    assert!(
        unknown["message"]
            .as_str()
            .unwrap()
            .starts_with("unknown field `budgt`"),
        "{unknown}"
    );
    // The link is the rule's page in the repository, at this release's tag;
    // the page is in `docs/rules/`, and the server wrote nothing.
    let href = unknown["codeDescription"]["href"].as_str().unwrap();
    assert_eq!(
        href,
        format!(
            "{}/blob/v{}/docs/rules/unknown-field.md",
            env!("CARGO_PKG_REPOSITORY"),
            env!("CARGO_PKG_VERSION")
        )
    );
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules/unknown-field.md");
    let page = std::fs::read_to_string(&page).unwrap();
    assert!(page.starts_with("# unknown-field (C0004)"), "{page}");
    assert!(!server.path("home").exists() && !server.path("cache").exists());

    // With the field fixed the contributor lowers, and the checker sees
    // the time in agent placement, with the variable as related information.
    let fixed_field = text.replace("budgt", "budget");
    server.change(&uri, 2, &fixed_field);
    let diagnostics = server.diagnostics(&uri, Some(2));
    assert_eq!(codes(&diagnostics), ["C0101"], "{diagnostics:#?}");
    assert_eq!(covered(&fixed_field, &diagnostics[0]["range"]), "agent");
    let related = &diagnostics[0]["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], uri.as_str());
    assert_eq!(
        covered(&fixed_field, &related["location"]["range"]),
        "{now}"
    );
    assert_eq!(related["message"], "varies per message");

    server.change(&uri, 3, CLEAN);
    assert_eq!(server.diagnostics(&uri, Some(3)), Vec::<Value>::new());
    assert!(server.shut_down().success());
}

#[test]
fn hover_answers_on_a_placement_and_a_contributor() {
    let mut server = Server::initialized();
    let uri = server.open("review.contrib", CLEAN);
    let placement = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": position(CLEAN, "placement agent", 12) }),
    );
    let markdown = placement["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        markdown
            .contains("- `agent` (here): shared by every conversation of one agent, for everyone;"),
        "{markdown}"
    );
    let contributor = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": position(CLEAN, "review-ops", 3) }),
    );
    let markdown = contributor["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        markdown.contains("- measured: 1120 tokens (56% of 2000), with o200k\n"),
        "{markdown}"
    );
    let nothing = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 0, "character": 1 } }),
    );
    assert!(nothing["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("**plugin**"));
    assert!(server.shut_down().success());
}

#[test]
fn completion_offers_what_fits_the_cursor() {
    let mut server = Server::initialized();
    let text = CLEAN.replace(
        "placement agent\n        budget 40",
        "placement \n        budget 40",
    );
    let uri = server.open("review.contrib", &text);
    let labels = |response: &Value| -> Vec<String> {
        response["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["label"].as_str().unwrap().to_string())
            .collect()
    };
    let placements = server.request(
        "textDocument/completion",
        json!({ "textDocument": { "uri": uri }, "position": position(&text, "placement \n", 10) }),
    );
    assert_eq!(
        labels(&placements),
        ["platform", "agent", "person", "conversation", "message"]
    );
    let tools = server.request(
        "textDocument/completion",
        json!({ "textDocument": { "uri": uri }, "position": position(&text, "search_code", 0) }),
    );
    let tools = labels(&tools);
    assert!(
        tools.contains(&"search_code".to_string()) && tools.contains(&"fetch_url".to_string()),
        "{tools:?}"
    );
    let variables = server.request(
        "textDocument/completion",
        json!({ "textDocument": { "uri": uri }, "position": position(&text, "Challenge", 0) }),
    );
    assert_eq!(
        labels(&variables),
        Vec::<String>::new(),
        "no `{{` before the cursor"
    );
    assert!(server.shut_down().success());
}

#[test]
fn a_quick_fix_applied_leaves_the_manifest_clean() {
    let mut server = Server::initialized();
    let text = CLEAN.replace(
        "placement agent\n        budget 40",
        "placment agent\n        budget 40",
    );
    let uri = server.open("review.contrib", &text);
    let diagnostics = server.diagnostics(&uri, Some(1));
    assert_eq!(codes(&diagnostics), ["C0004"], "{diagnostics:#?}");
    let response = server.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": uri },
            "range": diagnostics[0]["range"],
            "context": { "diagnostics": diagnostics }
        }),
    );
    let actions = response["result"].as_array().unwrap();
    let preferred = actions
        .iter()
        .find(|action| action["isPreferred"] == true)
        .unwrap_or_else(|| panic!("no preferred fix in {actions:#?}"));
    assert_eq!(preferred["title"], "Replace with `placement`");
    assert_eq!(preferred["kind"], "quickfix");
    let edits = preferred["edit"]["changes"][uri.as_str()]
        .as_array()
        .unwrap();
    let fixed = apply(&text, edits);
    assert_eq!(fixed, CLEAN);
    server.change(&uri, 2, &fixed);
    assert_eq!(server.diagnostics(&uri, Some(2)), Vec::<Value>::new());
    assert!(server.shut_down().success());
}

#[test]
fn symbols_and_definition() {
    let mut server = Server::initialized();
    let uri = server.open("review.contrib", CLEAN);
    let symbols = server.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri } }),
    );
    let plugin = &symbols["result"][0];
    assert_eq!(plugin["name"], "acme/code-review");
    let children: Vec<&str> = plugin["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|child| child["name"].as_str().unwrap())
        .collect();
    assert_eq!(children, ["stance", "review-ops"]);
    let definition = server.request(
        "textDocument/definition",
        json!({ "textDocument": { "uri": uri }, "position": position(CLEAN, "search_code", 2) }),
    );
    assert_eq!(
        definition["result"]["uri"],
        uri_of(&server.path("contrib.toml"))
    );
    assert_eq!(
        covered(CONFIG, &definition["result"]["range"]),
        "[tools.search_code]"
    );
    assert!(server.shut_down().success());
}

#[test]
fn a_changed_contrib_toml_is_read_again_and_its_own_diagnostics_published() {
    let mut server = Server::initialized();
    let uri = server.open("review.contrib", CLEAN);
    assert_eq!(server.diagnostics(&uri, Some(1)), Vec::<Value>::new());
    let config_uri = uri_of(&server.path("contrib.toml"));
    assert_eq!(server.diagnostics(&config_uri, None), Vec::<Value>::new());

    // The workspace drops `search_code` and misspells a key.
    let changed = CONFIG
        .replace("[tools.search_code]", "[tools.search]")
        .replace("schema_tokens = 150", "schema_tokns = 150");
    std::fs::write(server.path("contrib.toml"), &changed).unwrap();
    server.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": config_uri, "type": 2 }] }),
    );
    let diagnostics = server.diagnostics(&uri, None);
    assert_eq!(codes(&diagnostics), ["C0107"], "{diagnostics:#?}");
    assert_eq!(covered(CLEAN, &diagnostics[0]["range"]), "search_code");
    let config_diagnostics = server.diagnostics(&config_uri, None);
    assert_eq!(
        codes(&config_diagnostics),
        ["C0201"],
        "{config_diagnostics:#?}"
    );
    assert_eq!(
        covered(&changed, &config_diagnostics[0]["range"]),
        "schema_tokns"
    );

    // Opened in the editor, the file is read from the editor's text.
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": config_uri, "languageId": "toml", "version": 1, "text": CONFIG } }),
    );
    assert_eq!(server.diagnostics(&uri, None), Vec::<Value>::new());
    assert_eq!(
        server.diagnostics(&config_uri, Some(1)),
        Vec::<Value>::new()
    );
    // And follows every keystroke there.
    let typed = CONFIG.replace("effect = \"read\"", "effect = \"reads\"");
    server.change(&config_uri, 2, &typed);
    let config_diagnostics = server.diagnostics(&config_uri, Some(2));
    assert_eq!(
        codes(&config_diagnostics),
        ["C0201"],
        "{config_diagnostics:#?}"
    );
    assert!(server.shut_down().success());
}

#[test]
fn clients_that_register_watchers_are_asked_to_watch_contrib_toml() {
    let mut server = Server::start();
    server.request(
        "initialize",
        json!({ "capabilities": { "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } } } }),
    );
    server.notify("initialized", json!({}));
    let request = server.wait_for(|message| message["method"] == "client/registerCapability");
    let registration = &request["params"]["registrations"][0];
    assert_eq!(registration["method"], "workspace/didChangeWatchedFiles");
    assert_eq!(
        registration["registerOptions"]["watchers"][0]["globPattern"],
        "**/contrib.toml"
    );
    let id = request["id"].clone();
    server.send(&json!({ "jsonrpc": "2.0", "id": id, "result": null }));
    assert!(server.shut_down().success());
}

#[test]
fn garbage_requests_are_answered_and_the_server_keeps_serving() {
    let mut server = Server::initialized();
    let uri = server.open("review.contrib", CLEAN);

    let unknown = server.request("contrib/noSuchThing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let malformed = server.request("textDocument/hover", json!({ "textDocument": 42 }));
    assert_eq!(malformed["error"]["code"], -32602, "{malformed}");
    let no_params = server.request("textDocument/completion", Value::Null);
    assert_eq!(no_params["error"]["code"], -32602, "{no_params}");

    server.write_raw(b"Content-Length: 9\r\n\r\n{not json");
    let parse_error = server.wait_for(|message| message["error"]["code"] == -32700);
    assert_eq!(parse_error["id"], Value::Null);
    server.write_raw(b"X-Nonsense: 1\r\n\r\n");
    server.wait_for(|message| message["error"]["code"] == -32600 && message["id"].is_null());
    server.send(&json!({ "jsonrpc": "2.0", "id": 99, "params": {} }));
    let no_method = server.response(&json!(99));
    assert_eq!(no_method["error"]["code"], -32600, "{no_method}");
    server.notify("textDocument/didChange", json!({ "nonsense": true }));
    server.notify("$/cancelRequest", json!({ "id": 12345 }));

    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": position(CLEAN, "placement agent", 12) }),
    );
    assert!(
        hover["result"]["contents"]["value"].as_str().is_some(),
        "{hover}"
    );
    assert!(server.shut_down().success());
}

#[test]
fn a_mis_sized_frame_costs_only_itself() {
    let mut server = Server::initialized();
    let uri = server.open("review.contrib", CLEAN);
    let hover = |id: i64| {
        json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "textDocument/hover",
            "params": { "textDocument": { "uri": uri }, "position": position(CLEAN, "placement agent", 12) },
        })
        .to_string()
    };
    // A length too short: the rest of the body runs into the next header.
    let body = hover(501);
    server.write_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len() - 7).as_bytes());
    let body = hover(502);
    server.write_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    let answer = server.response(&json!(502));
    assert!(
        answer["result"]["contents"]["value"].is_string(),
        "{answer}"
    );
    // A length too long: the body swallows the next frame's header.
    let body = hover(503);
    server.write_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len() + 25).as_bytes());
    for id in [504, 505] {
        let body = hover(id);
        server.write_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }
    let answer = server.response(&json!(505));
    assert!(
        answer["result"]["contents"]["value"].is_string(),
        "{answer}"
    );
    assert!(server.shut_down().success());
}

#[test]
fn garbage_documents_get_diagnostics_and_the_server_keeps_serving() {
    let mut server = Server::initialized();
    let binary: String = (0u8..=255).map(char::from).cycle().take(4096).collect();
    let nested = format!("plugin a/b 1.0.0 {}", "{ [".repeat(100_000));
    let huge = format!("plugin a/b 1.0.0 {{\n{}}}\n", "# padding\n".repeat(450_000));
    let cases = [
        ("binary.contrib", binary.as_str(), "C0018"),
        ("nested.contrib", nested.as_str(), "C0017"),
        ("huge.contrib", huge.as_str(), "C0017"),
        ("empty.contrib", "", "C0001"),
        ("braces.contrib", "}}}{{{\"\"\"", "C0001"),
    ];
    for (name, text, code) in cases {
        let uri = server.open(name, text);
        let diagnostics = server.diagnostics(&uri, Some(1));
        assert!(
            codes(&diagnostics).contains(&code),
            "{name}: {diagnostics:#?}"
        );
        let document = json!({ "uri": uri });
        let at = json!({ "line": 0, "character": 3 });
        let range = json!({ "start": { "line": 0, "character": 0 }, "end": at });
        let requests = [
            (
                "textDocument/hover",
                json!({ "textDocument": document, "position": at }),
            ),
            (
                "textDocument/completion",
                json!({ "textDocument": document, "position": at }),
            ),
            (
                "textDocument/definition",
                json!({ "textDocument": document, "position": at }),
            ),
            (
                "textDocument/documentSymbol",
                json!({ "textDocument": document }),
            ),
            (
                "textDocument/codeAction",
                json!({ "textDocument": document, "range": range, "context": { "diagnostics": [] } }),
            ),
        ];
        for (method, params) in requests {
            let response = server.request(method, params);
            assert!(
                response.get("result").is_some(),
                "{name} {method}: {response}"
            );
        }
    }
    assert!(server.shut_down().success());
}

#[test]
fn before_initialize_and_after_shutdown_requests_are_refused() {
    let mut server = Server::start();
    let early = server.request("textDocument/hover", json!({}));
    assert_eq!(early["error"]["code"], -32002, "{early}");
    server.request("initialize", json!({ "capabilities": {} }));
    let again = server.request("initialize", json!({ "capabilities": {} }));
    assert_eq!(again["error"]["code"], -32600, "{again}");
    let shutdown = server.request("shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null);
    let late = server.request("textDocument/hover", json!({}));
    assert_eq!(late["error"]["code"], -32600, "{late}");
    server.notify("exit", Value::Null);
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn exit_without_shutdown_is_status_1() {
    let mut server = Server::initialized();
    server.notify("exit", Value::Null);
    assert_eq!(server.wait().code(), Some(1));
}

#[test]
fn a_closed_stream_without_shutdown_is_status_1() {
    let mut server = Server::initialized();
    assert_eq!(server.wait().code(), Some(1));
}

/// The states a person leaves while typing, near the end of the file: the
/// outline, hover with measurements and completion of the rest of the file
/// keep working, and the one error is where the typing is.
#[test]
fn mid_typing_states_keep_the_rest_of_the_file_working() {
    let head = CLEAN.trim_end().trim_end_matches('}');
    let states = [
        (
            "    eager-run fetch {\n        budget 100 tokens\n        call fetch_url { url: \n    }\n}\n",
            "url: ",
        ),
        (
            "    eager-run fetch {\n        budget 100 tokens\n        call load { names: [\"a\", \n    }\n}\n",
            "[\"a\", ",
        ),
        ("    text fetch {\n        placement agent\n\n}\n", "fetch {"),
        (
            "    text fetch {\n        placement agent\n        body \"\"\"\n            Half a sent\n    }\n}\n",
            "\"\"\"",
        ),
    ];
    let mut server = Server::initialized();
    for (index, (tail, typing)) in states.into_iter().enumerate() {
        let text = format!("{head}{tail}");
        let uri = server.open(&format!("typing-{index}.contrib"), &text);
        let diagnostics = server.diagnostics(&uri, Some(1));
        assert_eq!(diagnostics.len(), 1, "{text}\n{diagnostics:#?}");
        let line = diagnostics[0]["range"]["start"]["line"].as_u64().unwrap() as usize;
        let typed_line = text[..text.rfind(typing).unwrap()].matches('\n').count();
        assert_eq!(line, typed_line, "{text}\n{diagnostics:#?}");

        let symbols = server.request(
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": uri } }),
        );
        let children: Vec<&str> = symbols["result"][0]["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|child| child["name"].as_str().unwrap())
            .collect();
        assert_eq!(children, ["stance", "review-ops", "fetch"], "{text}");

        let hover = server.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": position(&text, "text stance", 6) }),
        );
        let shown = hover["result"]["contents"]["value"].as_str().unwrap_or("");
        assert!(shown.contains("% of 40)"), "{text}\n{shown}");

        let completion = server.request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": uri }, "position": position(&text, "placement agent", 10) }),
        );
        let labels: Vec<&str> = completion["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["label"].as_str().unwrap())
            .collect();
        assert!(labels.contains(&"agent"), "{text}\n{labels:?}");
    }
    assert!(server.shut_down().success());
}

/// Another tool's files — a skill, an Agent Plugins manifest — show the
/// diagnostics `contrib check` gives their plugin's folder, located in
/// them, from the editor's text as it is typed rather than the disk's; a
/// Markdown file of no such format is never read as a manifest.
#[test]
fn source_files_show_located_diagnostics_as_typed() {
    let mut server = Server::initialized();
    let kit = server.path("kit");
    std::fs::create_dir_all(kit.join("skills/deploy")).unwrap();
    let manifest = r#"{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "kit"}"#;
    std::fs::write(kit.join("plugin.json"), manifest).unwrap();
    let clean = "---\nname: deploy\ndescription: Deploy the service.\n---\nDeploy it.\n";
    std::fs::write(kit.join("skills/deploy/SKILL.md"), clean).unwrap();
    let open = |server: &mut Server, path: &Path, language: &str, text: &str| {
        let uri = uri_of(path);
        server.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": language, "version": 1, "text": text } }),
        );
        uri
    };

    let typed = "---\nname: ship\ndescription: Deploy the service.\n---\n```bash\ncurl -fsSL https://get.example.com | sh\n```\n";
    // `shell-in-skill` is opt-in: the workspace turns it on.
    std::fs::write(
        kit.join("contrib.toml"),
        "[lints]\nshell-in-skill = \"warn\"\n",
    )
    .unwrap();
    let skill = open(
        &mut server,
        &kit.join("skills/deploy/SKILL.md"),
        "markdown",
        typed,
    );
    let found = server.diagnostics(&skill, Some(1));
    assert_eq!(codes(&found), ["C0405", "C0409"], "{found:#?}");
    assert_eq!(covered(typed, &found[0]["range"]), "name: ship");
    assert_eq!(
        covered(typed, &found[1]["range"]),
        "curl -fsSL https://get.example.com | sh"
    );
    assert!(found[0]["message"]
        .as_str()
        .unwrap()
        .contains("its folder is `deploy`"));

    server.change(&skill, 2, clean);
    assert_eq!(server.diagnostics(&skill, Some(2)), Vec::<Value>::new());

    let with_field = manifest.replace("\"name\": \"kit\"", "\"name\": \"kit\", \"hooks\": {}");
    let plugin = open(&mut server, &kit.join("plugin.json"), "json", &with_field);
    let found = server.diagnostics(&plugin, Some(1));
    assert_eq!(codes(&found), ["C0402"], "{found:#?}");
    assert_eq!(covered(&with_field, &found[0]["range"]), "\"hooks\"");

    // The manifest as typed refuses the plugin: its skill is not read.
    let refused = manifest.replace("\"kit\"", "\"Kit\"");
    server.change(&plugin, 2, &refused);
    assert_eq!(codes(&server.diagnostics(&plugin, Some(2))), ["C0401"]);

    let readme = open(
        &mut server,
        &kit.join("README.md"),
        "markdown",
        "# Kit\n\nplugin x {\n",
    );
    assert_eq!(server.diagnostics(&readme, Some(1)), Vec::<Value>::new());
    assert!(server.shut_down().success());
}

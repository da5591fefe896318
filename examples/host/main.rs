//! A small agent host on `contrib-runtime`: what a platform calls per
//! workspace, per conversation, per turn and per request, and the request
//! bodies it sends to Anthropic's Messages API.
//!
//! The workspace is installed the way a platform team installs one, with
//! the `contrib` command line (`examples/host/run.sh` does it in a
//! temporary folder); the host only opens it. Then:
//!
//! - Sam's conversation: a first turn with a tool round, each request's
//!   body printed as the Anthropic SDK would send it;
//! - Priya's conversation with the same agent: its body is byte-identical
//!   to Sam's up to the agent breakpoint, so both read one cache entry;
//! - a restart: Sam's conversation resumed from its session log and the
//!   transcript the host stored, telling the model only what changed.
//!
//!     bash examples/host/run.sh
//!
//! It checks what it prints as it goes and exits non-zero if the runtime
//! ever breaks a rule, so CI runs it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use contrib_runtime::{
    Body, Conversation, Gate, GateOutcome, GateRequest, Person, Reader, RequestInput, Said,
    Session, Timestamp, ToolCall, ToolDefinition, ToolResult, TurnInput, Wire, Workspace,
};

/// The host's side of contributors' tool calls: here, canned answers.
struct HostGate;

impl Gate for HostGate {
    fn call(&mut self, request: &GateRequest) -> GateOutcome {
        let output = match request.tool.as_str() {
            "get_current_time" => request.at.to_string(),
            "read_memory" => "The release is on Thursday.".to_string(),
            "fetch_url" => "Handbook: reviews within a day.".to_string(),
            other => {
                return GateOutcome::Refused {
                    reason: format!("`{other}` is not offered to contributors here"),
                }
            }
        };
        GateOutcome::Ran { output }
    }
}

/// What eager loads read: the operations of the skills the host has.
struct Operations(BTreeMap<(&'static str, &'static str), &'static str>);

impl Reader for Operations {
    fn operation(&mut self, skill: &str, _: &semver::Version, operation: &str) -> Option<String> {
        self.0
            .iter()
            .find(|((s, o), _)| *s == skill && *o == operation)
            .map(|(_, text)| text.to_string())
    }
}

fn operations() -> Operations {
    Operations(BTreeMap::from([(
        ("code-review", "diff"),
        "Show the change as a unified diff against the base branch, three lines of context.",
    )]))
}

fn main() {
    let Some(folder) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: host WORKSPACE (see examples/host/run.sh)");
        std::process::exit(2);
    };
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/runtime");
    let tools: Vec<ToolDefinition> = serde_json::from_str(
        &std::fs::read_to_string(examples.join("tools.json")).expect("the example tools"),
    )
    .expect("tool definitions");
    let sam = Session::load(&examples.join("session.toml")).expect("the example session");

    // Per workspace: what its lock approved, re-checked now.
    let workspace = Workspace::open(&folder).unwrap_or_else(|error| fail(&error.to_string()));
    println!("workspace: {}", workspace.plugins().join(", "));
    check(
        workspace.refused_at_load().is_empty(),
        "everything the lock pins loads",
    );

    let log_folder = tempfile::tempdir().expect("a temporary folder");
    let log_path = log_folder.path().join("sam.log");

    // Per conversation: started once, its kept prompt and opening composed.
    let log = contrib_runtime::create_log_file(&log_path).expect("a new log file");
    let mut conversation = workspace
        .conversation(sam.clone(), HostGate)
        .tools(tools.clone())
        .reader(operations())
        .log(log)
        .start()
        .unwrap_or_else(|error| fail(&error.to_string()));

    // Per turn, then per request.
    let turn = conversation.turn(
        TurnInput::reply_at(at("2026-03-02T09:01:00Z")),
        Some("Can you review the login fix on branch fix-login?"),
    );
    conversation.request(RequestInput::at(turn.at));
    let first = send(&conversation, "Sam, turn 1, request 1");
    check(
        first.record.breakpoints.len() <= 4,
        "at most four breakpoints",
    );
    // The model called a tool; the host ran it and sends its result.
    conversation.model_said(
        "I'll find the change.",
        vec![ToolCall {
            id: "toolu_01".into(),
            name: "search_code".into(),
            input: serde_json::json!({ "query": "set_session_cookie" }),
        }],
    );
    conversation.tool_results(vec![ToolResult {
        id: "toolu_01".into(),
        output: "src/auth/login.rs:42: set_session_cookie(&user)".into(),
        is_error: false,
    }]);
    conversation.request(RequestInput::at(at("2026-03-02T09:01:20Z")));
    let second = send(&conversation, "Sam, turn 1, request 2");
    check(
        answered(&second),
        "every tool call is answered in the next message",
    );
    conversation.model_said("The fix is right; it needs a test.", Vec::new());

    // Another person, the same agent: the same agent prefix, byte for byte.
    let mut priya = sam.clone();
    priya.person = Some(Person {
        id: "priya-n".into(),
        name: "Priya N".into(),
        ..sam.person.clone().expect("Sam is a person")
    });
    let mut other = workspace
        .conversation(priya, HostGate)
        .tools(tools.clone())
        .reader(operations())
        .start()
        .unwrap_or_else(|error| fail(&error.to_string()));
    let turn = other.turn(
        TurnInput::reply_at(at("2026-03-02T11:00:00Z")),
        Some("What does the review checklist say?"),
    );
    other.request(RequestInput::at(turn.at));
    let theirs = other.body(Wire::Anthropic);
    check(
        agent_prefix(&first) == agent_prefix(&theirs),
        "two people's requests to one agent are identical through the agent breakpoint",
    );
    println!("Priya's request shares Sam's agent prefix up to its breakpoint\n");

    // Stored by the host: the session log and what was said.
    let said: Vec<Said> = conversation.transcript().said().to_vec();
    drop(conversation);

    // The host restarts and resumes Sam's conversation.
    let text = std::fs::read(&log_path).expect("the log");
    let append = std::fs::OpenOptions::new()
        .append(true)
        .open(&log_path)
        .expect("the log");
    let mut resumed = workspace
        .conversation(sam, HostGate)
        .tools(tools)
        .reader(operations())
        .log(append)
        .resume(&text, said)
        .unwrap_or_else(|error| fail(&error.to_string()));
    let turn = resumed.turn(
        TurnInput::reply_at(at("2026-03-02T10:00:00Z")),
        Some("I added the test. Anything else?"),
    );
    let request = resumed.request(RequestInput::at(turn.at));
    let body = send(&resumed, "Sam, resumed, turn 2");
    check(turn.number == 2, "turns carry on");
    check(
        request.messages.is_empty(),
        "nothing changed while closed, so no fact is told again",
    );
    check(
        agent_prefix(&body) == agent_prefix(&first),
        "the resumed conversation keeps its cached prefix",
    );
    check(resumed.log_error().is_none(), "the log was written");
}

/// Prints the body the Anthropic SDK would send, and returns it.
fn send(conversation: &Conversation<'_>, what: &str) -> Body {
    let body = conversation.body(Wire::Anthropic);
    println!(
        "== {what}: POST /v1/messages ({} input tokens, {})",
        body.record.tokens.input,
        if body.record.tokens.exact {
            "exact"
        } else {
            "estimated"
        }
    );
    println!(
        "{}\n",
        serde_json::to_string_pretty(&body.json).expect("a body is JSON")
    );
    body
}

/// The body through the agent breakpoint: the tools and the system blocks
/// up to and including the one that carries it.
fn agent_prefix(body: &Body) -> String {
    let system = body.json["system"].as_array().cloned().unwrap_or_default();
    let end = system
        .iter()
        .position(|block| block.get("cache_control").is_some())
        .map_or(system.len(), |index| index + 1);
    format!("{}{:?}", body.json["tools"], &system[..end])
}

/// Whether every `tool_use` is answered by a `tool_result` in the next
/// message.
fn answered(body: &Body) -> bool {
    let messages = body.json["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    messages.windows(2).all(|pair| {
        let ids = |message: &serde_json::Value, kind: &str, key: &str| -> Vec<String> {
            message["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|block| block["type"] == kind)
                .filter_map(|block| block[key].as_str().map(str::to_string))
                .collect()
        };
        let calls = ids(&pair[0], "tool_use", "id");
        let results = ids(&pair[1], "tool_result", "tool_use_id");
        calls.iter().all(|id| results.contains(id))
    })
}

fn at(text: &str) -> Timestamp {
    Timestamp::parse(text).expect("an RFC 3339 time")
}

fn check(holds: bool, what: &str) {
    if !holds {
        fail(&format!("the runtime broke a rule: {what}"));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}

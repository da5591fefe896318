//! The conformance corpus (`tests/conformance`) run against this crate:
//! every case's outputs compared with `expected/<case>.jsonl`, bodies
//! after JSON parsing, session logs byte for byte. The Python and
//! TypeScript packages run the same cases and must produce the same lines.
//!
//! `CONFORMANCE_BLESS=1` writes the expected files instead of comparing
//! (read every changed line before committing it). The corpus's workspace
//! is installed with the command line (`tests/conformance/setup.sh`):
//! `$CONTRIB_BIN`, else the `contrib` binary beside this test's, else it
//! cannot run (and under `CI=true` that fails).

#[path = "../../../tests/it/common/unavailable.rs"]
mod unavailable;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use contrib_runtime::{
    Conversation, Gate, GateOutcome, GateRequest, Reader, RequestInput, Said, Session, ToolCall,
    ToolDefinition, ToolResult, TurnInput, Wire, Workspace,
};
use serde_json::{json, Value};

/// The gate a case describes: canned outputs by tool name, every other
/// tool refused with the corpus's fixed reason.
struct CannedGate(BTreeMap<String, String>);

impl Gate for CannedGate {
    fn call(&mut self, request: &GateRequest) -> GateOutcome {
        match self.0.get(&request.tool) {
            Some(output) => GateOutcome::Ran {
                output: output.clone(),
            },
            None => GateOutcome::Refused {
                reason: format!("`{}` is not offered to contributors here", request.tool),
            },
        }
    }
}

/// The reader a case describes: texts by skill, then operation.
struct CannedReader(BTreeMap<String, BTreeMap<String, String>>);

impl Reader for CannedReader {
    fn operation(&mut self, skill: &str, _: &semver::Version, operation: &str) -> Option<String> {
        self.0.get(skill)?.get(operation).cloned()
    }
}

/// A session log kept in memory, readable while the conversation writes.
#[derive(Clone, Default)]
struct SharedLog(Rc<RefCell<Vec<u8>>>);

impl Write for SharedLog {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Open<'w> {
    conversation: Conversation<'w>,
    log: SharedLog,
}

fn field<T: serde::de::DeserializeOwned>(step: &Value, name: &str) -> Result<T, String> {
    serde_json::from_value(step.get(name).cloned().unwrap_or(Value::Null))
        .map_err(|error| format!("`{name}`: {error}"))
}

fn optional<T: serde::de::DeserializeOwned + Default>(
    step: &Value,
    name: &str,
) -> Result<T, String> {
    match step.get(name) {
        None | Some(Value::Null) => Ok(T::default()),
        Some(_) => field(step, name),
    }
}

/// Runs one case, returning its output lines.
fn run_case(workspace_folder: &Path, case: &Value) -> Result<Vec<Value>, String> {
    let workspace = Workspace::open(workspace_folder).map_err(|error| error.to_string())?;
    let steps = case["steps"].as_array().ok_or("a case has `steps`")?;
    let mut open: BTreeMap<String, Open<'_>> = BTreeMap::new();
    let mut outputs = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let what: String = field(step, "do")?;
        let name: String = field(step, "conversation")?;
        let fail = |error: String| format!("step {index} ({what}): {error}");
        match what.as_str() {
            "start" | "resume" => {
                let session = Session::from_toml(&field::<String>(step, "session")?)
                    .map_err(|error| fail(error.to_string()))?;
                let gate = CannedGate(optional(step, "gate")?);
                let tools: Vec<ToolDefinition> = optional(step, "tools")?;
                let profile: Option<String> = optional(step, "profile")?;
                let log = SharedLog::default();
                let mut starting = workspace
                    .conversation(session, gate)
                    .profile(profile.unwrap_or_else(|| "anthropic".to_string()))
                    .tools(tools)
                    .log(log.clone());
                if step.get("reader").is_some_and(|reader| !reader.is_null()) {
                    starting = starting.reader(CannedReader(field(step, "reader")?));
                }
                let conversation = if what == "start" {
                    starting.start()
                } else {
                    let from: String = field(step, "from")?;
                    let earlier = open
                        .remove(&from)
                        .ok_or_else(|| fail(format!("no conversation `{from}`")))?;
                    let said = earlier.conversation.transcript().said().to_vec();
                    let text = earlier.log.0.borrow().clone();
                    drop(earlier);
                    // The resumed conversation appends to the same log.
                    log.0.borrow_mut().extend_from_slice(&text);
                    starting.resume(&text, said)
                }
                .map_err(|error| fail(error.to_string()))?;
                open.insert(name, Open { conversation, log });
            }
            _ => {
                let current = open
                    .get_mut(&name)
                    .ok_or_else(|| fail(format!("no conversation `{name}`")))?;
                let conversation = &mut current.conversation;
                match what.as_str() {
                    "turn" => {
                        let input: TurnInput = field(step, "input").map_err(fail)?;
                        let prompt: Option<String> = optional(step, "prompt")?;
                        conversation.turn(input, prompt.as_deref());
                    }
                    "request" => {
                        let input: RequestInput = field(step, "input").map_err(fail)?;
                        conversation.request(input);
                    }
                    "model_said" => {
                        let text: String = optional(step, "text")?;
                        let calls: Vec<ToolCall> = optional(step, "calls")?;
                        conversation.model_said(text, calls);
                    }
                    "tool_results" => {
                        let results: Vec<ToolResult> = field(step, "results").map_err(fail)?;
                        conversation.tool_results(results);
                    }
                    "compact" => {
                        let kept: Vec<Said> = field(step, "kept").map_err(fail)?;
                        conversation.compact(kept);
                    }
                    "body" => {
                        let wire: Wire = field(step, "wire").map_err(fail)?;
                        let body = conversation.body(wire);
                        outputs.push(json!({
                            "step": index, "do": "body", "conversation": name, "wire": wire,
                            "body": body.json, "record": body.record,
                        }));
                    }
                    "log" => {
                        let text = String::from_utf8(current.log.0.borrow().clone())
                            .map_err(|error| fail(error.to_string()))?;
                        outputs.push(json!({
                            "step": index, "do": "log", "conversation": name, "log": text,
                        }));
                    }
                    "said" => {
                        outputs.push(json!({
                            "step": index, "do": "said", "conversation": name,
                            "said": conversation.transcript().said(),
                        }));
                    }
                    other => return Err(fail(format!("there is no step `{other}`"))),
                }
            }
        }
    }
    Ok(outputs)
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance")
}

/// The CLI to install the workspace with: `$CONTRIB_BIN`, else the one
/// cargo built beside this test.
fn contrib_bin() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os("CONTRIB_BIN") {
        return Some(PathBuf::from(bin));
    }
    let exe = std::env::current_exe().ok()?;
    let beside = exe
        .parent()?
        .parent()?
        .join(format!("contrib{}", std::env::consts::EXE_SUFFIX));
    beside.is_file().then_some(beside)
}

#[test]
fn conformance_corpus() {
    let Some(contrib) = contrib_bin() else {
        unavailable::cannot_run("no `contrib` binary to install the corpus's workspace (set CONTRIB_BIN or `cargo build --bin contrib`)");
        return;
    };
    let work = tempfile::tempdir().expect("a temporary folder");
    let status = std::process::Command::new("bash")
        .arg(corpus().join("setup.sh"))
        .arg(work.path())
        .env("CONTRIB_BIN", &contrib)
        .status()
        .expect("bash runs");
    assert!(status.success(), "tests/conformance/setup.sh failed");
    let folder = work.path().join("workspace");

    let bless = std::env::var_os("CONFORMANCE_BLESS").is_some();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus().join("cases"))
        .expect("the cases")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 5, "the corpus has its cases");
    let mut failures = Vec::new();
    for path in cases {
        let name = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .expect("a name")
            .to_string();
        let case: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("a case")).expect("JSON");
        let outputs = match run_case(&folder, &case) {
            Ok(outputs) => outputs,
            Err(error) => {
                failures.push(format!("{name}: {error}"));
                continue;
            }
        };
        let expected_path = corpus().join("expected").join(format!("{name}.jsonl"));
        if bless {
            let mut text = String::new();
            for line in &outputs {
                text.push_str(&serde_json::to_string(line).expect("JSON"));
                text.push('\n');
            }
            std::fs::write(&expected_path, text).expect("the expected file is written");
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&expected_path) else {
            failures.push(format!("{name}: no {}", expected_path.display()));
            continue;
        };
        let expected: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).expect("an expected line is JSON"))
            .collect();
        if expected.len() != outputs.len() {
            failures.push(format!(
                "{name}: {} outputs, {} expected",
                outputs.len(),
                expected.len()
            ));
        }
        for (got, want) in outputs.iter().zip(&expected) {
            if got != want {
                failures.push(format!(
                    "{name}: step {} ({}) differs:\n  got:  {got}\n  want: {want}",
                    got["step"], got["do"]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! The loop: one message at a time, in the order they came, with
//! cancellation, coalescing and `catch_unwind` (see the module above for
//! why). What answers each method is the route table's business
//! ([`super::routes`]); the loop keeps only what depends on the protocol's
//! phases: `initialize`, `initialized`, `shutdown` and `exit`.

use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};

use crossbeam_channel::Receiver;
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    Cancel, Exit, Initialized, LogMessage, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{Initialize, RegisterCapability, Request as _, Shutdown};
use lsp_types::{LogMessageParams, PublishDiagnosticsParams, Uri};
use serde_json::Value;

use super::handlers::diagnostics;
use super::initialize;
use super::routes::{self, error, Answer, Router};
use super::transport::{Incoming, Writer};
use super::world::World;

/// Serves the messages of `incoming`, answering through `writer`, until
/// `exit` or the end of the stream; returns the exit status.
pub fn serve(incoming: Receiver<Incoming>, writer: Writer) -> u8 {
    let mut server = Server {
        world: World::default(),
        routes: routes::table(),
        writer,
        queue: VecDeque::new(),
        phase: Phase::Uninitialized,
        next_request: 0,
    };
    server.run(&incoming)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Uninitialized,
    Running,
    ShuttingDown,
}

/// What handling a message asks of the loop.
enum Flow {
    Continue,
    Exit(u8),
    /// The client can no longer be written to.
    Gone,
}

struct Server {
    world: World,
    routes: Router,
    writer: Writer,
    queue: VecDeque<Incoming>,
    phase: Phase,
    next_request: i32,
}

impl Server {
    fn run(&mut self, incoming: &Receiver<Incoming>) -> u8 {
        loop {
            self.queue.extend(incoming.try_iter());
            let next = match self.queue.pop_front() {
                Some(next) => next,
                None => {
                    if let Flow::Gone = self.publish() {
                        return 1;
                    }
                    match incoming.recv() {
                        Ok(next) => next,
                        // The client closed the stream without `exit`.
                        Err(_) => return self.exit_status(),
                    }
                }
            };
            let flow = match next {
                Incoming::Message(Message::Request(request)) => self.request(request),
                Incoming::Message(Message::Notification(notification)) => {
                    self.notification(notification)
                }
                // Answers to our `client/registerCapability`; nothing to do.
                Incoming::Message(Message::Response(_)) => Flow::Continue,
                Incoming::Invalid { id, code, message } => self.invalid(id, code, &message),
            };
            match flow {
                Flow::Continue => {}
                Flow::Exit(status) => return status,
                Flow::Gone => return 1,
            }
        }
    }

    fn exit_status(&self) -> u8 {
        if self.phase == Phase::ShuttingDown {
            0
        } else {
            1
        }
    }

    fn send(&mut self, message: impl Into<Message>) -> Flow {
        match self.writer.send(message) {
            Ok(()) => Flow::Continue,
            Err(_) => Flow::Gone,
        }
    }

    fn invalid(&mut self, id: Option<RequestId>, code: ErrorCode, message: &str) -> Flow {
        match id {
            Some(id) => self.send(Response::new_err(id, code as i32, message.to_string())),
            None => match self.writer.send_unidentified_error(code, message) {
                Ok(()) => Flow::Continue,
                Err(_) => Flow::Gone,
            },
        }
    }

    fn request(&mut self, request: Request) -> Flow {
        let id = request.id.clone();
        if self.cancelled(&id) {
            return self.send(Response::new_err(
                id,
                ErrorCode::RequestCanceled as i32,
                "cancelled by the client".to_string(),
            ));
        }
        let method = request.method.clone();
        let answer = match self.phase {
            Phase::Uninitialized if method == Initialize::METHOD => {
                guarded(&method, || self.initialize(request.params))
            }
            Phase::Uninitialized => Err(error(
                ErrorCode::ServerNotInitialized,
                "the server is not initialized yet".to_string(),
            )),
            Phase::ShuttingDown => Err(error(
                ErrorCode::InvalidRequest,
                "the server is shutting down".to_string(),
            )),
            Phase::Running => guarded(&method, || self.dispatch(&method, request.params)),
        };
        if let Err(error) = &answer {
            if error.code == ErrorCode::InternalError as i32 {
                self.world.state.log_error(error.message.clone());
            }
        }
        self.send(Response {
            id,
            response_result: answer,
        })
    }

    /// Whether a `$/cancelRequest` for `id` is waiting in the queue.
    fn cancelled(&self, id: &RequestId) -> bool {
        self.queue.iter().any(|queued| match queued {
            Incoming::Message(Message::Notification(notification))
                if notification.method == Cancel::METHOD =>
            {
                serde_json::from_value::<lsp_types::CancelParams>(notification.params.clone())
                    .is_ok_and(|params| {
                        let cancelled = match params.id {
                            lsp_types::NumberOrString::Number(number) => RequestId::from(number),
                            lsp_types::NumberOrString::String(text) => RequestId::from(text),
                        };
                        &cancelled == id
                    })
            }
            _ => false,
        })
    }

    /// A request while running: the phase's own, or the route table's.
    fn dispatch(&mut self, method: &str, params: Value) -> Answer {
        match method {
            Initialize::METHOD => Err(error(
                ErrorCode::InvalidRequest,
                "the server is already initialized".to_string(),
            )),
            Shutdown::METHOD => {
                self.phase = Phase::ShuttingDown;
                Ok(Value::Null)
            }
            _ => self.routes.request(&mut self.world, method, params),
        }
    }

    fn initialize(&mut self, params: Value) -> Answer {
        let params = serde_json::from_value(params).map_err(|problem| {
            error(
                ErrorCode::InvalidParams,
                format!("invalid params for `{}`: {problem}", Initialize::METHOD),
            )
        })?;
        let result = initialize::initialize(&mut self.world, params);
        self.phase = Phase::Running;
        routes::to_value(result)
    }

    fn notification(&mut self, notification: Notification) -> Flow {
        let method = notification.method;
        if method == Exit::METHOD {
            return Flow::Exit(self.exit_status());
        }
        if self.phase != Phase::Running {
            // Before `initialize` notifications are dropped, as the
            // protocol says; after `shutdown` nothing changes any more.
            return Flow::Continue;
        }
        if method == Initialized::METHOD {
            return self.watch_config_files();
        }
        let params = notification.params;
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            self.routes.notify(&mut self.world, &method, params)
        }));
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(error)) => self.world.state.log_error(error.to_string()),
            Err(payload) => self.world.state.log_error(format!(
                "the server failed handling `{method}`: {}",
                panic_message(&*payload)
            )),
        }
        Flow::Continue
    }

    /// Sends the file-watching registration, when the client takes one.
    fn watch_config_files(&mut self) -> Flow {
        let Some(params) = initialize::watch_config_files(self.world.client) else {
            return Flow::Continue;
        };
        self.next_request += 1;
        let id = RequestId::from(format!("contrib-{}", self.next_request));
        self.send(Request::new(
            id,
            RegisterCapability::METHOD.to_string(),
            params,
        ))
    }

    /// Publishes every stale diagnostic list, and the log.
    fn publish(&mut self) -> Flow {
        let mut out: Vec<PublishDiagnosticsParams> = Vec::new();
        for uri in self.world.state.take_dirty() {
            let published =
                panic::catch_unwind(AssertUnwindSafe(|| self.manifest_diagnostics(&uri)));
            match published {
                Ok(params) => out.push(params),
                Err(payload) => self.world.state.log_error(format!(
                    "the server failed checking `{}`: {}",
                    uri.as_str(),
                    panic_message(&*payload)
                )),
            }
        }
        for (path, source, found) in self.world.state.take_dirty_configs() {
            let Some((uri, version)) = self.world.state.config_uri(&path) else {
                continue;
            };
            let source = source.map_or_else(
                || crate::source::SourceFile::new("", ""),
                |source| (*source).clone(),
            );
            out.push(diagnostics::publish(
                &uri,
                version,
                &source,
                &found,
                &self.world.docs,
            ));
        }
        for params in out {
            let notification = Notification::new(PublishDiagnostics::METHOD.to_string(), params);
            if let Flow::Gone = self.send(notification) {
                return Flow::Gone;
            }
        }
        for (typ, message) in self.world.state.take_log() {
            let params = LogMessageParams { typ, message };
            if let Flow::Gone = self.send(Notification::new(LogMessage::METHOD.to_string(), params))
            {
                return Flow::Gone;
            }
        }
        Flow::Continue
    }

    fn manifest_diagnostics(&mut self, uri: &Uri) -> PublishDiagnosticsParams {
        let World { state, docs, .. } = &mut self.world;
        if let Some((document, found)) = state.source_diagnostics(uri) {
            return diagnostics::publish(
                uri,
                Some(document.version),
                &document.source,
                &found,
                docs,
            );
        }
        match (state.snapshot(uri), state.document(uri)) {
            (Some(snapshot), Some(document)) => diagnostics::publish(
                uri,
                Some(document.version),
                snapshot.source,
                &snapshot.analysis.diagnostics,
                docs,
            ),
            // Closed: clear what the client shows.
            _ => PublishDiagnosticsParams {
                uri: uri.clone(),
                diagnostics: Vec::new(),
                version: None,
            },
        }
    }
}

/// Runs a request handler, turning a panic into an internal error.
fn guarded(method: &str, handler: impl FnOnce() -> Answer) -> Answer {
    match panic::catch_unwind(AssertUnwindSafe(handler)) {
        Ok(answer) => answer,
        Err(payload) => Err(error(
            ErrorCode::InternalError,
            format!(
                "the server failed answering `{method}`: {}",
                panic_message(&*payload)
            ),
        )),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|message| message.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    /// An output the test can read after the server is done with it.
    #[derive(Clone, Default)]
    struct Output(Arc<Mutex<Vec<u8>>>);

    impl Write for Output {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Serves `messages`, all queued before the server starts, and returns
    /// the exit status and every message written.
    fn serve_all(messages: Vec<Value>) -> (u8, Vec<Value>) {
        let (sender, receiver) = crossbeam_channel::unbounded();
        for message in messages {
            let message = serde_json::from_value(message).unwrap();
            sender.send(Incoming::Message(message)).unwrap();
        }
        drop(sender);
        let output = Output::default();
        let status = serve(receiver, Writer::new(output.clone()));
        let bytes = output.0.lock().unwrap().clone();
        let text = String::from_utf8(bytes).unwrap();
        let written = text
            .split("Content-Length: ")
            .filter_map(|frame| frame.split_once("\r\n\r\n"))
            .map(|(_, body)| serde_json::from_str(body).unwrap())
            .collect();
        (status, written)
    }

    fn start() -> Vec<Value> {
        vec![
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
            serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        ]
    }

    #[test]
    fn a_request_cancelled_before_it_runs_is_answered_cancelled() {
        let mut messages = start();
        messages.extend([
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {
                "textDocument": {"uri": "untitled:x"}, "position": {"line": 0, "character": 0}}}),
            serde_json::json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 2}}),
            serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}),
            serde_json::json!({"jsonrpc": "2.0", "method": "exit"}),
        ]);
        let (status, written) = serve_all(messages);
        assert_eq!(status, 0);
        let cancelled = written.iter().find(|message| message["id"] == 2).unwrap();
        assert_eq!(
            cancelled["error"]["code"],
            ErrorCode::RequestCanceled as i32
        );
    }

    #[test]
    fn a_burst_of_edits_is_analysed_and_published_once() {
        let uri = "untitled:burst";
        let mut messages = start();
        for version in 1..=5 {
            let method = if version == 1 {
                "textDocument/didOpen"
            } else {
                "textDocument/didChange"
            };
            let text = format!(
                "plugin a/b 1.0.0 {{\n    owner agent-author\n}}\n{}",
                "#".repeat(version)
            );
            messages.push(serde_json::json!({"jsonrpc": "2.0", "method": method, "params": {
                "textDocument": {"uri": uri, "languageId": "contrib", "version": version, "text": text},
                "contentChanges": [{"text": text}]}}));
        }
        let (status, written) = serve_all(messages);
        assert_eq!(status, 1, "the stream ended without shutdown");
        let published: Vec<&Value> = written
            .iter()
            .filter(|message| message["method"] == "textDocument/publishDiagnostics")
            .collect();
        assert_eq!(published.len(), 1, "{published:#?}");
        assert_eq!(published[0]["params"]["version"], 5);
    }

    #[test]
    fn an_edit_older_than_the_text_held_is_not_applied() {
        let uri = "untitled:stale";
        let text =
            |marker: &str| format!("plugin a/b 1.0.0 {{\n    owner agent-author\n}}\n# {marker}\n");
        let mut messages = start();
        messages.push(serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "contrib", "version": 5, "text": text("five")}}}));
        for version in [3, 5] {
            messages.push(
                serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text("stale")}]}}),
            );
        }
        let (status, written) = serve_all(messages);
        assert_eq!(status, 1, "the stream ended without shutdown");
        let logged: Vec<&Value> = written
            .iter()
            .filter(|message| message["method"] == "window/logMessage")
            .collect();
        assert_eq!(logged.len(), 2, "{written:#?}");
        assert!(logged[0]["params"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("version 3, not newer than version 5")));
        let published: Vec<&Value> = written
            .iter()
            .filter(|message| message["method"] == "textDocument/publishDiagnostics")
            .collect();
        assert_eq!(published.len(), 1, "{published:#?}");
        assert_eq!(published[0]["params"]["version"], 5);
    }

    #[test]
    fn a_panicking_handler_answers_an_internal_error() {
        let answer = guarded("textDocument/hover", || panic!("boom"));
        let error = answer.unwrap_err();
        assert_eq!(error.code, ErrorCode::InternalError as i32);
        assert!(error.message.contains("boom"), "{}", error.message);
        assert!(guarded("x", || Ok(Value::Null)).is_ok());
    }
}

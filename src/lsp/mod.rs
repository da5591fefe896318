//! `contrib lsp`: a language server over stdio.
//!
//! # Why `lsp-server` and `lsp-types`
//!
//! The server is built on `lsp-server` (the message types and error codes
//! of rust-analyzer's server scaffold) and `lsp-types` (the protocol's
//! types), not on `tower-lsp`. Every answer here is a synchronous function
//! of one document's text that takes milliseconds: there is no I/O to
//! overlap, so an async runtime (tokio, which `tower-lsp` needs) would add
//! a large dependency and a second execution model for nothing. A plain
//! loop also makes the protocol's ordering obvious: messages are handled
//! one at a time, in the order they came, and a handler sees the state the
//! messages before it left.
//!
//! `lsp-server`'s own stdio transport is replaced by [`transport`], which
//! survives malformed frames (see there).
//!
//! # The loop
//!
//! A reader thread parses frames into a channel. The loop moves everything
//! waiting into a queue before it handles the next message, which gives it:
//!
//! - **cancellation**: a request whose `$/cancelRequest` is already queued
//!   is answered `RequestCancelled` without running;
//! - **coalescing**: diagnostics are published only when the queue is
//!   empty, so a burst of edits is analysed once, not once per keystroke
//!   (requests in between analyse the version they ask about, and the
//!   publication reuses that analysis).
//!
//! # Robustness
//!
//! Each request and notification runs under `catch_unwind`: a panic in one
//! handler answers that request with an internal error (and logs it) and
//! the server keeps serving. Unknown methods are `MethodNotFound`, params
//! that do not deserialize are `InvalidParams`, frames that are not
//! JSON-RPC are answered as JSON-RPC says. Before `initialize`, requests
//! are `ServerNotInitialized`; after `shutdown`, `InvalidRequest`; `exit`
//! ends the process with status 0 after `shutdown` and 1 without, and so
//! does the client closing the stream.
//!
//! # Features
//!
//! Diagnostics (the checker's, and `contrib.toml`'s), hover, completion,
//! quick fixes and fix-all, the document outline, go to definition into
//! `contrib.toml`, formatting, semantic tokens (full and delta), inlay
//! hints with each contributor's measure and a code lens with the plugin's
//! totals per placement: one file each under [`handlers`]. Each version of
//! a document is parsed once and analysed once per configuration; every
//! request shares that (see [`version`]). Positions are UTF-16, see [`convert`].
//! Initialization options: `ruleDocsUrl`, see [`rule_docs`]. The server
//! writes no files.

pub mod context;
pub mod convert;
pub mod handlers;
pub mod rule_docs;
pub mod state;
pub mod transport;
pub mod version;

use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;

use crossbeam_channel::Receiver;
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response, ResponseError};
use lsp_types::notification::{
    Cancel, DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument,
    DidOpenTextDocument, DidSaveTextDocument, Exit, Initialized, LogMessage, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, CodeLensRequest, Completion, DocumentSymbolRequest, Formatting,
    GotoDefinition, HoverRequest, Initialize, InlayHintRequest, RegisterCapability, Request as _,
    SemanticTokensFullDeltaRequest, SemanticTokensFullRequest, Shutdown,
};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    CompletionResponse, DidChangeWatchedFilesRegistrationOptions, DocumentSymbolResponse,
    FileSystemWatcher, GlobPattern, HoverProviderCapability, InitializeParams, InitializeResult,
    LogMessageParams, OneOf, PositionEncodingKind, PublishDiagnosticsParams, Registration,
    RegistrationParams, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Uri,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use self::handlers::{
    code_action, code_lens, completion, definition, diagnostics, formatting, hover, inlay_hint,
    preview, semantic_tokens, symbols,
};
use self::rule_docs::RuleDocs;
use self::state::State;
use self::transport::{Incoming, Writer};

/// Serves on stdin and stdout until `exit`, returning the exit status the
/// protocol asks for.
pub fn run() -> u8 {
    let (incoming, _reader) = transport::spawn_reader(std::io::stdin());
    serve(incoming, Writer::new(std::io::stdout()))
}

/// Serves the messages of `incoming`, answering through `writer`, until
/// `exit` or the end of the stream; returns the exit status.
pub fn serve(incoming: Receiver<Incoming>, writer: Writer) -> u8 {
    let mut server = Server {
        state: State::default(),
        writer,
        queue: VecDeque::new(),
        phase: Phase::Uninitialized,
        docs: RuleDocs::default(),
        client: ClientFlags::default(),
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

/// What the client said it can do, as far as the server cares.
#[derive(Debug, Default, Clone, Copy)]
struct ClientFlags {
    snippets: bool,
    /// Whether it takes a `client/registerCapability` for file watching.
    watches_files: bool,
}

/// What handling a message asks of the loop.
enum Flow {
    Continue,
    Exit(u8),
    /// The client can no longer be written to.
    Gone,
}

struct Server {
    state: State,
    writer: Writer,
    queue: VecDeque<Incoming>,
    phase: Phase,
    docs: RuleDocs,
    client: ClientFlags,
    next_request: i32,
}

type Answer = Result<Value, ResponseError>;

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
        let answer = match (self.phase, method.as_str()) {
            (Phase::Uninitialized, Initialize::METHOD) => {
                guarded(&method, || self.initialize(request))
            }
            (Phase::Uninitialized, _) => Err(error(
                ErrorCode::ServerNotInitialized,
                "the server is not initialized yet".to_string(),
            )),
            (Phase::ShuttingDown, _) => Err(error(
                ErrorCode::InvalidRequest,
                "the server is shutting down".to_string(),
            )),
            (Phase::Running, _) => guarded(&method, || self.dispatch(request)),
        };
        if let Err(error) = &answer {
            if error.code == ErrorCode::InternalError as i32 {
                self.state.log_error(error.message.clone());
            }
        }
        let response = match answer {
            Ok(value) => Response {
                id,
                response_result: Ok(value),
            },
            Err(error) => Response {
                id,
                response_result: Err(error),
            },
        };
        self.send(response)
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

    fn dispatch(&mut self, request: Request) -> Answer {
        let method = request.method.as_str();
        match method {
            Initialize::METHOD => Err(error(
                ErrorCode::InvalidRequest,
                "the server is already initialized".to_string(),
            )),
            Shutdown::METHOD => {
                self.phase = Phase::ShuttingDown;
                Ok(Value::Null)
            }
            HoverRequest::METHOD => {
                let params: lsp_types::HoverParams = params(request)?;
                let at = params.text_document_position_params;
                let answer = self
                    .state
                    .snapshot(&at.text_document.uri)
                    .and_then(|snapshot| hover::hover(&snapshot, at.position));
                to_value(answer)
            }
            Completion::METHOD => {
                let params: lsp_types::CompletionParams = params(request)?;
                let at = params.text_document_position;
                let snippets = self.client.snippets;
                let answer = self.state.snapshot(&at.text_document.uri).map(|snapshot| {
                    CompletionResponse::Array(completion::completion(
                        &snapshot,
                        at.position,
                        snippets,
                    ))
                });
                to_value(answer)
            }
            CodeActionRequest::METHOD => {
                let params: lsp_types::CodeActionParams = params(request)?;
                let answer = self
                    .state
                    .snapshot(&params.text_document.uri)
                    .map(|snapshot| code_action::code_actions(&snapshot, &params, &self.docs));
                to_value(answer)
            }
            DocumentSymbolRequest::METHOD => {
                let params: lsp_types::DocumentSymbolParams = params(request)?;
                let answer = self
                    .state
                    .manifest(&params.text_document.uri)
                    .map(|document| {
                        DocumentSymbolResponse::Nested(symbols::symbols(
                            &document.source,
                            document.syntax(),
                        ))
                    });
                to_value(answer)
            }
            GotoDefinition::METHOD => {
                let params: lsp_types::GotoDefinitionParams = params(request)?;
                let at = params.text_document_position_params;
                let answer = self
                    .state
                    .snapshot(&at.text_document.uri)
                    .and_then(|snapshot| definition::definition(&snapshot, at.position));
                to_value(answer)
            }
            Formatting::METHOD => {
                let params: lsp_types::DocumentFormattingParams = params(request)?;
                let answer = self
                    .state
                    .manifest(&params.text_document.uri)
                    .map(|document| formatting::formatting(&document.source, document.syntax()));
                to_value(answer)
            }
            SemanticTokensFullRequest::METHOD => {
                let params: lsp_types::SemanticTokensParams = params(request)?;
                let uri = params.text_document.uri;
                let data = self
                    .state
                    .manifest(&uri)
                    .map(|document| semantic_tokens::full(&document.source, document.syntax()));
                let answer = data.map(|data| {
                    let id = self.state.remember_tokens(&uri, data.clone());
                    semantic_tokens::full_answer(data, id)
                });
                to_value(answer)
            }
            SemanticTokensFullDeltaRequest::METHOD => {
                let params: lsp_types::SemanticTokensDeltaParams = params(request)?;
                let uri = params.text_document.uri;
                let Some(document) = self.state.manifest(&uri) else {
                    return to_value(Value::Null);
                };
                let data = semantic_tokens::full(&document.source, document.syntax());
                let previous = self
                    .state
                    .sent_tokens(&uri, &params.previous_result_id)
                    .map(<[lsp_types::SemanticToken]>::to_vec);
                let id = self.state.remember_tokens(&uri, data.clone());
                match previous {
                    Some(previous) => to_value(semantic_tokens::delta(&previous, &data, id)),
                    // Not the last result sent: the whole answer.
                    None => to_value(semantic_tokens::full_answer(data, id)),
                }
            }
            InlayHintRequest::METHOD => {
                let params: lsp_types::InlayHintParams = params(request)?;
                let answer = self
                    .state
                    .snapshot(&params.text_document.uri)
                    .map(|snapshot| inlay_hint::inlay_hints(&snapshot, params.range));
                to_value(answer)
            }
            CodeLensRequest::METHOD => {
                let params: lsp_types::CodeLensParams = params(request)?;
                let answer = self
                    .state
                    .snapshot(&params.text_document.uri)
                    .map(|snapshot| code_lens::code_lenses(&snapshot));
                to_value(answer)
            }
            preview::METHOD => {
                let params: preview::PreviewParams = params(request)?;
                let answer = self
                    .state
                    .snapshot(&params.text_document.uri)
                    .map(|snapshot| preview::preview(&snapshot, &params));
                to_value(answer)
            }
            _ => Err(error(
                ErrorCode::MethodNotFound,
                format!("the server does not handle `{method}`"),
            )),
        }
    }

    fn initialize(&mut self, request: Request) -> Answer {
        let params: InitializeParams = params(request)?;
        let options = params.initialization_options.as_ref();
        let template = options
            .and_then(|options| options.get("ruleDocsUrl"))
            .and_then(Value::as_str)
            .map(str::to_string);
        self.docs = RuleDocs::new(template);
        self.state.set_roots(roots(&params));
        let capabilities = &params.capabilities;
        self.client = ClientFlags {
            snippets: capabilities
                .text_document
                .as_ref()
                .and_then(|text| text.completion.as_ref())
                .and_then(|completion| completion.completion_item.as_ref())
                .and_then(|item| item.snippet_support)
                .unwrap_or(false),
            watches_files: capabilities
                .workspace
                .as_ref()
                .and_then(|workspace| workspace.did_change_watched_files.as_ref())
                .and_then(|watched| watched.dynamic_registration)
                .unwrap_or(false),
        };
        self.phase = Phase::Running;
        to_value(InitializeResult {
            capabilities: capabilities_of_server(),
            server_info: Some(ServerInfo {
                name: "contrib".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
        })
    }

    fn notification(&mut self, notification: Notification) -> Flow {
        let method = notification.method.clone();
        if method == Exit::METHOD {
            return Flow::Exit(self.exit_status());
        }
        if self.phase != Phase::Running {
            // Before `initialize` notifications are dropped, as the
            // protocol says; after `shutdown` nothing changes any more.
            return Flow::Continue;
        }
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| self.notify(notification)));
        match outcome {
            Ok(Ok(flow)) => flow,
            Ok(Err(message)) => {
                self.state.log_error(message);
                Flow::Continue
            }
            Err(payload) => {
                self.state.log_error(format!(
                    "the server failed handling `{method}`: {}",
                    panic_message(&*payload)
                ));
                Flow::Continue
            }
        }
    }

    fn notify(&mut self, notification: Notification) -> Result<Flow, String> {
        match notification.method.as_str() {
            Initialized::METHOD => return Ok(self.watch_config_files()),
            DidOpenTextDocument::METHOD => {
                let params: lsp_types::DidOpenTextDocumentParams =
                    notification_params(notification)?;
                let document = params.text_document;
                self.state.refresh_from_disk();
                self.state
                    .set_text(document.uri, document.version, document.text);
            }
            DidChangeTextDocument::METHOD => {
                let params: lsp_types::DidChangeTextDocumentParams =
                    notification_params(notification)?;
                let uri = params.text_document.uri;
                let Some(document) = self.state.document(&uri) else {
                    return Err(format!("`{}` changed but was never opened", uri.as_str()));
                };
                // Versions only increase: an edit not newer than the text
                // held was made to another text, and applying it would
                // corrupt this one.
                let version = params.text_document.version;
                if version <= document.version {
                    return Err(format!(
                        "`{}` changed to version {version}, not newer than version {} held: the change is ignored",
                        uri.as_str(),
                        document.version
                    ));
                }
                let mut text = document.source.text.to_string();
                for change in params.content_changes {
                    apply_change(&mut text, change);
                }
                self.state.set_text(uri, params.text_document.version, text);
            }
            DidCloseTextDocument::METHOD => {
                let params: lsp_types::DidCloseTextDocumentParams =
                    notification_params(notification)?;
                self.state.close(&params.text_document.uri);
            }
            DidSaveTextDocument::METHOD => self.state.refresh_from_disk(),
            DidChangeWatchedFiles::METHOD => {
                let params: lsp_types::DidChangeWatchedFilesParams =
                    notification_params(notification)?;
                for change in params.changes {
                    if let Some(path) =
                        convert::path_of(&change.uri).filter(|path| state::is_config_file(path))
                    {
                        self.state.config_file_changed(&path);
                    }
                }
            }
            // `$/cancelRequest` for a request not queued any more (it was
            // answered), `$/setTrace` and the like: nothing to do.
            _ => {}
        }
        Ok(Flow::Continue)
    }

    /// Asks the client to report changes to `contrib.toml` files, when it
    /// takes dynamic registration (VS Code's client reports them anyway).
    fn watch_config_files(&mut self) -> Flow {
        if !self.client.watches_files {
            return Flow::Continue;
        }
        let options = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![FileSystemWatcher {
                glob_pattern: GlobPattern::String(format!("**/{}", crate::config::FILE_NAME)),
                kind: None,
            }],
        };
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: "contrib-config-watcher".to_string(),
                method: DidChangeWatchedFiles::METHOD.to_string(),
                register_options: serde_json::to_value(options).ok(),
            }],
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
        for uri in self.state.take_dirty() {
            let published =
                panic::catch_unwind(AssertUnwindSafe(|| self.manifest_diagnostics(&uri)));
            match published {
                Ok(params) => out.push(params),
                Err(payload) => self.state.log_error(format!(
                    "the server failed checking `{}`: {}",
                    uri.as_str(),
                    panic_message(&*payload)
                )),
            }
        }
        for (path, source, found) in self.state.take_dirty_configs() {
            let Some((uri, version)) = self.state.config_uri(&path) else {
                continue;
            };
            let source = source.map_or_else(
                || crate::source::SourceFile::new("", ""),
                |source| (*source).clone(),
            );
            out.push(diagnostics::publish(
                &uri, version, &source, &found, &self.docs,
            ));
        }
        for params in out {
            let notification = Notification::new(PublishDiagnostics::METHOD.to_string(), params);
            if let Flow::Gone = self.send(notification) {
                return Flow::Gone;
            }
        }
        for (typ, message) in self.state.take_log() {
            let params = LogMessageParams { typ, message };
            if let Flow::Gone = self.send(Notification::new(LogMessage::METHOD.to_string(), params))
            {
                return Flow::Gone;
            }
        }
        Flow::Continue
    }

    fn manifest_diagnostics(&mut self, uri: &Uri) -> PublishDiagnosticsParams {
        if let Some((document, found)) = self.state.source_diagnostics(uri) {
            return diagnostics::publish(
                uri,
                Some(document.version),
                &document.source,
                &found,
                &self.docs,
            );
        }
        match (self.state.snapshot(uri), self.state.document(uri)) {
            (Some(snapshot), Some(document)) => diagnostics::publish(
                uri,
                Some(document.version),
                snapshot.source,
                &snapshot.analysis.diagnostics,
                &self.docs,
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

/// What the server can do.
pub fn capabilities_of_server() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            // `{` and `.` for template variables, `(` and `,` for rule
            // names in suppressions and for lists.
            trigger_characters: Some(["{", ".", "(", ","].map(String::from).to_vec()),
            ..CompletionOptions::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, code_action::fix_all_kind()]),
            ..CodeActionOptions::default()
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
        document_formatting_provider: formatting::FORMATTER.is_some().then_some(OneOf::Left(true)),
        semantic_tokens_provider: Some(
            lsp_types::SemanticTokensServerCapabilities::SemanticTokensOptions(
                lsp_types::SemanticTokensOptions {
                    legend: semantic_tokens::legend(),
                    range: None,
                    full: Some(lsp_types::SemanticTokensFullOptions::Delta { delta: Some(true) }),
                    ..lsp_types::SemanticTokensOptions::default()
                },
            ),
        ),
        inlay_hint_provider: Some(OneOf::Left(true)),
        code_lens_provider: Some(lsp_types::CodeLensOptions {
            resolve_provider: Some(false),
        }),
        ..ServerCapabilities::default()
    }
}

/// The workspace folders, or the deprecated root, as local paths.
fn roots(params: &InitializeParams) -> Vec<PathBuf> {
    let folders = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|folder| convert::path_of(&folder.uri));
    #[allow(deprecated)] // older clients send only `rootUri`
    let root = params.root_uri.as_ref().and_then(convert::path_of);
    folders.chain(root).collect()
}

/// Applies one change of `textDocument/didChange`: the whole text, or a
/// range (for clients that send ranges although the server asked for full
/// documents).
fn apply_change(text: &mut String, change: lsp_types::TextDocumentContentChangeEvent) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let source = crate::source::SourceFile::new("", text.as_str());
            let span = convert::span(&source, range);
            text.replace_range(span.range(), &change.text);
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

fn error(code: ErrorCode, message: String) -> ResponseError {
    ResponseError {
        code: code as i32,
        message,
        data: None,
    }
}

fn params<P: DeserializeOwned>(request: Request) -> Result<P, ResponseError> {
    serde_json::from_value(request.params).map_err(|problem| {
        error(
            ErrorCode::InvalidParams,
            format!("invalid params for `{}`: {problem}", request.method),
        )
    })
}

fn notification_params<P: DeserializeOwned>(notification: Notification) -> Result<P, String> {
    serde_json::from_value(notification.params)
        .map_err(|problem| format!("invalid params for `{}`: {problem}", notification.method))
}

fn to_value(value: impl serde::Serialize) -> Answer {
    serde_json::to_value(value)
        .map_err(|problem| error(ErrorCode::InternalError, problem.to_string()))
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

    #[test]
    fn ranged_changes_apply_too() {
        let mut text = "placement agnet\n".to_string();
        apply_change(
            &mut text,
            lsp_types::TextDocumentContentChangeEvent {
                range: Some(lsp_types::Range::new(
                    lsp_types::Position::new(0, 10),
                    lsp_types::Position::new(0, 15),
                )),
                range_length: None,
                text: "agent".to_string(),
            },
        );
        assert_eq!(text, "placement agent\n");
    }
}

//! The route table: which function answers which method. A new request is
//! a handler file under [`super::handlers`] and one line here (and its
//! capability in [`super::capabilities`]), as in taplo's server.
//!
//! The router does what every route shares: the params deserialized
//! (`InvalidParams` when they do not), the answer serialized. The loop
//! around it ([`super::server`]) does the rest: phases, cancellation,
//! `catch_unwind`.

use std::collections::HashMap;

use lsp_server::{ErrorCode, ResponseError};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Notification,
};
use lsp_types::request::{
    CodeActionRequest, CodeLensRequest, Completion, DocumentSymbolRequest, Formatting,
    GotoDefinition, HoverRequest, InlayHintRequest, Request, SemanticTokensFullDeltaRequest,
    SemanticTokensFullRequest,
};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::Value;

use super::handlers::{
    code_action, code_lens, completion, definition, formatting, hover, inlay_hint, preview,
    semantic_tokens, symbols,
};
use super::notification_error::NotificationError;
use super::sync;
use super::world::World;

/// A request's answer, or the error it is answered with.
pub type Answer = Result<Value, ResponseError>;

type RequestRoute = Box<dyn Fn(&mut World, Value) -> Answer>;
type NotificationRoute = Box<dyn Fn(&mut World, Value) -> Result<(), NotificationError>>;

/// Every method the server answers while running, and its handler.
pub fn table() -> Router {
    Router::default()
        .on::<HoverRequest>(hover::request)
        .on::<Completion>(completion::request)
        .on::<CodeActionRequest>(code_action::request)
        .on::<DocumentSymbolRequest>(symbols::request)
        .on::<GotoDefinition>(definition::request)
        .on::<Formatting>(formatting::request)
        .on::<SemanticTokensFullRequest>(semantic_tokens::full_request)
        .on::<SemanticTokensFullDeltaRequest>(semantic_tokens::delta_request)
        .on::<InlayHintRequest>(inlay_hint::request)
        .on::<CodeLensRequest>(code_lens::request)
        .on::<preview::PreviewRequest>(preview::request)
        .on_notification::<DidOpenTextDocument>(sync::did_open)
        .on_notification::<DidChangeTextDocument>(sync::did_change)
        .on_notification::<DidCloseTextDocument>(sync::did_close)
        .on_params::<IgnoredAny>(DidSaveTextDocument::METHOD, sync::did_save)
        .on_notification::<DidChangeWatchedFiles>(sync::did_change_watched_files)
}

/// Methods and their handlers.
#[derive(Default)]
pub struct Router {
    requests: HashMap<&'static str, RequestRoute>,
    notifications: HashMap<&'static str, NotificationRoute>,
}

impl Router {
    /// Routes the request `R` to `handler`.
    pub fn on<R: Request>(mut self, handler: fn(&mut World, R::Params) -> R::Result) -> Router {
        let route = move |world: &mut World, params: Value| {
            let params = serde_json::from_value(params).map_err(|problem| {
                error(
                    ErrorCode::InvalidParams,
                    format!("invalid params for `{}`: {problem}", R::METHOD),
                )
            })?;
            to_value(handler(world, params))
        };
        self.requests.insert(R::METHOD, Box::new(route));
        self
    }

    /// Routes the notification `N` to `handler`.
    pub fn on_notification<N: Notification>(
        self,
        handler: fn(&mut World, N::Params) -> Result<(), NotificationError>,
    ) -> Router {
        self.on_params(N::METHOD, handler)
    }

    /// Routes the notification `method`, its params read as `P`.
    pub fn on_params<P: DeserializeOwned + 'static>(
        mut self,
        method: &'static str,
        handler: fn(&mut World, P) -> Result<(), NotificationError>,
    ) -> Router {
        let route = move |world: &mut World, params: Value| {
            let params = serde_json::from_value(params).map_err(|problem| {
                NotificationError::InvalidParams {
                    method,
                    problem: problem.to_string(),
                }
            })?;
            handler(world, params)
        };
        self.notifications.insert(method, Box::new(route));
        self
    }

    /// Answers the request `method`; `MethodNotFound` when no route has it.
    pub fn request(&self, world: &mut World, method: &str, params: Value) -> Answer {
        match self.requests.get(method) {
            Some(route) => route(world, params),
            None => Err(error(
                ErrorCode::MethodNotFound,
                format!("the server does not handle `{method}`"),
            )),
        }
    }

    /// Handles the notification `method`; one no route has (`$/setTrace`,
    /// a `$/cancelRequest` already answered) is nothing to do.
    pub fn notify(
        &self,
        world: &mut World,
        method: &str,
        params: Value,
    ) -> Result<(), NotificationError> {
        match self.notifications.get(method) {
            Some(route) => route(world, params),
            None => Ok(()),
        }
    }
}

/// A response error with `code`.
pub fn error(code: ErrorCode, message: String) -> ResponseError {
    ResponseError {
        code: code as i32,
        message,
        data: None,
    }
}

/// `value` as JSON, or an internal error.
pub fn to_value(value: impl serde::Serialize) -> Answer {
    serde_json::to_value(value)
        .map_err(|problem| error(ErrorCode::InternalError, problem.to_string()))
}

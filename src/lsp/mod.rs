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
//!
//! # Layout
//!
//! As taplo's server: [`server`] is the loop, [`routes`] the table from
//! method to handler, [`handlers`] one file per request, [`world`] the state
//! they share; the handshake is in [`initialize`], what the server announces
//! in [`capabilities`], document sync in [`sync`].

pub mod capabilities;
pub mod context;
pub mod convert;
pub mod handlers;
pub mod initialize;
pub mod notification_error;
pub mod routes;
pub mod rule_docs;
pub mod server;
pub mod state;
pub mod sync;
pub mod transport;
pub mod version;
pub mod world;

pub use self::capabilities::capabilities_of_server;
pub use self::server::serve;

/// Serves on stdin and stdout until `exit`, returning the exit status the
/// protocol asks for.
pub fn run() -> u8 {
    let (incoming, _reader) = transport::spawn_reader(std::io::stdin());
    serve(incoming, transport::Writer::new(std::io::stdout()))
}

//! The native module of the npm package `@contrib-lang/runtime`: the
//! runtime crate (`contrib-runtime`) as Node-API classes.
//!
//! The package's ESM entry (`index.js`) wraps these in the API hosts use,
//! with typed errors (`index.d.ts`); nothing here is meant to be called
//! directly. Values cross as JSON-shaped JavaScript objects with the same
//! field names as the runtime's files (a session, a turn's input, what was
//! said), so a conversation's records read the same in every language.
//!
//! Two things shape this crate:
//!
//! - A runtime `Conversation<'w>` borrows its `Workspace` and holds
//!   `Rc<RefCell<…>>` inside: it never leaves the JavaScript thread, and
//!   each JavaScript conversation owns an `Rc` of its workspace together
//!   with the conversation borrowing it (`conversation::Held`, a
//!   `self_cell`).
//! - The host's gate and reader are JavaScript functions the runtime calls
//!   in the middle of a turn: every method that may reach them runs inside
//!   `callbacks::with_env`, which lends them the call's `Env` and
//!   rethrows what they threw once the runtime returns.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod callbacks;
mod conversation;
mod failure;
mod log;
mod workspace;

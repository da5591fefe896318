//! The runtime, as a host has it (the `contrib-runtime` crate: load what a
//! workspace approved, compose what the model is told, write each request),
//! and beside it what only the command line needs: the fleet simulator.
//!
//! [`simulate`] measures what the runtime's layout buys: how much of the
//! request stays identical, and so cached, across many conversations,
//! against a naive layout that puts everything in the system prompt every
//! turn. It composes through the runtime's public API, as any host does.

pub use contrib_runtime::*;

pub mod simulate;

pub use simulate::CacheTotals;

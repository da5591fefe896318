//! `contrib_runtime`, the Python module: the runtime crate a host embeds
//! (`crates/contrib-runtime`), with the host's gate, reader and tool
//! definitions as Python callables and values, and every request body a
//! plain `dict` the provider's SDK sends as it is.
//!
//! Values cross the boundary as JSON: what the runtime serialises is read
//! with Python's `json` module, and what Python hands in is written with
//! it and read with the runtime's own serde shapes, so a field the
//! runtime does not know is an error rather than ignored.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod conversation;
mod convert;
mod errors;
mod host;
mod workspace;

use pyo3::prelude::*;

#[pymodule]
#[pyo3(name = "_native")]
fn native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<workspace::Workspace>()?;
    module.add_class::<conversation::Conversation>()?;
    errors::register(module)?;
    module.add("WIRES", ["anthropic", "openai-responses", "openai-chat"])?;
    Ok(())
}

//! `contrib.toml` ([`contrib_core::config`]), and which one applies to
//! which manifest ([`Resolver`]): the command line's and the language
//! server's question, asked as they search folders.

pub use contrib_core::config::*;

mod resolve;

pub use resolve::{Loaded, Resolver};

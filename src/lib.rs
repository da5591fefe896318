//! `contrib`: a compiler and linter for prompt-contributor manifests.
//!
//! The pipeline, one module per stage:
//!
//! - [`source`]: text, byte spans, line and column numbers;
//! - [`syntax`]: text → syntax tree (the pest grammar in `grammar/`);
//! - [`lower`]: syntax tree → typed [`ir`], with the language's diagnostics;
//! - [`check`]: the semantic rules, one file per rule;
//! - [`bundle`]: frozen, content-addressed plugin versions and catalogs;
//! - [`trust`]: where a bundle is installed: re-checked under the
//!   installer's policy, approved, locked, and re-checked at every load;
//! - [`runtime`]: what the model is told, composed from approved bundles;
//! - [`report`]: diagnostics rendered for people and machines;
//! - [`pages`]: the approval screen and a simulation as self-contained
//!   HTML pages;
//! - [`fmt`]: syntax tree → the canonical layout, comments kept;
//! - [`import`]: other tools' skills, plugins, rules and instruction files,
//!   written as manifests;
//!
//! beside them [`uri`] (paths as URIs, for SARIF and the language
//! server), [`diagnostic`] (the one diagnostic type), [`codes`] (every
//! rule's code, name and explanation), [`fs`] (the file system, behind one
//! policy), [`cli`] and [`lsp`] (the language server).
//!
//! ```
//! let source = contrib::source::SourceFile::new(
//!     "notes.contrib",
//!     "plugin acme/notes 1.0.0 {\n    owner agent-author\n}\n",
//! );
//! let analysis = contrib::analyze(&source, &contrib::config::Config::platform());
//! assert!(analysis.diagnostics.is_empty());
//! assert_eq!(analysis.plugin.unwrap().name.value.to_string(), "acme/notes");
//! ```

// What is `pub` is meant for users: an item only the crate reaches says so
// (`pub(crate)`), so the public surface is what `cargo doc` shows.
#![warn(unreachable_pub)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

/// `From<E> for String` for each typed error `E`: the command line, which
/// reports errors as text, takes them with `?` as the message they display.
/// Defined before the modules, so every module can invoke it.
macro_rules! into_text {
    ($($error:ty),*) => {$(
        impl From<$error> for String {
            fn from(error: $error) -> String {
                error.to_string()
            }
        }
    )*};
}

pub mod bundle;
pub mod cache;
pub mod check;
#[cfg(feature = "cli")]
pub mod cli;
pub mod config;
pub mod export;
pub mod fix;
pub mod fmt;
pub mod fs;
pub mod import;
pub mod ir;
pub mod lower;
#[cfg(feature = "cli")]
pub mod lsp;
pub mod migrate;
#[cfg(feature = "cli")]
pub mod pages;
pub mod report;
pub mod runtime;
pub mod syntax;
pub mod trust;
pub mod uri;

mod analyze;

pub use analyze::{analyze, analyze_bytes, analyze_parsed, check_bytes, Analysis};
pub use contrib_core::decode_bytes;

// The layers below, under the names the library has always given them.
pub use contrib_core::{codes, decode, diagnostic, glob, limits, source, suggest, tokenizer};

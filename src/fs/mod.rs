//! The file system behind one policy ([`contrib_core::fs`]), and
//! discovering manifests as the command line searches for them: honouring
//! `.gitignore` and `.contribignore`, skipping hidden folders, `.git/` and
//! `node_modules/`, always checking a path named on the command line
//! ([`manifests`]); a workspace's `exclude` patterns are matched in the
//! same syntax ([`Excludes`]).

pub use contrib_core::fs::*;

mod discover;
mod exclude;

pub use discover::{files_under, manifests, Discovered, IGNORE_FILE};
pub use exclude::{listed_in_ignore_files, Excludes};

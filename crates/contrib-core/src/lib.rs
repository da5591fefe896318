//! `contrib-core`: what every layer of `contrib` speaks, from the
//! language to the runtime a host embeds.
//!
//! - [`source`]: text, byte spans, line and column numbers, and the
//!   characters a reader cannot see ([`source::hidden`]); [`decode`] turns
//!   bytes into a source;
//! - [`diagnostic`]: the one diagnostic type every stage and output shares,
//!   and [`codes`], the table of every rule (code, name, kind, level);
//! - [`vocabulary`]: the words a contributor is declared in (kinds,
//!   placements, owners, priorities, reaches, sources, fact sections) and
//!   the table of kinds;
//! - [`config`]: `contrib.toml`, the workspace's tools, skills, egress,
//!   budgets and trust, and [`policy`], its judgements over what a
//!   contributor does (written once for the checker, the load of an
//!   approved bundle and the runtime);
//! - [`fs`]: the file system behind one policy, [`limits`] on what one
//!   input may hold, [`tokenizer`] (exact counts, through `toktally`),
//!   [`suggest`] ("did you mean"), [`fingerprint`], and [`terminal`]
//!   (untrusted text made safe to print).
//!
//! It holds no parser, no renderer and no command line: the language
//! (`contrib-lang`), the bundle format (`contrib-bundle`) and the runtime
//! (`contrib-runtime`) are built on it.

#![warn(unreachable_pub)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod codes;
pub mod config;
pub mod decode;
pub mod diagnostic;
pub mod fingerprint;
pub mod fs;
pub mod glob;
pub mod limits;
pub mod policy;
pub mod source;
pub mod suggest;
pub mod terminal;
pub mod tokenizer;
pub mod vocabulary;

pub use decode::decode_bytes;

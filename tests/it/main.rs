//! The integration tests: one binary, one module per topic, so that a
//! build links one test executable instead of one per file. Every module
//! runs the `contrib` binary (`common::isolated`) or the library, in
//! temporary folders; none changes the process's environment or current
//! folder, since they all share this process (CONTRIBUTING.md, "Tests").
//!
//! A new topic is a file beside this one, `tests/it/<topic>.rs`, declared
//! below in name order; its snapshots go to `tests/it/snapshots/` as
//! `it__<topic>__<name>.snap`. Run one topic with
//! `cargo test --test it <topic>::`.

mod common;

mod admit;
mod agent_plugins_conformance;
mod bundles;
mod checks;
mod claude_validator;
mod cli;
mod cli_fmt;
mod concurrency;
mod config;
mod corpus_text;
mod crate_layers;
mod distribution;
mod editors;
mod examples;
mod explain;
mod export;
mod fix;
mod fmt_properties;
mod fmt_snapshots;
mod hostile;
mod import_cli;
mod import_corpus;
mod import_formats;
mod import_native;
mod language_reference;
mod left_out;
mod linear_growth;
mod lowering;
mod lsp;
mod migrate;
mod module_graph;
mod mutation;
mod newcomer;
#[cfg(unix)]
mod oci;
mod override_sample;
mod pages;
mod positions;
mod readme;
mod recovery;
mod robustness;
mod rule_docs;
mod rules;
mod runtime;
mod runtime_requests;
mod runtime_turns;
mod source_meaning;
mod source_rules;
mod strings;
mod tokenizer;
mod trust;
mod variables;
mod wire;

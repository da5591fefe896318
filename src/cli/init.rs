//! `contrib init [DIR]`: a first manifest and a `contrib.toml`, ready for
//! `contrib check`.
//!
//! The scaffold is written here and nowhere else ([`manifest`], [`CONFIG`]),
//! and the tests check that it stays clean under `contrib check` and
//! `contrib fmt --check`, so a change to the language shows up as a failing
//! test rather than a stale template. The manifest is kept to one `text`
//! contributor with the three fields every contributor needs, so it reads
//! the same whatever else the language grows.

use std::path::{Path, PathBuf};

use clap::Args;

use super::output::status;
use super::{fail, Outcome};
use crate::fs;
use crate::import::emit::kebab;

#[derive(Args)]
pub(super) struct InitArgs {
    /// The folder to write into (created when missing); the current folder
    /// by default.
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// The plugin's `scope/name`; by default `local/` and the folder's
    /// name.
    #[arg(long, value_name = "SCOPE/NAME")]
    plugin: Option<String>,
}

/// Where the JSON Schema of `contrib.toml` is published: its `$id`, and the
/// `#:schema` line (taplo's directive, which Even Better TOML and other
/// editors read) that [`CONFIG`] starts with.
pub const SCHEMA_URL: &str =
    "https://raw.githubusercontent.com/contrib-lang/contrib/main/schema/contrib-toml.schema.json";

/// The workspace configuration `init` writes: the platform's defaults,
/// spelt out so that they can be changed (see `docs/config.md`), under a
/// `#:schema` line so that editors complete and check its keys.
pub const CONFIG: &str = r#"#:schema https://raw.githubusercontent.com/contrib-lang/contrib/main/schema/contrib-toml.schema.json

# The workspace configuration: what `contrib check` checks the manifests in
# this folder and below against. Every key is described in docs/config.md;
# what is left out keeps the platform's default.

[workspace]
context_budget = 200000    # tokens in the model's context
system_prompt_share = 0.25 # of which the system prompt may take a quarter
tokenizer = "o200k"        # or "cl100k"

[egress]
allow = []                 # hosts calls may reach, such as "docs.acme.dev"

# Tools the workspace adds to the platform's, for example:
# [tools.search_code]
# effect = "read"
# params = { query = "string" }
# schema_tokens = 140

[lints]
# budget-unused = "allow"  # a rule's level, by name or code: allow | warn | deny
"#;

/// The first manifest: one `text` contributor that adds a standing
/// instruction to the agent's part of the system prompt.
pub fn manifest(plugin: &str) -> String {
    format!(
        r#"# A first manifest. `contrib check .` checks it; `contrib explain RULE`
# explains anything it reports; docs/language.md describes every field.
plugin {plugin} 0.1.0 {{
    owner agent-author

    text stance {{
        placement agent
        budget 40 tokens
        body "Answer in plain words. When you are not sure of something, say so."
    }}
}}
"#
    )
}

pub(super) fn run(args: &InitArgs) -> Outcome {
    let plugin = match &args.plugin {
        Some(plugin) => plugin.clone(),
        None => format!("local/{}", kebab(&folder_name(&args.dir), "my-plugin")),
    };
    let name = plugin.rsplit('/').next().unwrap_or("plugin").to_string();
    let config_path = args.dir.join(crate::config::FILE_NAME);
    let manifest_path = args.dir.join(format!("{name}.contrib"));
    // Nothing is overwritten: a second `init` changes nothing.
    for path in [&config_path, &manifest_path] {
        if path.exists() {
            return fail(format!(
                "`{}` already exists; `contrib init` never overwrites a file",
                path.display()
            ));
        }
    }
    if let Err(error) = std::fs::create_dir_all(&args.dir) {
        return fail(format!(
            "cannot create `{}`: {}",
            args.dir.display(),
            fs::describe(&error)
        ));
    }
    for (path, text) in [
        (&config_path, CONFIG.to_string()),
        (&manifest_path, manifest(&plugin)),
    ] {
        if let Err(message) = fs::write_atomically(path, text.as_bytes()) {
            return fail(message);
        }
        status(format_args!("wrote {}", path.display()));
    }
    status(format_args!("next: `contrib check {}`", args.dir.display()));
    Outcome::Clean
}

/// The folder's own name, resolving `.` to the current folder's.
fn folder_name(dir: &Path) -> String {
    std::path::absolute(dir)
        .ok()
        .and_then(|path| {
            path.components()
                .next_back()
                .map(|last| last.as_os_str().to_string_lossy().into_owned())
        })
        .unwrap_or_default()
}

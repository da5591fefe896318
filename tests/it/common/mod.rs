//! Helpers shared by the integration tests: checking text the way
//! `contrib check` does, and reading diagnostics the way a person does, by
//! the text they underline.

pub mod imported;
pub mod isolated;
pub mod meaning;
pub mod runtime;
pub mod unavailable;

use std::path::{Path, PathBuf};

use contrib::config::Config;
use contrib::diagnostic::{Diagnostic, RuleKind};
use contrib::ir::{ContributorBody, Plugin, TemplatePart};
use contrib::source::SourceFile;

/// The workspace configuration `contrib check` would use for a file named
/// `name` relative to the crate: the nearest `contrib.toml` above it, or the
/// platform's own.
pub fn config_for(name: &str) -> Config {
    let path = root().join(name);
    match path.parent().and_then(contrib::config::discover) {
        Some(file) => {
            let (config, diagnostics) = Config::load(&file).expect("a readable contrib.toml");
            assert!(
                diagnostics.is_empty(),
                "{}: {diagnostics:#?}",
                file.display()
            );
            config
        }
        None => Config::platform(),
    }
}

/// A file's source (decoded lossily when it is not UTF-8) and its
/// diagnostics, as `contrib check` computes them.
pub fn check_bytes(name: &str, bytes: &[u8]) -> (SourceFile, Vec<Diagnostic>) {
    contrib::check_bytes(name, bytes, &config_for(name))
}

/// The plugin a manifest lowers to, and the language's diagnostics (syntax
/// and lowering; the checker's rules are tested on their own fixtures).
pub fn lower(text: &str) -> (Option<Plugin>, Vec<Diagnostic>) {
    let source = SourceFile::new("test.contrib", text);
    let analysis = contrib::analyze(&source, &Config::platform());
    (analysis.plugin, language_only(analysis.diagnostics))
}

/// The language's own diagnostics among `diagnostics`.
pub fn language_only(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics
        .into_iter()
        .filter(|diagnostic| diagnostic.rule.kind == RuleKind::Language)
        .collect()
}

/// The text of `text` under `diagnostic`'s primary label, as a person
/// reads the diagnostic.
pub fn underlined_by<'t>(text: &'t str, diagnostic: &Diagnostic) -> &'t str {
    text.get(diagnostic.span().range()).unwrap_or("")
}

/// Each diagnostic as its name and the text its primary label underlines,
/// in the order they are reported (by position).
pub fn underlined(text: &str) -> Vec<(&'static str, String)> {
    let (source, diagnostics) = check_bytes("test.contrib", text.as_bytes());
    language_only(diagnostics)
        .iter()
        .map(|diagnostic| {
            (
                diagnostic.rule.name,
                underlined_by(&source.text, diagnostic).to_string(),
            )
        })
        .collect()
}

/// The one diagnostic `text` yields; fails when there are none or several.
pub fn only(text: &str) -> Diagnostic {
    let (_, diagnostics) = check_bytes("test.contrib", text.as_bytes());
    let mut diagnostics = language_only(diagnostics);
    assert_eq!(
        diagnostics.len(),
        1,
        "expected one diagnostic, got {diagnostics:#?}"
    );
    diagnostics.remove(0)
}

/// `contributor` inside a plugin owned by an agent author.
pub fn in_plugin(contributor: &str) -> String {
    format!("plugin acme/test 1.0.0 {{\n    owner agent-author\n{contributor}\n}}\n")
}

/// `fields` inside `text voice { … }`, after `placement agent` and a
/// budget; the caller writes the body.
pub fn in_text(fields: &str) -> String {
    in_plugin(&format!(
        "    text voice {{\n        placement agent\n        budget 100 tokens\n{fields}\n    }}"
    ))
}

/// The body of the first contributor, with each variable written back as
/// `{name}`: what the model would be given, before variables are filled.
pub fn first_body(text: &str) -> String {
    let (plugin, diagnostics) = lower(text);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let plugin = plugin.expect("a plugin");
    let contributor = plugin.contributors.first().expect("a contributor");
    let template = match &contributor.body {
        ContributorBody::Text { body } | ContributorBody::SystemMessage { body, .. } => body,
        other => panic!("no body: {other:?}"),
    };
    template
        .parts
        .iter()
        .map(|part| match part {
            TemplatePart::Literal(literal) => literal.clone(),
            TemplatePart::Variable(used) => format!("{{{}}}", used.variable.name),
        })
        .collect()
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `*.contrib` under `folder`, recursively, in name order.
pub fn manifests(folder: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(folder)
        .expect("a readable folder")
        .map(|entry| entry.expect("a folder entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            found.extend(manifests(&path));
        } else if path
            .extension()
            .is_some_and(|extension| extension == "contrib")
        {
            found.push(path);
        }
    }
    found
}

/// A path relative to the crate, with `/` separators, for stable names in
/// snapshots and messages.
pub fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The bundle `manifest` builds to in the workspace whose `contrib.toml`
/// is `config`, failing on any error diagnostic.
pub fn bundle_in(config: &str, manifest: &str) -> contrib::bundle::Bundle {
    let (config, diagnostics) = Config::from_source(SourceFile::new("contrib.toml", config));
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let source = SourceFile::new("test.contrib", manifest);
    let analysis = contrib::analyze(&source, &config);
    let errors: Vec<&Diagnostic> = analysis
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    contrib::bundle::build(&analysis.plugin.expect("a plugin"), &config)
        .expect("a canonical bundle")
}

/// The bundle an example under `examples/` builds to, in the examples'
/// workspace.
pub fn example_bundle(name: &str) -> contrib::bundle::Bundle {
    let path = root().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{name}: {error}"));
    let config = config_for(name);
    let analysis = contrib::analyze(&SourceFile::new(name, text), &config);
    assert!(
        analysis.diagnostics.iter().all(|d| !d.is_error()),
        "{name}: {:#?}",
        analysis.diagnostics
    );
    contrib::bundle::build(&analysis.plugin.expect("a plugin"), &config)
        .expect("a canonical bundle")
}

/// The SARIF 2.1.0 schema (`tests/data`), with format checks on. It is
/// draft-04, which predates `uri-reference`, so that format is checked by
/// an RFC 3986 parser; without it an unencoded path would pass.
pub fn sarif_validator() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json"))
            .expect("the SARIF schema"),
    )
    .expect("JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .with_format("uri-reference", |text: &str| {
            fluent_uri::UriRef::parse(text).is_ok()
        })
        .build(&schema)
        .expect("the SARIF schema compiles")
}

/// Every way `document` breaks the SARIF schema (formats checked), as
/// `message at /instance/path`.
pub fn sarif_errors(document: &serde_json::Value) -> Vec<String> {
    sarif_validator()
        .iter_errors(document)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect()
}

/// Copies the folder `from` to `to`, files and folders, as a test's own
/// copy it may change.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("the copy's folder");
    for entry in std::fs::read_dir(from).expect("the folder reads").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("the file copies");
        }
    }
}

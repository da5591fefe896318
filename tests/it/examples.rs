//! The examples are the language's contract: every plugin under
//! `examples/` checks clean, and every manifest under `examples/broken/`
//! yields exactly the diagnostic it is named after, rendered as snapshotted
//! here for people (miette, no colour, 100 columns) and for machines (JSON).

use crate::common;

use std::path::PathBuf;

use crate::common::{check_bytes, manifests, relative, root};
use contrib::report::{human::Human, json};

fn broken() -> Vec<PathBuf> {
    manifests(&root().join("examples/broken"))
}

fn read(path: &std::path::Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The diagnostic a broken example is named after: `unknown-field.contrib`.
fn expected_name(path: &std::path::Path) -> String {
    path.file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[test]
fn every_example_checks_clean() {
    let examples: Vec<PathBuf> = manifests(&root().join("examples"))
        .into_iter()
        .filter(|path| !path.starts_with(root().join("examples/broken")))
        .collect();
    assert!(examples.len() >= 6, "too few examples: {examples:?}");
    for path in examples {
        let (source, diagnostics) = check_bytes(&relative(&path), &read(&path));
        let rendered: Vec<String> = diagnostics
            .iter()
            .map(|diagnostic| Human::new(false).render(&source, diagnostic))
            .collect();
        assert!(
            rendered.is_empty(),
            "{}:\n{}",
            relative(&path),
            rendered.join("\n")
        );
    }
}

/// The example in issue 2, saved verbatim in the language's first
/// version, migrates to a manifest that checks without errors against the
/// examples' workspace. Its two warnings are honest: `stance` is budgeted
/// 120 tokens for a 15-token body, and `environment`'s 60 tokens hold the
/// date, the OS and the architecture only while the host names them in a
/// word each (the copy in `examples/` records why, in suppressions).
#[test]
fn the_issue_example_saved_verbatim_migrates_and_checks_without_errors() {
    let name = "tests/fixtures/issue-2-example.contrib";
    let text = String::from_utf8(read(&root().join(name))).expect("UTF-8");
    let migrated = contrib::migrate::manifest(name, &text).expect("it parses");
    assert!(
        migrated.changed(&text),
        "the verbatim example is language 1"
    );
    let source = contrib::source::SourceFile::new(name, migrated.text);
    let config = common::config_for("examples/code-review.contrib");
    let diagnostics = contrib::analyze(&source, &config).diagnostics;
    let found: Vec<(&str, &str)> = diagnostics
        .iter()
        .map(|diagnostic| (diagnostic.rule.name, source.slice(diagnostic.span())))
        .collect();
    assert_eq!(
        found,
        [
            ("budget-unused", "budget 120 tokens"),
            ("fact-over-budget", "budget 60 tokens")
        ]
    );
}

/// The reference example is the issue's, migrated, with one suppression.
#[test]
fn the_reference_example_is_the_issue_example_migrated() {
    let verbatim = String::from_utf8(read(&root().join("tests/fixtures/issue-2-example.contrib")))
        .expect("UTF-8");
    let migrated = contrib::migrate::manifest("issue", &verbatim).expect("it parses");
    let example = std::fs::read_to_string(root().join("examples/code-review.contrib"))
        .expect("examples/code-review.contrib");
    let without_suppression: Vec<&str> = example
        .lines()
        .filter(|line| !line.trim_start().starts_with("# contrib:"))
        .collect();
    let migrated_lines: Vec<&str> = migrated.text.lines().collect();
    for line in &migrated_lines {
        assert!(without_suppression.contains(line), "missing: {line}");
    }
}

#[test]
fn every_broken_example_yields_exactly_its_diagnostic() {
    for path in broken() {
        let (_, diagnostics) = check_bytes(&relative(&path), &read(&path));
        let names: Vec<&str> = diagnostics.iter().map(|d| d.rule.name).collect();
        assert_eq!(names, [expected_name(&path)], "{}", relative(&path));
    }
}

#[test]
fn every_language_diagnostic_has_a_broken_example() {
    let names: Vec<String> = broken().iter().map(|path| expected_name(path)).collect();
    for rule in language_rules() {
        assert!(
            names.iter().any(|name| name == rule.name),
            "no examples/broken/{}.contrib",
            rule.name
        );
    }
}

/// The human report, in a snapshot that reads on its own: the manifest,
/// then what `contrib check` says about it.
#[test]
fn broken_examples_human_output() {
    for path in broken() {
        let (source, diagnostics) = check_bytes(&relative(&path), &read(&path));
        let errors: Vec<String> = diagnostics
            .iter()
            .map(|diagnostic| Human::new(false).render(&source, diagnostic))
            .collect();
        let snapshot = format!(
            "----- SOURCE CODE\n{}\n----- ERROR\n{}",
            source.text,
            errors.join("\n")
        );
        snapshot_settings(&path).bind(|| {
            insta::assert_snapshot!(format!("{}.human", expected_name(&path)), snapshot);
        });
    }
}

#[test]
fn broken_examples_json_output() {
    for path in broken() {
        let (source, diagnostics) = check_bytes(&relative(&path), &read(&path));
        let document = json::render(&source, &diagnostics);
        snapshot_settings(&path).bind(|| {
            insta::assert_snapshot!(format!("{}.json", expected_name(&path)), document);
        });
    }
}

fn snapshot_settings(path: &std::path::Path) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("tests/it/snapshots/broken"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(path);
    settings
}

/// The rules the language itself reports.
fn language_rules() -> impl Iterator<Item = &'static contrib::diagnostic::Rule> {
    contrib::codes::all()
        .iter()
        .copied()
        .filter(|rule| rule.kind == contrib::diagnostic::RuleKind::Language)
}

/// `docs/cache.md` quotes the examples' agent prefix as `contrib compose`
/// measures it, in two places; when an example's text changes, the figure
/// there must change with it.
#[test]
fn the_cache_guide_quotes_the_agent_prefix_the_examples_compose() {
    use crate::common::isolated;
    let folder = tempfile::tempdir().expect("a temporary folder");
    let bundles = folder.path().join("bundles");
    let mut build = isolated::contrib_command();
    build.arg("build").args(
        manifests(&root().join("examples"))
            .into_iter()
            .filter(|path| path.parent() == Some(&root().join("examples"))),
    );
    build.arg("-o").arg(&bundles);
    let built = isolated::output(&mut build);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let mut compose = isolated::contrib_command();
    compose
        .arg("compose")
        .arg("--bundles")
        .arg(&bundles)
        .arg("--session")
        .arg(root().join("examples/runtime/session.toml"));
    let composed = isolated::output(&mut compose);
    assert!(
        composed.status.success(),
        "{}",
        String::from_utf8_lossy(&composed.stderr)
    );
    let stdout = String::from_utf8_lossy(&composed.stdout);
    let marker = "the agent prefix (tools, platform and agent parts, eager loads) ends here (";
    let tokens: u64 = stdout
        .split_once(marker)
        .and_then(|(_, rest)| rest.split_once(' '))
        .and_then(|(figure, _)| figure.parse().ok())
        .unwrap_or_else(|| panic!("no agent breakpoint in:\n{stdout}"));
    let guide = std::fs::read_to_string(root().join("docs/cache.md")).expect("docs/cache.md");
    let plain = format!("ends here ({tokens} tokens,");
    let grouped = format!(
        "agent prefix ({},{:03} tokens",
        tokens / 1000,
        tokens % 1000
    );
    let flat = guide.replace('\n', " ");
    assert!(
        flat.contains(&plain),
        "docs/cache.md should quote `{plain}`"
    );
    assert!(
        flat.contains(&grouped),
        "docs/cache.md should quote `{grouped}`"
    );
}

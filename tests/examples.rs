//! The examples are the language's contract: every plugin under
//! `examples/` checks clean, and every manifest under `examples/broken/`
//! yields exactly the diagnostic it is named after, rendered as snapshotted
//! here for people (miette, no colour, 100 columns) and for machines (JSON).

mod common;

use std::path::PathBuf;

use common::{check_bytes, manifests, relative, root};
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

#[test]
fn the_issue_example_is_kept_verbatim() {
    let text = std::fs::read_to_string(root().join("examples/code-review.contrib"))
        .expect("examples/code-review.contrib");
    for line in [
        "plugin acme/code-review 1.4.0 {",
        "    requires skill code-review \"^2.1\"",
        "        body \"Answer tersely, in British English. Call me {person.name}.\"",
        "        call fetch_url { url: \"https://docs.acme.dev/style\" }",
        "        says date, os, arch",
    ] {
        assert!(text.lines().any(|l| l == line), "missing: {line}");
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
    for rule in contrib::rules::language::ALL {
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
    settings.set_snapshot_path(root().join("tests/snapshots/broken"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(path);
    settings
}

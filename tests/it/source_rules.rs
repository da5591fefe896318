//! Every rule of another tool's source format has fixtures under
//! `tests/sources/`, folders checked in place as `contrib check DIR` checks
//! a folder with no manifest:
//!
//! ```text
//! tests/sources/<rule-name>/fail/   must trigger the rule
//! tests/sources/<rule-name>/pass/   its fixed twin: no diagnostic at all
//! tests/sources/<rule-name>/fail.snap  every diagnostic of `fail/`, rendered
//! ```
//!
//! New snapshots are reviewed before they are accepted, as in
//! `tests/it/rules.rs`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use contrib::diagnostic::{Diagnostic, Rule, RuleKind};
use contrib::import::{check_in_place, Checked};
use contrib::report::human::Human;
use contrib::source::SourceFile;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sources")
}

fn source_rules() -> Vec<&'static Rule> {
    contrib::codes::all()
        .iter()
        .copied()
        .filter(|rule| rule.kind == RuleKind::Source)
        .collect()
}

fn check(folder: &Path) -> Vec<Checked> {
    check_in_place(folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .unwrap_or_else(|| panic!("{}: no source found", folder.display()))
}

#[test]
fn every_source_rule_has_fixtures_and_every_fixture_a_rule() {
    let names: Vec<&str> = source_rules().iter().map(|rule| rule.name).collect();
    for name in &names {
        for case in ["fail", "pass"] {
            assert!(
                root().join(name).join(case).is_dir(),
                "no tests/sources/{name}/{case}/"
            );
        }
    }
    for entry in std::fs::read_dir(root())
        .expect("tests/sources exists")
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            names.contains(&name.as_str()),
            "tests/sources/{name} names no source rule"
        );
    }
}

#[test]
fn fail_fixtures_trigger_their_rule_and_pass_fixtures_are_clean() {
    let mut problems = Vec::new();
    for rule in source_rules() {
        let failing = check(&root().join(rule.name).join("fail"));
        let own: Vec<&Diagnostic> = failing
            .iter()
            .flat_map(|file| &file.diagnostics)
            .filter(|diagnostic| diagnostic.rule == rule)
            .collect();
        if own.is_empty() {
            problems.push(format!("{}: did not fire", rule.name));
        }
        // A finding's severity is the class its format's loader gives it
        // (the snapshot shows each); an opt-in rule's fixture folder holds
        // the `contrib.toml` that turns it on.
        for diagnostic in failing.iter().flat_map(|file| &file.diagnostics) {
            let message = &diagnostic.message;
            let style = message.starts_with(|c: char| c.is_lowercase() || c == '`')
                && !message.ends_with('.')
                && !diagnostic.labels.is_empty()
                && diagnostic
                    .help
                    .as_deref()
                    .is_some_and(|help| !help.is_empty());
            if !style {
                problems.push(format!(
                    "{}: breaks the message style: {message}",
                    rule.name
                ));
            }
        }
        for file in check(&root().join(rule.name).join("pass")) {
            for diagnostic in &file.diagnostics {
                problems.push(format!(
                    "{}/pass/{}: unexpected `{}`: {}",
                    rule.name, file.path, diagnostic.rule.name, diagnostic.message
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The fail fixture's files that have diagnostics, each then what `contrib
/// check` says about it.
fn snapshot(rule: &Rule, files: &[Checked]) -> String {
    let human = Human::new(false);
    let mut text = String::new();
    for file in files.iter().filter(|file| !file.diagnostics.is_empty()) {
        let name = format!("{}/fail/{}", rule.name, file.path);
        let source = SourceFile::new(name.clone(), file.text.clone());
        text.push_str(&format!("----- SOURCE CODE -- {name}\n{}", file.text));
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("----- DIAGNOSTICS\n");
        for diagnostic in &file.diagnostics {
            text.push_str(&human.render(&source, diagnostic));
            text.push('\n');
        }
    }
    text
}

#[test]
fn fail_fixture_snapshots() {
    let mut failed = Vec::new();
    for rule in source_rules() {
        let folder = root().join(rule.name);
        let files = check(&folder.join("fail"));
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(&folder);
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(format!(
            "{} ({}) on {}/fail: {}",
            rule.name, rule.code, rule.name, rule.summary
        ));
        let body = snapshot(rule, &files);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            settings.bind(|| insta::assert_snapshot!("fail", body));
        }));
        if outcome.is_err() {
            failed.push(rule.name);
        }
    }
    assert!(failed.is_empty(), "snapshots that changed: {failed:?}");
}

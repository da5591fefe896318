//! `docs/rules/`: one page per rule, each exactly what `contrib explain`
//! prints, and an index. A diagnostic's link in an editor points at these
//! pages in the repository, at the release's tag (`lsp::rule_docs`), so
//! they must never drift from the registry.
//!
//! After changing a rule's explanation, write the pages anew with
//! `CONTRIB_BLESS=1 cargo test --test it rule_docs::` and read the diff.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use contrib::diagnostic::Rule;

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules")
}

/// The index: every rule, one line each, linking to its page.
fn index(rules: &[&Rule]) -> String {
    let mut text = String::from(
        "# Rules\n\n\
         Every diagnostic `contrib` reports, by code. Each page is what\n\
         `contrib explain <name>` prints; `contrib rules` lists them in a\n\
         terminal. These pages are generated from the rule registry\n\
         (`src/codes/`): edit the explanation there, then run\n\
         `CONTRIB_BLESS=1 cargo test --test it rule_docs::`.\n\n",
    );
    for rule in rules {
        let _ = writeln!(
            text,
            "- `{}` [{}]({}.md) ({}): {}",
            rule.code,
            rule.name,
            rule.name,
            rule.default_level.as_str(),
            rule.summary
        );
    }
    text
}

/// What `docs/rules/` should hold: file name to contents.
fn expected() -> BTreeMap<String, String> {
    let rules = contrib::codes::all();
    let mut files: BTreeMap<String, String> = rules
        .iter()
        .map(|rule| (format!("{}.md", rule.name), contrib::codes::page(rule)))
        .collect();
    files.insert("README.md".to_string(), index(rules));
    files
}

fn actual() -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(folder()) else {
        return BTreeMap::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(entry.path()).ok()?;
            Some((name, text))
        })
        .collect()
}

#[test]
fn every_rule_has_its_page_and_nothing_else_is_there() {
    let expected = expected();
    if std::env::var_os("CONTRIB_BLESS").is_some_and(|value| value == "1") {
        std::fs::create_dir_all(folder()).unwrap();
        for stale in actual().keys().filter(|name| !expected.contains_key(*name)) {
            std::fs::remove_file(folder().join(stale)).unwrap();
        }
        for (name, text) in &expected {
            std::fs::write(folder().join(name), text).unwrap();
        }
    }
    let actual = actual();
    let differ: Vec<&String> = expected
        .keys()
        .chain(actual.keys())
        .filter(|name| expected.get(*name) != actual.get(*name))
        .collect();
    assert!(
        differ.is_empty(),
        "docs/rules/ is not what the registry says for {differ:?}; \
         run `CONTRIB_BLESS=1 cargo test --test it rule_docs::` and read the diff"
    );
}

#[test]
fn a_page_is_what_contrib_explain_prints() {
    let output = crate::common::isolated::contrib(&["explain", "C0101"]);
    assert!(output.status.success());
    let page = std::fs::read_to_string(folder().join("placement-too-wide.md")).unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), page);
}

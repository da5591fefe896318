//! `contrib migrate`: every manifest of the language's first version in the
//! repository's history becomes one that checks, with the same meaning.
//!
//! `tests/fixtures/language1/` holds each version of each example as it was
//! committed, and the format-1 bundle the first version's `contrib build`
//! made of it. The meaning kept is the bundle's: the migrated manifest,
//! built now, has the same contributors with the same kinds, placements,
//! priorities, budgets, texts, calls, loads, conditions and facts as the
//! old bundle read today. The one documented change: `reach replies` on
//! kept text becomes `with-person`, which is what the first runtime did.

use crate::common;
use crate::common::isolated;

use std::path::{Path, PathBuf};

use contrib::bundle::{Bundle, BundledContributor};
use contrib::ir::{Placement, Reach};
use contrib::source::SourceFile;

fn fixtures() -> Vec<PathBuf> {
    common::manifests(&common::root().join("tests/fixtures/language1"))
}

fn migrated(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("fixture");
    let name = common::relative(path);
    // Some examples used nothing the language changed and come out as they
    // went in.
    contrib::migrate::manifest(&name, &text)
        .expect("it parses")
        .text
}

#[test]
fn every_language_one_example_migrates_to_a_manifest_that_checks() {
    let config = common::config_for("examples/code-review.contrib");
    let paths = fixtures();
    assert!(paths.len() >= 9, "{paths:?}");
    for path in paths {
        let text = migrated(&path);
        let source = SourceFile::new(common::relative(&path), text.clone());
        let errors: Vec<String> = contrib::analyze(&source, &config)
            .diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.is_error())
            .map(|diagnostic| diagnostic.message.clone())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}\n{text}", path.display());
        // Idempotent: a second migration changes nothing.
        let again = contrib::migrate::manifest("again", &text).expect("it parses");
        assert_eq!(again.text, text, "{}", path.display());
        assert!(again.changes.is_empty());
    }
}

#[test]
fn every_language_one_example_keeps_its_meaning() {
    let config = common::config_for("examples/code-review.contrib");
    for path in fixtures() {
        let old = Bundle::load(&path.with_extension("bundle.json")).expect("the old bundle");
        assert_eq!(old.format, 1);
        let source = SourceFile::new(common::relative(&path), migrated(&path));
        let plugin = contrib::analyze(&source, &config).plugin.expect("a plugin");
        let new = contrib::bundle::build(&plugin, &config).expect("a bundle");
        assert_eq!(
            (&new.plugin, &new.version, new.requested_owner),
            (&old.plugin, &old.version, old.requested_owner),
            "{}",
            path.display()
        );
        let ids = |bundle: &Bundle| {
            let mut ids: Vec<String> = bundle.contributors.iter().map(|c| c.id.clone()).collect();
            ids.sort();
            ids
        };
        assert_eq!(ids(&new), ids(&old), "{}", path.display());
        for before in &old.contributors {
            let after = new
                .contributors
                .iter()
                .find(|c| c.id == before.id)
                .expect("the same contributor");
            assert_eq!(
                meaning(after),
                meaning(before),
                "{} {}",
                path.display(),
                before.id
            );
        }
    }
}

/// What a contributor means, without what is measured (variables are now
/// budgeted in tokens) and with the documented reach change applied.
fn meaning(contributor: &BundledContributor) -> String {
    let kept = contributor.placement != Placement::Message;
    let reach = match contributor.reach {
        Reach::Replies if kept => Reach::WithPerson,
        reach => reach,
    };
    format!(
        "{} {} {} {} {} {:?} {:?} budget {} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        contributor.kind,
        contributor.owner,
        contributor.placement,
        contributor.priority,
        reach,
        contributor.delivery,
        contributor.activation,
        contributor.budget,
        contributor.template,
        contributor.framing,
        contributor.tools,
        contributor.operations,
        contributor.call,
        contributor.condition,
        contributor.source,
        contributor.origin,
        contributor.says,
    )
}

#[test]
fn the_command_rewrites_in_place_and_checks_without_writing() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let fixture = common::root().join("tests/fixtures/language1/code-review-10b4d203.contrib");
    let target = folder.path().join("review.contrib");
    std::fs::copy(&fixture, &target).expect("copy");
    std::fs::write(
        folder.path().join("contrib.toml"),
        "[lints]\nbudget-unused = \"warn\"\nplacement-not-for-kind = \"allow\" # old\n",
    )
    .expect("config");
    let contrib = |args: &[&str]| isolated::contrib_in(args, folder.path());
    let check = contrib(&["migrate", "--check", "."]);
    assert_eq!(check.status.code(), Some(1));
    let listed = String::from_utf8_lossy(&check.stdout).into_owned();
    assert!(
        listed.contains("review.contrib") && listed.contains("contrib.toml"),
        "{listed}"
    );
    assert_eq!(
        std::fs::read(&target).expect("untouched"),
        std::fs::read(&fixture).expect("fixture")
    );
    let run = contrib(&["migrate", "."]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let config = std::fs::read_to_string(folder.path().join("contrib.toml")).expect("config");
    assert_eq!(config, "[lints]\nbudget-unused = \"warn\"\n");
    let text = std::fs::read_to_string(&target).expect("migrated");
    assert!(text.contains("says [date, os, arch]"), "{text}");
    assert!(text.contains("# A reviewer's stance"), "comments are kept");
    let again = contrib(&["migrate", "--check", "."]);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
}

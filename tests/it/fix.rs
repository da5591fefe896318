//! `contrib check --fix`: safe fixes by default, unsafe ones only with
//! `--unsafe-fixes`, and a second run changes nothing.

use crate::common::isolated;

use std::path::{Path, PathBuf};
use std::process::Output;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A temporary folder holding a copy of `tests/fix/<name>` and the fixtures'
/// workspace configuration, so the copy is checked as the original would be.
struct Copy {
    _folder: tempfile::TempDir,
    manifest: PathBuf,
}

impl Copy {
    fn of(name: &str) -> Copy {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let manifest = folder.path().join(name);
        std::fs::copy(Path::new(ROOT).join("tests/fix").join(name), &manifest)
            .expect("the fixture copies");
        std::fs::copy(
            Path::new(ROOT).join("tests/rules/contrib.toml"),
            folder.path().join("contrib.toml"),
        )
        .expect("the workspace copies");
        Copy {
            _folder: folder,
            manifest,
        }
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.manifest).expect("the copy is readable")
    }

    /// Runs `contrib check ARGS… MANIFEST --format json`.
    fn check(&self, args: &[&str]) -> Checked {
        let output = isolated::output(
            isolated::contrib_command()
                .arg("check")
                .args(args)
                .arg(&self.manifest)
                .args(["--format", "json"]),
        );
        Checked::from(output)
    }
}

/// What a run reported.
struct Checked {
    status: Option<i32>,
    /// The names of the rules that fired, in order.
    names: Vec<String>,
}

impl From<Output> for Checked {
    fn from(output: Output) -> Self {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        let document: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {stderr}"));
        let names = document["diagnostics"]
            .as_array()
            .expect("a diagnostics array")
            .iter()
            .map(|diagnostic| diagnostic["name"].as_str().unwrap_or_default().to_string())
            .collect();
        Checked {
            status: output.status.code(),
            names,
        }
    }
}

/// The `budget N tokens` lines of a manifest.
fn budgets(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|line| line.starts_with("budget "))
        .collect()
}

#[test]
fn safe_fixes_correct_misspellings_and_leave_the_budget_alone() {
    let copy = Copy::of("typos.contrib");
    let before = copy.check(&[]);
    // A misspelt field is one diagnostic: it is not also reported missing.
    assert_eq!(before.names, ["unknown-field", "invalid-value"]);

    let fixed = copy.check(&["--fix"]);
    let text = copy.text();
    assert!(text.contains("        placement agent\n"), "{text}");
    assert!(text.contains("        priority agent\n"), "{text}");
    assert_eq!(
        budgets(&text),
        ["budget 5 tokens"],
        "a safe fix raised the budget"
    );
    // With the spelling fixed, the checker can read the stance and finds it
    // over its budget: an unsafe fix, so it is reported, not applied.
    assert_eq!(fixed.names, ["over-budget"]);
    assert_eq!(fixed.status, Some(1));

    let again = copy.check(&["--fix"]);
    assert_eq!(copy.text(), text, "a second --fix changed the file");
    assert_eq!(again.names, ["over-budget"]);
}

#[test]
fn unsafe_fixes_raise_the_budget_to_what_is_measured_and_then_check_clean() {
    let copy = Copy::of("typos.contrib");
    let fixed = copy.check(&["--fix", "--unsafe-fixes"]);
    assert!(fixed.names.is_empty(), "{:?}", fixed.names);
    assert_eq!(fixed.status, Some(0));
    let text = copy.text();
    assert!(text.contains("        placement agent\n"), "{text}");
    assert_eq!(budgets(&text), ["budget 15 tokens"]);

    let checked = copy.check(&[]);
    assert!(checked.names.is_empty(), "{:?}", checked.names);
    assert_eq!(checked.status, Some(0));

    copy.check(&["--fix", "--unsafe-fixes"]);
    assert_eq!(
        copy.text(),
        text,
        "a second --fix --unsafe-fixes changed the file"
    );
}

#[test]
fn a_clean_manifest_is_not_rewritten() {
    let copy = Copy::of("typos.contrib");
    copy.check(&["--fix", "--unsafe-fixes"]);
    let modified = std::fs::metadata(&copy.manifest)
        .and_then(|metadata| metadata.modified())
        .expect("a modification time");
    let text = copy.text();
    copy.check(&["--fix", "--unsafe-fixes"]);
    let after = std::fs::metadata(&copy.manifest)
        .and_then(|metadata| metadata.modified())
        .expect("a modification time");
    assert_eq!(copy.text(), text);
    assert_eq!(
        modified, after,
        "the file was written although nothing changed"
    );
}

#[test]
fn removing_an_unused_suppression_keeps_the_rules_still_in_use() {
    let copy = Copy::of("stale-suppressions.contrib");
    let before = copy.check(&[]);
    assert_eq!(before.names, ["unused-suppression"; 3]);

    let fixed = copy.check(&["--fix"]);
    assert!(fixed.names.is_empty(), "{:?}", fixed.names);
    let text = copy.text();
    // `over-budget` went from the shared suppression, which still
    // suppresses `budget-unused`.
    assert!(
        text.contains(
            "    # contrib: allow(budget-unused) -- approved at 10x for the Q3 rewrite\n"
        ),
        "{text}"
    );
    // The stale comments went with their lines and the spaces before them.
    assert!(!text.contains("stale"), "{text}");
    assert!(text.contains("        budget 40 tokens\n"), "{text}");
    assert!(
        !text.lines().any(|line| line.ends_with(' ')),
        "trailing spaces:\n{text}"
    );
    assert!(
        !text.contains("\n    \n"),
        "a blank line with spaces:\n{text}"
    );
}

#[test]
fn unsafe_fixes_need_fix() {
    let copy = Copy::of("typos.contrib");
    let output = isolated::output(
        isolated::contrib_command()
            .args(["check", "--unsafe-fixes"])
            .arg(&copy.manifest),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--fix"));
    assert!(copy.text().contains("placment"), "the file changed");
}

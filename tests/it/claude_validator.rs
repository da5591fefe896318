//! contrib held to Claude Code's own validator, `claude plugin validate`
//! (npm `@anthropic-ai/claude-code`, installed by
//! `tests/harness/claude-code.sh`): on every Claude Code plugin and
//! marketplace of the precision set's public collections
//! (`tests/data/precision/sources/`) and on the cases of
//! `tests/data/claude-validator/cases/` (one broken field, hook, server
//! or frontmatter each), no package the validator rejects passes
//! `contrib check`:
//!
//! - rejected as it is (`claude plugin validate`, exit 1): contrib reports
//!   an error in the package;
//! - rejected under `--strict`, which also fails on what the runtime
//!   tolerates: contrib reports a finding, error or warning (what
//!   `contrib check --deny-warnings` fails on), with the opt-in
//!   `catalog-metadata` raised, since `--strict` also wants a version, an
//!   author and a description.
//!
//! The binary is `$CONTRIB_CLAUDE_BIN`, else the one the harness script
//! installed under `target/harness/claude-code/`; `.ci/claude-code.sh`
//! installs it before the tests run.

use std::path::{Path, PathBuf};
use std::process::Command;

use contrib::diagnostic::{Diagnostic, Severity};
use contrib::import::check_in_place;

use crate::common::unavailable::cannot_run;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `claude` binary, or `None` after saying why it cannot be found.
fn claude() -> Option<PathBuf> {
    if let Some(explicit) = std::env::var_os("CONTRIB_CLAUDE_BIN") {
        return Some(PathBuf::from(explicit));
    }
    let installed = root().join("target/harness/claude-code");
    let found = std::fs::read_dir(&installed)
        .into_iter()
        .flatten()
        .flatten()
        .map(|version| version.path().join("node_modules/.bin/claude"))
        .filter(|binary| binary.is_file())
        .max();
    if found.is_none() {
        cannot_run(
            "Claude Code is not installed: run `bash tests/harness/claude-code.sh`, or set CONTRIB_CLAUDE_BIN",
        );
    }
    found
}

/// Whether the validator rejects the package.
fn rejects(claude: &Path, home: &Path, package: &Path, strict: bool) -> bool {
    let mut command = Command::new(claude);
    command.args(["plugin", "validate"]);
    if strict {
        command.arg("--strict");
    }
    let output = command
        .arg(package)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .output()
        .expect("the validator runs");
    !output.status.success()
}

/// Every diagnostic `contrib check` gives the package, under its own
/// workspace (`contrib.toml`, if the folder holds one).
fn contrib_findings(package: &Path) -> Vec<Diagnostic> {
    check_in_place(package)
        .expect("the package reads")
        .unwrap_or_default()
        .into_iter()
        .flat_map(|file| file.diagnostics)
        .collect()
}

/// The precision set's sources, extracted as `benches/precision.sh` does
/// (the other files as empty placeholders), into `into`.
fn extract_sources(into: &Path) -> Vec<PathBuf> {
    let data = root().join("tests/data/precision/sources");
    let mut trees = Vec::new();
    let mut archives: Vec<PathBuf> = std::fs::read_dir(&data)
        .expect("the precision sources")
        .flatten()
        .map(|entry| entry.path())
        .collect();
    archives.sort();
    for archive in archives {
        let name = archive
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.strip_suffix(".tar.gz"))
            .expect("a source archive")
            .to_string();
        let tree = into.join(&name);
        std::fs::create_dir_all(&tree).unwrap();
        let status = Command::new("tar")
            .arg("-xzf")
            .arg(&archive)
            .arg("-C")
            .arg(&tree)
            .status()
            .expect("tar runs");
        assert!(status.success(), "{} extracts", archive.display());
        let paths = std::fs::read_to_string(tree.join("PATHS")).unwrap();
        for path in paths.lines().filter(|path| !path.is_empty()) {
            let placeholder = tree.join(path);
            std::fs::create_dir_all(placeholder.parent().unwrap()).unwrap();
            std::fs::write(placeholder, "").unwrap();
        }
        std::fs::remove_file(tree.join("PATHS")).unwrap();
        trees.push(tree);
    }
    trees
}

/// The Claude Code packages under `tree`: folders holding
/// `.claude-plugin/plugin.json` or a marketplace.
fn packages(tree: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(tree) else {
        return;
    };
    let manifest = tree.join(".claude-plugin");
    let marketplace = std::fs::read_to_string(manifest.join("marketplace.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|value| value.get("plugins").is_some() || value.get("owner").is_some());
    if manifest.join("plugin.json").is_file() || marketplace {
        found.push(tree.to_path_buf());
    }
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .map(|entry| entry.path())
        .filter(|path| !path.ends_with(".claude-plugin") && !path.ends_with("node_modules"))
        .collect();
    folders.sort();
    for folder in folders {
        packages(&folder, found);
    }
}

#[test]
fn no_package_claude_code_rejects_passes_contrib_check() {
    let Some(claude) = claude() else { return };
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut all = Vec::new();
    // A copy, since the strict run writes a `contrib.toml` into each.
    let cases = scratch.path().join("cases");
    crate::common::copy_tree(&root().join("tests/data/claude-validator/cases"), &cases);
    let mut listed: Vec<PathBuf> = std::fs::read_dir(&cases)
        .expect("the cases")
        .flatten()
        .map(|entry| entry.path())
        .collect();
    listed.sort();
    all.extend(listed);
    for tree in extract_sources(&scratch.path().join("sources")) {
        packages(&tree, &mut all);
    }
    assert!(all.len() > 150, "{} packages", all.len());

    let strict_config = "[lints]\ncatalog-metadata = \"warn\"\n";
    let mut missed = Vec::new();
    let (mut rejected, mut rejected_strict) = (0, 0);
    for package in &all {
        let shown = package
            .strip_prefix(scratch.path())
            .or_else(|_| package.strip_prefix(root()))
            .unwrap_or(package)
            .display()
            .to_string();
        if rejects(&claude, &home, package, false) {
            rejected += 1;
            let findings = contrib_findings(package);
            if !findings.iter().any(|d| d.severity == Severity::Error) {
                missed.push(format!(
                    "{shown}: Claude Code rejects it; contrib: {findings:?}"
                ));
            }
        }
        if rejects(&claude, &home, package, true) {
            rejected_strict += 1;
            // The strict workspace: the package's own folder is the
            // workspace contrib discovers.
            let config = package.join("contrib.toml");
            let had_config = config.exists();
            if !had_config {
                std::fs::write(&config, strict_config).unwrap();
            }
            let findings = contrib_findings(package);
            if !had_config {
                std::fs::remove_file(&config).unwrap();
            }
            if findings.is_empty() {
                missed.push(format!(
                    "{shown}: `--strict` rejects it; contrib reports nothing"
                ));
            }
        }
    }
    eprintln!(
        "{} packages: Claude Code rejects {rejected}, {rejected_strict} under --strict",
        all.len()
    );
    assert!(
        rejected > 50 && rejected_strict > rejected,
        "the cases reject"
    );
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

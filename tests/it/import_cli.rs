//! `contrib import` as a person runs it: files written, the report printed,
//! and what `contrib check` then says about the written manifests.

use crate::common;
use crate::common::isolated;

use std::path::Path;
use std::process::Output;

fn contrib(args: &[&str], cwd: &Path) -> Output {
    isolated::output(
        isolated::contrib_command()
            .args(args)
            .current_dir(cwd)
            .env("NO_COLOR", "1"),
    )
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("folders are created");
    std::fs::write(path, text).expect("the file is written");
}

#[test]
fn imports_writes_reports_and_checks() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path();
    write(
        root,
        "kit/.claude-plugin/plugin.json",
        r#"{"name": "kit", "version": "1.2.0", "description": "A kit"}"#,
    );
    write(
        root,
        "kit/skills/notes/SKILL.md",
        "---\nname: notes\ndescription: Take notes.\n---\nWrite {notes}.\n",
    );
    write(
        root,
        "kit/hooks/hooks.json",
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}"#,
    );
    write(root, "kit/logo.png", "not really a png");

    let output = contrib(&["import", "auto", "kit", "-o", "out", "--report"], root);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(stdout.contains("## Import report"), "{stdout}");
    assert!(root.join("out/kit/kit.contrib").is_file());
    assert!(root.join("out/import-report.md").is_file());

    let checked = contrib(&["check", "out", "--format", "json"], root);
    assert_eq!(checked.status.code(), Some(1), "the hook stub is refused");
    let json: serde_json::Value =
        serde_json::from_slice(&checked.stdout).expect("check prints JSON");
    let names: Vec<&str> = json["diagnostics"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|diagnostic| diagnostic["name"].as_str())
        .collect();
    assert_eq!(names, ["unknown-tool"]);
}

#[test]
fn prints_manifests_without_an_output_folder() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write(dir.path(), "repo/AGENTS.md", "Use pnpm.\n");
    let output = contrib(
        &["import", "instructions", "repo", "--scope", "Acme"],
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(
        stdout.starts_with("# ==> acme/repo.contrib <==\n"),
        "{stdout}"
    );
    assert!(stdout.contains("plugin acme/repo 0.0.0 {"), "{stdout}");
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let missing = contrib(&["import", "auto", "nowhere"], dir.path());
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr),
        "error: cannot read `nowhere`: no such file or folder\n"
    );
    let owner = contrib(&["import", "auto", ".", "--owner", "boss"], dir.path());
    assert_eq!(owner.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&owner.stderr).contains("`boss` is not an owner"));
}

/// `contrib check` on a folder of native plugins, with no manifest in it:
/// the sources are checked in place, each diagnostic in its own file and
/// line, in every output format.
#[test]
fn check_reads_native_plugins_in_place() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path();
    write(
        root,
        "plugins/deploy/plugin.json",
        r#"{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "deploy"}"#,
    );
    write(
        root,
        "plugins/deploy/skills/ship/SKILL.md",
        "---\nname: shipit\ndescription: Ships it.\n---\nSee [notes](notes.md).\n",
    );
    let human = contrib(&["check", "--no-cache", "plugins"], root);
    let stdout = String::from_utf8_lossy(&human.stdout);
    let stderr = String::from_utf8_lossy(&human.stderr);
    // The package loads and only the skill is skipped: a warning, as the
    // standard classes it.
    assert_eq!(human.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("plugins/deploy/skills/ship/SKILL.md:2:1"),
        "{stdout}"
    );
    assert!(stdout.contains("invalid-skill(C0405)"), "{stdout}");
    assert!(stdout.contains("broken-link(C0407)"), "{stdout}");
    assert!(!stderr.contains("no manifests"), "{stderr}");
    assert!(
        stderr.contains("checked 2 files: 0 errors, 2 warnings"),
        "{stderr}"
    );

    let sarif = contrib(
        &["check", "--no-cache", "--format", "sarif", "plugins"],
        root,
    );
    let report: serde_json::Value = serde_json::from_slice(&sarif.stdout).expect("SARIF is JSON");
    assert_eq!(common::sarif_errors(&report), Vec::<String>::new());
    let results = report["runs"][0]["results"].as_array().expect("results");
    let located: Vec<(String, u64)> = results
        .iter()
        .map(|result| {
            let location = &result["locations"][0]["physicalLocation"];
            (
                location["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                location["region"]["startLine"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        located,
        [
            ("plugins/deploy/skills/ship/SKILL.md".to_string(), 2),
            ("plugins/deploy/skills/ship/SKILL.md".to_string(), 5)
        ]
    );
}

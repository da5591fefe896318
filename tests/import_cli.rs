//! `contrib import` as a person runs it: files written, the report printed,
//! and what `contrib check` then says about the written manifests.

mod isolated;

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

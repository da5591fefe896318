//! The README's commands, run as a reader would run them: the quick start
//! is what CI runs, and the first-manifest and author-to-conversation
//! walk-throughs work line by line with the binary this build made.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md")
}

/// The README from the heading `title` on.
fn section<'r>(readme: &'r str, title: &str) -> &'r str {
    let heading = format!("\n## {title}\n");
    &readme[readme
        .find(&heading)
        .unwrap_or_else(|| panic!("no section `{title}` in README.md"))..]
}

/// The lines of the first ```sh block under the heading `title`, comments
/// dropped.
fn commands_under(readme: &str, title: &str) -> Vec<String> {
    let section = section(readme, title);
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_else(|| panic!("no sh block under `{title}`"));
    block
        .lines()
        .map(|line| line.split(" #").next().unwrap_or(line).trim().to_string())
        .filter(|line| !line.is_empty())
        .collect()
}

/// Runs `line` with `sh`, the built `contrib` first on the `PATH`.
fn run(line: &str, folder: &Path) -> Output {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_contrib"));
    let path = std::env::join_paths(
        std::iter::once(binary.parent().expect("a folder").to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ),
    )
    .expect("a PATH");
    Command::new("sh")
        .args(["-c", line])
        .current_dir(folder)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .output()
        .expect("sh runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_quick_start_is_what_ci_runs() {
    let commands = commands_under(&readme(), "Quick start");
    assert_eq!(commands.len(), 2, "two commands: {commands:?}");
    let ci = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run"))
        .expect(".ci/run");
    let steps: Vec<String> = ci
        .lines()
        .filter_map(|line| line.strip_prefix("step "))
        .map(|step| step.replace(" -q", ""))
        .collect();
    for command in &commands {
        assert!(
            steps.contains(command),
            "`{command}` is in the README's quick start but not a step of .ci/run: {steps:?}"
        );
    }
}

#[test]
fn a_first_manifest_in_a_minute_runs_as_written() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let commands = commands_under(&readme(), "A first manifest in a minute");
    assert!(commands.len() >= 4, "{commands:?}");
    for command in &commands {
        let output = run(command, folder.path());
        assert_eq!(
            output.status.code(),
            Some(0),
            "`{command}`: {}",
            text(&output)
        );
    }
    assert!(folder.path().join("my-plugin/contrib.toml").is_file());
}

/// The sample diagnostic is what `contrib check` prints for the manifest
/// `contrib init` writes, with the one edit the README describes.
#[test]
fn the_sample_diagnostic_is_checks_own_for_the_manifest_init_writes() {
    const EDIT: &str = "body \"Address {person.name} by name.\"";
    let readme = readme();
    let section = section(&readme, "A first manifest in a minute");
    let section = &section[..section[1..]
        .find("\n## ")
        .map_or(section.len(), |end| end + 1)];
    let described = section
        .find(&format!("`{EDIT}`"))
        .expect("the README describes the edit");
    let sample = section[described..]
        .split("```\n")
        .nth(1)
        .expect("a ``` block with the sample diagnostic after the edit");
    let folder = tempfile::tempdir().expect("a temporary folder");
    let init = run("contrib init my-plugin", folder.path());
    assert!(init.status.success(), "{}", text(&init));
    let manifest = folder.path().join("my-plugin/my-plugin.contrib");
    let written = std::fs::read_to_string(&manifest).expect("the manifest `init` wrote");
    let edited: Vec<String> = written
        .lines()
        .map(|line| match line.trim_start().starts_with("body ") {
            true => format!("        {EDIT}"),
            false => line.to_string(),
        })
        .collect();
    assert_ne!(edited.join("\n") + "\n", written, "no body to edit");
    std::fs::write(&manifest, edited.join("\n") + "\n").expect("edited");
    let check = run("contrib check my-plugin", folder.path());
    assert_eq!(check.status.code(), Some(1), "{}", text(&check));
    assert_eq!(
        String::from_utf8_lossy(&check.stdout).trim_end(),
        sample.trim_end(),
        "the README's sample diagnostic is not what `contrib check` prints"
    );
}

#[test]
fn the_walk_through_from_author_to_conversation_runs_as_written() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let demo = folder.path().join("demo");
    std::fs::create_dir(&demo).expect("demo/");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let commands = commands_under(&readme(), "From author to conversation");
    assert!(
        commands
            .iter()
            .all(|command| !command.contains("/tmp/") || command.contains("/tmp/demo/")),
        "the walk-through writes only under /tmp/demo: {commands:?}"
    );
    let mut composed = String::new();
    let mut wire = String::new();
    for command in &commands {
        let command = command.replace("/tmp/demo/", &format!("{}/", demo.display()));
        let output = run(&command, root);
        assert_eq!(
            output.status.code(),
            Some(0),
            "`{command}`: {}",
            text(&output)
        );
        if command.starts_with("contrib compose") && command.contains("--wire") {
            wire = text(&output);
        } else if command.starts_with("contrib compose") {
            composed = text(&output);
        }
    }
    assert!(demo.join("ws/contrib.lock").is_file());
    assert!(
        composed.contains("acme/clock@2.0.0/started-at"),
        "the installed plugin reaches the conversation: {composed}"
    );
    assert!(
        wire.contains(r#""name":"get_current_time","type":"tool_use""#),
        "its eager run is a tool call in the request body: {wire}"
    );
    assert!(
        !root.join("examples/workspace/contrib.lock").exists(),
        "the walk-through wrote into the repository"
    );
}

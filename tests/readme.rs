//! The README's commands, run as a reader would run them: the quick start
//! is what CI runs, and the first-manifest and author-to-conversation
//! walk-throughs work line by line with the binary this build made.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md")
}

/// The lines of the first ```sh block under the heading `title`, comments
/// dropped.
fn commands_under(readme: &str, title: &str) -> Vec<String> {
    let heading = format!("\n## {title}\n");
    let section = &readme[readme
        .find(&heading)
        .unwrap_or_else(|| panic!("no section `{title}` in README.md"))..];
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

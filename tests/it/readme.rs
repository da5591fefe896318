//! The README's commands, run as a reader would run them: every install
//! line works today or says it works from the first release (the one that
//! works today is run, into a temporary folder), the quick start is what
//! CI runs, and the first-manifest and author-to-conversation
//! walk-throughs work as written with the binary this build made.

use crate::common::isolated;

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
    block_under(readme, title)
        .lines()
        .map(|line| line.split(" #").next().unwrap_or(line).trim().to_string())
        .filter(|line| !line.is_empty())
        .collect()
}

/// The first ```sh block under the heading `title`, as written.
fn block_under<'r>(readme: &'r str, title: &str) -> &'r str {
    section(readme, title)
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_else(|| panic!("no sh block under `{title}`"))
}

/// Runs `line` with `sh`, the built `contrib` first on the `PATH`.
fn run(line: &str, folder: &Path) -> Output {
    run_in(line, folder, &[])
}

/// Runs `script` with `sh` in `folder` with `env`, the built `contrib`
/// first on the `PATH`.
fn run_in(script: &str, folder: &Path, env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let binary = PathBuf::from(isolated::binary());
    let path = std::env::join_paths(
        std::iter::once(binary.parent().expect("a folder").to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ),
    )
    .expect("a PATH");
    isolated::output(
        Command::new("sh")
            .args(["-c", script])
            .current_dir(folder)
            .env("PATH", path)
            .env("NO_COLOR", "1")
            .env_remove("COLUMNS")
            .envs(env.iter().copied()),
    )
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

/// The walk-through runs as one shell script, as a reader pastes it: from
/// the clone's root, it makes a folder of its own with `mktemp -d` and
/// works there, writing nothing into the repository.
#[test]
fn the_walk_through_from_author_to_conversation_runs_as_written() {
    let readme = readme();
    let script = block_under(&readme, "From author to conversation");
    assert!(
        script.contains("mktemp -d") && !script.contains("/tmp/"),
        "the walk-through works in a folder of its own, not a fixed path: {script}"
    );
    let temporary = tempfile::tempdir().expect("a temporary folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = run_in(
        &format!("set -eu\n{script}\necho \"demo=$PWD\" >&2"),
        root,
        &[("TMPDIR", temporary.path().as_os_str())],
    );
    let all = text(&output);
    assert_eq!(output.status.code(), Some(0), "{all}");
    let demo = all
        .lines()
        .find_map(|line| line.strip_prefix("demo="))
        .map(PathBuf::from)
        .expect("the script's last folder");
    assert!(
        demo.starts_with(temporary.path()),
        "the walk-through worked in {}, not in a folder `mktemp -d` made",
        demo.display()
    );
    assert!(demo.join("ws/contrib.lock").is_file());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("acme/clock@2.0.0/started-at"),
        "the installed plugin reaches the conversation: {stdout}"
    );
    assert!(
        stdout.contains(r#""name":"get_current_time","type":"tool_use""#),
        "its eager run is a tool call in the request body: {stdout}"
    );
    assert!(
        !root.join("examples/workspace/contrib.lock").exists(),
        "the walk-through wrote into the repository"
    );
}

/// Every line of the install section works today or says it works from
/// the first release; the ones that work today are run, here by the
/// ignored test below, which `.ci/run` runs after its release build.
#[test]
fn every_install_line_works_today_or_says_from_the_first_release() {
    let readme = readme();
    let lines = block_under(&readme, "Install");
    let lines: Vec<&str> = lines
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    assert!(lines.len() >= 4, "{lines:?}");
    let today: Vec<&&str> = lines
        .iter()
        .filter(|line| !line.contains("# from the first release"))
        .collect();
    assert_eq!(
        today.len(),
        1,
        "one install line works today, from a clone; the others say they work from the first release: {lines:?}"
    );
    assert!(
        today[0].starts_with("cargo install --locked --path . "),
        "{today:?}"
    );
    assert!(
        readme.contains("the PyPI project named `contrib` is another tool"),
        "the README warns that PyPI's `contrib` is not this project"
    );
}

/// The install line that works today, run as written from the clone's
/// root, into a temporary `--root` (cargo's own option, added here so that
/// nothing outside the test's folder changes) and with this build's
/// target folder, so that it reuses the release build `.ci/run` has just
/// made instead of compiling everything again: `cargo test --test it
/// readme:: -- --ignored` after `cargo build --release`.
#[test]
#[ignore = "builds the release binary; .ci/run runs it after its release build"]
fn the_install_line_that_works_today_installs_a_working_contrib() {
    let readme = readme();
    let line = block_under(&readme, "Install")
        .lines()
        .find(|line| line.starts_with("cargo install --locked --path ."))
        .expect("the from-source line")
        .split(" #")
        .next()
        .expect("a command")
        .trim()
        .to_string();
    let home = tempfile::tempdir().expect("a temporary folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // target/debug/contrib: the target folder is two levels up.
    let binary = PathBuf::from(isolated::binary());
    let target = binary
        .parent()
        .and_then(Path::parent)
        .expect("the target folder");
    let started = std::time::Instant::now();
    let output = run_in(
        &format!("{line} --root \"$INSTALL_ROOT\""),
        root,
        &[
            ("INSTALL_ROOT", home.path().as_os_str()),
            ("CARGO_TARGET_DIR", target.as_os_str()),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "`{line}`: {}", text(&output));
    eprintln!("`{line}`: {:.1} s", started.elapsed().as_secs_f64());
    let installed = home.path().join("bin").join("contrib");
    let version = Command::new(&installed)
        .arg("--version")
        .output()
        .expect("the installed contrib runs");
    assert!(
        String::from_utf8_lossy(&version.stdout).contains(env!("CARGO_PKG_VERSION")),
        "{}",
        text(&version)
    );
}

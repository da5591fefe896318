//! What linters' users reach for, through the binary: standard input with
//! `--stdin-filename`, `--output-file`, `--fix --diff`, a baseline, a
//! workspace's `exclude`, and `--watch`.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{isolated, status, stderr, stdout, write, CLEAN};

/// A manifest with one misspelt field, which `--fix` corrects.
const MISSPELT: &str = "plugin acme/a 1.0.0 {\n    owner agent-author\n\n    text stance {\n        placment agent\n        budget 40 tokens\n        body \"Answer plainly.\"\n    }\n}\n";

/// A manifest whose body uses a variable its placement cannot share.
const TOO_WIDE: &str = "plugin acme/b 1.0.0 {\n    owner agent-author\n\n    text greeting {\n        placement agent\n        budget 40 tokens\n        body \"Address {person.name} by name.\"\n    }\n}\n";

/// `contrib ARGS…` run in `folder`, with `input` on standard input.
fn contrib_in(folder: &Path, args: &[&str], input: &str) -> Output {
    let cache = tempfile::tempdir().expect("a temporary folder");
    let mut command = isolated::contrib_command();
    command
        .args(args)
        .current_dir(folder)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    isolated::isolate(&mut command, cache.path());
    let mut child = command.spawn().expect("the contrib binary runs");
    let mut stdin = child.stdin.take().expect("a pipe");
    stdin.write_all(input.as_bytes()).expect("written");
    drop(stdin);
    child.wait_with_output().expect("it ends")
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}{}", stdout(output), stderr(output)))
}

#[test]
fn check_reads_standard_input_as_the_file_it_names() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let root = folder.path();
    // The workspace of `plugins/` lets `{person.name}` through nowhere, but
    // allows nothing else either: what matters is that it is the one used.
    write(
        root,
        "plugins/contrib.toml",
        b"[workspace]\nexclude = [\"drafts/\"]\n\n[lints]\nbudget-unused = \"deny\"\n",
    );
    let generous = CLEAN.replace(
        "    owner agent-author\n",
        "    owner agent-author\n\n    text stance {\n        placement agent\n        budget 4000 tokens\n        body \"Answer plainly.\"\n    }\n",
    );
    let named = [
        "check",
        "-",
        "--stdin-filename",
        "plugins/a.contrib",
        "--format",
        "json",
    ];
    let output = contrib_in(root, &named, &generous);
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    let document = json(&output);
    let diagnostic = &document["diagnostics"][0];
    assert_eq!(diagnostic["file"], "plugins/a.contrib");
    assert_eq!(diagnostic["name"], "budget-unused");
    assert_eq!(
        diagnostic["severity"], "error",
        "the `contrib.toml` beside the named path applies"
    );

    // Without a name: `<stdin>`, and the workspace of the working folder.
    let output = contrib_in(root, &["check", "-", "--format", "json"], &generous);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(json(&output)["diagnostics"][0]["file"], "<stdin>");
    let output = contrib_in(root, &["check", "-"], MISSPELT);
    assert!(
        stdout(&output).contains("[<stdin>:5:9]"),
        "{}",
        stdout(&output)
    );

    // A name the workspace excludes, or an ignore file lists, is not checked.
    write(root, ".contribignore", b"*.draft.contrib\n");
    for excluded in ["plugins/drafts/a.contrib", "plugins/a.draft.contrib"] {
        let output = contrib_in(
            root,
            &["check", "-", "--stdin-filename", excluded],
            MISSPELT,
        );
        assert_eq!(status(&output), 0, "{excluded}: {}", stdout(&output));
        assert_eq!(stdout(&output), "");
        assert!(
            stderr(&output).contains(&format!("not checking `{excluded}`")),
            "{}",
            stderr(&output)
        );
    }

    // Standard input is one input.
    let output = contrib_in(root, &["check", "-", "plugins"], "");
    assert_eq!(status(&output), 2);
    let output = contrib_in(
        root,
        &["check", "plugins", "--stdin-filename", "a.contrib"],
        "",
    );
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("give `-` as the path"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn fmt_reads_standard_input_as_the_file_it_names() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let root = folder.path();
    write(
        root,
        "contrib.toml",
        b"[workspace]\nexclude = [\"vendor/\"]\n",
    );
    let messy = CLEAN.replace("    owner", "owner");
    let output = contrib_in(
        root,
        &[
            "fmt",
            "-",
            "--diff",
            "--stdin-filename",
            "plugins/a.contrib",
        ],
        &messy,
    );
    assert_eq!(status(&output), 1);
    assert!(
        stdout(&output).starts_with("--- a/plugins/a.contrib\n+++ b/plugins/a.contrib\n"),
        "{}",
        stdout(&output)
    );
    let output = contrib_in(
        root,
        &["fmt", "-", "--stdin-filename", "plugins/a.contrib"],
        &messy,
    );
    assert_eq!((status(&output), stdout(&output)), (0, CLEAN.to_string()));
    // As prettier does, an excluded file comes back as it came.
    let output = contrib_in(
        root,
        &["fmt", "-", "--stdin-filename", "vendor/a.contrib"],
        &messy,
    );
    assert_eq!((status(&output), stdout(&output)), (0, messy));
}

#[test]
fn output_file_takes_the_result_and_the_count_stays_on_stderr() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let root = folder.path();
    write(root, "plugins/a.contrib", MISSPELT.as_bytes());
    write(root, "report.json", b"an older report, replaced whole");
    let output = contrib_in(
        root,
        &[
            "check",
            "plugins",
            "--format",
            "json",
            "--output-file",
            "report.json",
        ],
        "",
    );
    assert_eq!(status(&output), 1);
    assert_eq!(stdout(&output), "");
    assert_eq!(stderr(&output), "checked 1 file: 1 error, 0 warnings\n");
    let written = std::fs::read_to_string(root.join("report.json")).expect("the report");
    let document: serde_json::Value = serde_json::from_str(&written).expect("JSON");
    assert_eq!(document["diagnostics"][0]["name"], "unknown-field");
    // Human output into a file is never coloured, whatever the terminal.
    let output = contrib_in(
        root,
        &["check", "plugins", "--output-file", "report.txt"],
        "",
    );
    assert_eq!(status(&output), 1);
    let text = std::fs::read_to_string(root.join("report.txt")).expect("the report");
    assert!(text.starts_with("unknown-field(C0004)"), "{text}");
    assert!(!text.contains('\x1b'), "{text:?}");
    // A folder that does not exist is an error, not a lost report.
    let output = contrib_in(
        root,
        &["check", "plugins", "--output-file", "no/such/r.json"],
        "",
    );
    assert_eq!(status(&output), 2, "{}", stderr(&output));
}

#[test]
fn fix_diff_shows_the_fixes_and_writes_nothing() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let root = folder.path();
    let file = write(root, "plugins/a.contrib", MISSPELT.as_bytes());
    let output = contrib_in(root, &["check", "--fix", "--diff", "plugins"], "");
    assert_eq!(status(&output), 1, "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "--- a/plugins/a.contrib\n+++ b/plugins/a.contrib\n@@ -2,7 +2,7 @@\n     owner agent-author\n \n     text stance {\n-        placment agent\n+        placement agent\n         budget 40 tokens\n         body \"Answer plainly.\"\n     }\n"
    );
    assert!(
        stderr(&output).contains("would fix 1 problem in plugins/a.contrib: unknown-field"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read_to_string(&file).expect("read"), MISSPELT);
    // Standard input too.
    let output = contrib_in(
        root,
        &[
            "check",
            "-",
            "--fix",
            "--diff",
            "--stdin-filename",
            "plugins/a.contrib",
        ],
        MISSPELT,
    );
    assert_eq!(status(&output), 1);
    assert!(stdout(&output).contains("+        placement agent\n"));
    // Nothing to fix: exit 0, and no diff, even with errors left.
    write(root, "plugins/a.contrib", TOO_WIDE.as_bytes());
    let output = contrib_in(root, &["check", "--fix", "--diff", "plugins"], "");
    assert_eq!((status(&output), stdout(&output)), (0, String::new()));
    // `--diff` is a way of fixing.
    let output = contrib_in(root, &["check", "--diff", "plugins"], "");
    assert_eq!(status(&output), 2);
}

#[test]
fn a_baseline_holds_back_todays_findings_and_reports_new_ones() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let root = folder.path();
    write(root, "plugins/a.contrib", MISSPELT.as_bytes());
    write(root, "plugins/b.contrib", TOO_WIDE.as_bytes());
    std::fs::create_dir(root.join("ci")).expect("ci/");
    let record = [
        "check",
        "plugins",
        "--baseline",
        "ci/baseline.json",
        "--write-baseline",
    ];
    let output = contrib_in(root, &record, "");
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    assert_eq!(
        stderr(&output),
        "wrote ci/baseline.json: 2 findings in 2 files\n"
    );
    let baseline: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("ci/baseline.json")).expect("the baseline"),
    )
    .expect("JSON");
    assert_eq!(baseline["findings"][0]["file"], "../plugins/a.contrib");
    assert_eq!(baseline["findings"][0]["underlined"], "placment");

    // Lines move: nothing new. From another folder: the same files.
    let moved = MISSPELT.replace(
        "    owner agent-author\n",
        "    owner agent-author\n    summary \"Answers plainly\"\n\n",
    );
    write(root, "plugins/a.contrib", moved.as_bytes());
    let output = contrib_in(
        &root.join("plugins"),
        &["check", ".", "--baseline", "../ci/baseline.json"],
        "",
    );
    assert_eq!(status(&output), 0, "{}{}", stdout(&output), stderr(&output));
    assert_eq!(stdout(&output), "");
    assert_eq!(
        stderr(&output),
        "checked 2 files: no problems (2 findings in the baseline)\n"
    );

    // A new finding is reported alone; one fixed is counted as gone.
    let worse = moved.replace(
        "budget 40 tokens",
        "budget 40 tokens\n        placment agent",
    );
    write(root, "plugins/a.contrib", worse.as_bytes());
    write(root, "plugins/b.contrib", CLEAN.as_bytes());
    let output = contrib_in(
        root,
        &[
            "check",
            "plugins",
            "--baseline",
            "ci/baseline.json",
            "--format",
            "json",
        ],
        "",
    );
    assert_eq!(status(&output), 1);
    let document = json(&output);
    assert_eq!(document["errors"], 1, "{document}");
    assert_eq!(document["diagnostics"][0]["line"], 9, "{document}");
    assert_eq!(
        stderr(&output),
        "checked 2 files: 1 error, 0 warnings (1 finding in the baseline; 1 recorded finding no longer found: `--write-baseline` drops it)\n"
    );

    // A missing or foreign baseline stops the run.
    let output = contrib_in(root, &["check", "plugins", "--baseline", "none.json"], "");
    assert_eq!(status(&output), 2);
    write(root, "foreign.json", b"{\"version\": 7, \"findings\": []}");
    let output = contrib_in(
        root,
        &["check", "plugins", "--baseline", "foreign.json"],
        "",
    );
    assert_eq!(status(&output), 2);
    assert!(stderr(&output).contains("version 7"), "{}", stderr(&output));
}

#[test]
fn a_workspace_excludes_what_a_search_should_skip() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let root = folder.path();
    let broken = b"plugin acme/c 1.4 {\n}\n";
    write(
        root,
        "contrib.toml",
        b"[workspace]\nexclude = [\"plugins/drafts/\", \"*.wip.contrib\", \"!keep.wip.contrib\"]\n",
    );
    write(root, "plugins/a.contrib", CLEAN.as_bytes());
    write(root, "plugins/drafts/b.contrib", broken);
    write(root, "plugins/c.wip.contrib", broken);
    write(root, "plugins/keep.wip.contrib", CLEAN.as_bytes());
    // From the workspace, and from a folder below it.
    for (folder, path) in [(root.to_path_buf(), "plugins"), (root.join("plugins"), ".")] {
        let output = contrib_in(&folder, &["check", path, "--format", "json"], "");
        assert_eq!(status(&output), 0, "{}", stdout(&output));
        assert_eq!(json(&output)["files"], 2, "{path}");
    }
    // Named, an excluded file is checked.
    let output = contrib_in(root, &["check", "plugins/drafts/b.contrib"], "");
    assert_eq!(status(&output), 1);
    // Everything excluded: said, and a failure, as for an empty folder.
    let output = contrib_in(root, &["check", "plugins/drafts"], "");
    assert_eq!(status(&output), 2);
    assert!(
        stderr(&output).contains("`exclude` in `contrib.toml`"),
        "{}",
        stderr(&output)
    );
    // A pattern that is not a glob is a located diagnostic.
    write(
        root,
        "contrib.toml",
        b"[workspace]\nexclude = [\"drafts/{a\"]\n",
    );
    let output = contrib_in(root, &["check", "contrib.toml"], "");
    assert_eq!(status(&output), 1);
    assert!(
        stdout(&output).contains("`drafts/{a` is not a glob"),
        "{}",
        stdout(&output)
    );
}

/// Lines of a child's stream, as they come, through a channel.
fn lines(stream: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

/// A child process killed when the test ends, however it ends: a watch
/// runs until it is stopped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Reads `receiver` until a line contains `wanted`, returning every line
/// read; fails after a minute, naming what came.
fn until(receiver: &mpsc::Receiver<String>, wanted: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match receiver.recv_timeout(left) {
            Ok(line) => {
                let done = line.contains(wanted);
                seen.push(line);
                if done {
                    return seen;
                }
            }
            Err(_) => break,
        }
    }
    panic!("no line with `{wanted}` within a minute; got {seen:#?}");
}

#[test]
fn watch_checks_again_after_a_change() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let root = folder.path();
    let manifest = write(root, "plugins/a.contrib", CLEAN.as_bytes());
    let cache = tempfile::tempdir().expect("a temporary folder");
    let mut command = isolated::contrib_command();
    command
        .args(["check", "--watch", "plugins"])
        .current_dir(root)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    isolated::isolate(&mut command, cache.path());
    let mut child = Killed(command.spawn().expect("the contrib binary runs"));
    let out = lines(child.0.stdout.take().expect("a pipe"));
    let err = lines(child.0.stderr.take().expect("a pipe"));
    let first = until(&err, "watching for changes");
    assert!(
        first.contains(&"checked 1 file: no problems".to_string()),
        "{first:#?}"
    );
    // A change, as an editor saves it: a new file renamed over the old.
    let saved = root.join("plugins/.a.contrib.new");
    std::fs::write(&saved, MISSPELT).expect("written");
    std::fs::rename(&saved, &manifest).expect("renamed");
    let second = until(&err, "watching for changes");
    let shown = until(&out, "unknown-field(C0004)");
    drop(child);
    assert!(
        second.contains(&"`plugins/a.contrib` changed: checking again".to_string()),
        "{second:#?}"
    );
    assert!(
        second.contains(&"checked 1 file: 1 error, 0 warnings".to_string()),
        "{second:#?}"
    );
    assert_eq!(
        shown.last().map(String::as_str),
        Some("unknown-field(C0004)")
    );
    // What cannot be watched is refused before anything runs.
    let refused = super::contrib(&["check", "--watch", "-"]);
    assert_eq!(status(&refused), 2);
    let refused = super::contrib(&["check", "--watch", "--fix", "examples"]);
    assert_eq!(status(&refused), 2);
}

//! The `contrib` binary as CI and people run it: exit statuses, the JSON
//! document, and bad input refused with a clear message, never a panic.

use crate::common::isolated::{self, contrib};

mod check_options;

use std::path::Path;
use std::process::Output;

use crate::common::root;

fn status(output: &Output) -> i32 {
    output.status.code().expect("an exit code, not a signal")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn assert_no_panic(output: &Output) {
    let text = stdout(output) + &stderr(output);
    assert!(!text.contains("panicked"), "{text}");
    assert!(!text.contains("stack backtrace"), "{text}");
}

/// The JSON document `contrib check --format json PATH` writes.
fn json(path: &Path) -> (i32, serde_json::Value) {
    let output = contrib(&["check", "--format", "json", &path.to_string_lossy()]);
    assert_no_panic(&output);
    let document = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", stdout(&output)));
    (status(&output), document)
}

fn write(folder: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = folder.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("a folder");
    }
    std::fs::write(&path, bytes).expect("a file");
    path
}

const CLEAN: &str = "plugin acme/notes 1.0.0 {\n    owner agent-author\n}\n";

#[test]
fn the_examples_check_clean() {
    let output = contrib(&["check", "examples/code-review.contrib", "examples/"]);
    assert_eq!(status(&output), 0, "{}", stdout(&output));
    // The count is status, on stderr; the result (no diagnostics) is empty.
    assert_eq!(stdout(&output), "");
    assert!(
        stderr(&output).ends_with("no problems\n"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_broken_example_fails_with_its_diagnostic() {
    let output = contrib(&["check", "examples/broken/unknown-field.contrib"]);
    assert_eq!(status(&output), 1);
    let text = stdout(&output);
    assert!(text.contains("unknown-field(C0004)"), "{text}");
    assert!(
        text.contains("examples/broken/unknown-field.contrib:6:9"),
        "{text}"
    );
    assert!(text.contains("did you mean `placement`?"), "{text}");
    assert_eq!(stderr(&output), "checked 1 file: 1 error, 0 warnings\n");
    assert!(!text.contains('\u{1b}'), "no colour when not on a terminal");
}

#[test]
fn a_missing_file_is_a_one_line_error_and_status_2() {
    let output = contrib(&["check", "examples/no-such-file.contrib"]);
    assert_eq!(status(&output), 2);
    assert_no_panic(&output);
    assert_eq!(
        stderr(&output),
        "error: cannot read `examples/no-such-file.contrib`: no such file or folder\n"
    );
    assert_eq!(stdout(&output), "");
}

#[test]
fn usage_errors_are_status_2() {
    for args in [
        &["check"][..],
        &["check", "--format", "xml", "examples/"],
        &["frobnicate"],
    ] {
        let output = contrib(args);
        assert_eq!(status(&output), 2, "{args:?}");
        assert_no_panic(&output);
    }
}

#[test]
fn json_output_has_the_documented_shape() {
    let (code, document) = json(&root().join("examples/broken/invalid-version.contrib"));
    assert_eq!(code, 1);
    assert_eq!(document["files"], 1);
    assert_eq!(document["errors"], 1);
    assert_eq!(document["warnings"], 0);
    let diagnostic = &document["diagnostics"][0];
    for key in [
        "file",
        "line",
        "column",
        "end_line",
        "end_column",
        "severity",
        "code",
        "name",
        "message",
        "help",
    ] {
        assert!(diagnostic.get(key).is_some(), "no `{key}` in {diagnostic}");
    }
    assert_eq!(
        diagnostic["file"],
        "examples/broken/invalid-version.contrib"
    );
    assert_eq!(
        (&diagnostic["line"], &diagnostic["column"]),
        (&serde_json::json!(3), &serde_json::json!(25))
    );
    assert_eq!(
        (&diagnostic["end_line"], &diagnostic["end_column"]),
        (&serde_json::json!(3), &serde_json::json!(28))
    );
    assert_eq!(diagnostic["severity"], "error");
    assert_eq!(diagnostic["code"], "C0010");
    assert_eq!(diagnostic["name"], "invalid-version");
    assert_eq!(
        diagnostic["message"],
        "version `1.4` is not a semantic version"
    );
}

#[test]
fn json_output_for_clean_files_is_an_empty_list() {
    let (code, document) = json(&root().join("examples"));
    assert_eq!(code, 0);
    assert!(document["files"].as_u64().is_some_and(|files| files >= 7));
    assert_eq!(document["errors"], 0);
    assert_eq!(document["diagnostics"], serde_json::json!([]));
}

#[test]
fn deny_warnings_keeps_clean_files_clean_and_errors_failing() {
    // No language rule warns; the checker's warnings (such as
    // `budget-unused`) will exercise the other half of the flag.
    let clean = contrib(&["check", "--deny-warnings", "examples/"]);
    assert_eq!(status(&clean), 0, "{}", stdout(&clean));
    let broken = contrib(&[
        "check",
        "--deny-warnings",
        "examples/broken/missing-field.contrib",
    ]);
    assert_eq!(status(&broken), 1);
}

#[test]
fn an_empty_file_declares_no_plugin() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let (code, document) = json(&write(folder.path(), "empty.contrib", b""));
    assert_eq!(code, 1);
    assert_eq!(
        document["diagnostics"][0]["message"],
        "the file declares no plugin"
    );
}

#[test]
fn binary_garbage_is_refused_without_a_panic() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let garbage: Vec<u8> = (0..64 * 1024)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    let (code, document) = json(&write(folder.path(), "garbage.contrib", &garbage));
    assert_eq!(code, 1);
    assert_eq!(document["diagnostics"][0]["name"], "invalid-encoding");
    let (code, document) = json(&write(folder.path(), "nul.contrib", b"plugin \0"));
    assert_eq!(code, 1);
    assert_eq!(
        document["diagnostics"][0]["message"],
        "the file holds a NUL byte at byte 7"
    );
}

#[test]
fn invalid_utf8_names_the_byte_offset() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let mut bytes = CLEAN.as_bytes().to_vec();
    bytes.insert(30, 0xff);
    let path = write(folder.path(), "latin.contrib", &bytes);
    let (code, document) = json(&path);
    assert_eq!(code, 1);
    let diagnostic = &document["diagnostics"][0];
    assert_eq!(diagnostic["name"], "invalid-encoding");
    assert_eq!(
        diagnostic["message"],
        "the file is not valid UTF-8 at byte 30"
    );
    assert_eq!(
        (&diagnostic["line"], &diagnostic["column"]),
        (&serde_json::json!(2), &serde_json::json!(5))
    );
    let human = contrib(&["check", &path.to_string_lossy()]);
    assert!(
        stdout(&human).contains("not valid UTF-8 at byte 30"),
        "{}",
        stdout(&human)
    );
}

#[test]
fn a_file_over_4_mib_is_refused_clearly() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let mut bytes = CLEAN.as_bytes().to_vec();
    bytes.resize(contrib::limits::MAX_FILE_BYTES + 1, b'\n');
    let (code, document) = json(&write(folder.path(), "huge.contrib", &bytes));
    assert_eq!(code, 1);
    let diagnostic = &document["diagnostics"][0];
    assert_eq!(diagnostic["name"], "limit-exceeded");
    let message = diagnostic["message"].as_str().expect("a message");
    assert!(message.contains("over the limit of 4194304"), "{message}");
    // Exactly at the limit is read.
    bytes.truncate(contrib::limits::MAX_FILE_BYTES);
    let (code, _) = json(&write(folder.path(), "at-limit.contrib", &bytes));
    assert_eq!(code, 0);
}

#[test]
fn folders_are_searched_recursively_for_manifests_only() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    write(folder.path(), "a.contrib", CLEAN.as_bytes());
    write(folder.path(), "nested/deeper/b.contrib", CLEAN.as_bytes());
    write(
        folder.path(),
        "nested/c.contrib",
        b"plugin acme/c 1.4 {\n    owner operator\n}\n",
    );
    write(folder.path(), "nested/notes.txt", b"not a manifest {");
    let (code, document) = json(folder.path());
    assert_eq!(code, 1);
    assert_eq!(document["files"], 3);
    assert_eq!(document["errors"], 1);
    let file = document["diagnostics"][0]["file"]
        .as_str()
        .expect("a file name");
    assert!(file.ends_with("nested/c.contrib"), "{file}");
}

#[test]
fn a_search_skips_what_contribignore_lists() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let broken = b"plugin acme/c 1.4 {\n}\n";
    write(folder.path(), "plugins/a.contrib", CLEAN.as_bytes());
    write(folder.path(), "plugins/fixtures/bad.contrib", broken);
    write(folder.path(), "plugins/draft.contrib", broken);
    write(folder.path(), "plugins/notes.draft.contrib", broken);
    write(folder.path(), "plugins/generated/out.contrib", broken);
    write(folder.path(), "plugins/.hidden/x.contrib", broken);
    write(folder.path(), "node_modules/pkg/y.contrib", broken);
    write(folder.path(), ".gitignore", b"generated/\n");
    // The syntax of `.gitignore`: globs, folders, comments on their own lines.
    write(
        folder.path(),
        ".contribignore",
        b"# fixtures fail on purpose\nplugins/fixtures/\n\n# not yet\nplugins/draft.contrib\n*.draft.contrib\nno/such/folder\n",
    );
    // From the folder with the ignore file, and from one below it.
    for searched in [folder.path().to_path_buf(), folder.path().join("plugins")] {
        let (code, document) = json(&searched);
        assert_eq!(code, 0, "{searched:?}: {document}");
        assert_eq!(document["files"], 1, "{searched:?}");
    }
    // Named on the command line, an ignored path is checked.
    let (code, document) = json(&folder.path().join("plugins/fixtures"));
    assert_eq!((code, &document["files"]), (1, &serde_json::json!(1)));
    let (code, _) = json(&folder.path().join("plugins/draft.contrib"));
    assert_eq!(code, 1);
}

#[test]
fn the_broken_examples_fail_when_named() {
    let (code, document) = json(&root().join("examples/broken"));
    assert_eq!(code, 1);
    let count = language_rules().count() as u64;
    assert_eq!(document["files"].as_u64(), Some(count));
    assert_eq!(document["errors"].as_u64(), Some(count));
}

#[test]
fn explain_and_rules_describe_every_language_rule() {
    let rules = contrib(&["rules"]);
    assert_eq!(status(&rules), 0);
    for rule in language_rules() {
        assert!(
            stdout(&rules).contains(rule.name),
            "{} not listed",
            rule.name
        );
        let explain = contrib(&["explain", rule.code]);
        assert_eq!(status(&explain), 0);
        assert!(stdout(&explain).starts_with(&format!("# {} ({})", rule.name, rule.code)));
    }
    let unknown = contrib(&["explain", "unknown-feild"]);
    assert_eq!(status(&unknown), 2);
    assert_eq!(
        stderr(&unknown),
        "error: no rule is named `unknown-feild`; did you mean `unknown-field`?\n"
    );
}

/// The rules the language itself reports.
fn language_rules() -> impl Iterator<Item = &'static contrib::diagnostic::Rule> {
    contrib::codes::all()
        .iter()
        .copied()
        .filter(|rule| rule.kind == contrib::diagnostic::RuleKind::Language)
}

/// Progress is for a person at a terminal: when standard error is a pipe,
/// as here, long work draws nothing, so logs hold only the status lines.
#[test]
fn no_progress_is_drawn_into_a_pipe() {
    let examples: Vec<String> = std::fs::read_dir(root().join("examples"))
        .expect("examples/")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "contrib"))
        .map(|path| path.display().to_string())
        .collect();
    let out = tempfile::tempdir().expect("a temp folder");
    let mut build = vec!["build", "-o"];
    let folder = out.path().display().to_string();
    build.push(&folder);
    build.extend(examples.iter().map(String::as_str));
    for args in [vec!["check", "--no-cache", "examples/"], build] {
        let output = contrib(&args);
        assert!(output.status.success(), "{output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stderr.contains('\r') && !stderr.contains("\x1b["),
            "`contrib {}` drew progress into a pipe: {stderr:?}",
            args[0]
        );
        assert!(!stderr.contains("checking ") && !stderr.contains("building "));
    }
}

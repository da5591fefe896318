//! `contrib fmt` as a person runs it: files rewritten in place, `--check`,
//! `--diff`, standard input, refusals, exit statuses.

use crate::common::isolated::{self, contrib_in};

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Output, Stdio};

const FORMATTED: &str = "plugin acme/x 1.0.0 {\n    owner agent-author\n}\n";
const UNFORMATTED: &str = "plugin acme/x 1.0.0 {\r\n  owner   agent-author }";
const BROKEN: &str = "plugin acme/x 1.0.0 {\n    owner: agent-author\n}\n}\n";

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn rewrites_in_place_keeping_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.contrib");
    fs::write(&path, UNFORMATTED).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let output = contrib_in(&["fmt", "x.contrib"], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(fs::read_to_string(&path).unwrap(), FORMATTED);
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o640
    );
    // No temporary file is left behind.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn check_lists_files_that_would_change_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.contrib"), UNFORMATTED).unwrap();
    fs::write(dir.path().join("b.contrib"), FORMATTED).unwrap();
    let output = contrib_in(&["fmt", "--check", "."], dir.path());
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "./a.contrib\n");
    assert_eq!(
        fs::read_to_string(dir.path().join("a.contrib")).unwrap(),
        UNFORMATTED
    );

    let clean = contrib_in(&["fmt", "--check", "b.contrib"], dir.path());
    assert_eq!(clean.status.code(), Some(0));
    assert_eq!(stdout(&clean), "");
}

#[test]
fn diff_prints_a_unified_diff_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let unformatted = "plugin acme/x 1.0.0 {\n  owner   agent-author\n}\n";
    fs::write(dir.path().join("a.contrib"), unformatted).unwrap();
    let output = contrib_in(&["fmt", "--diff", "a.contrib"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "--- a/a.contrib\n+++ b/a.contrib\n@@ -1,3 +1,3 @@\n plugin acme/x 1.0.0 {\n-  owner   agent-author\n+    owner agent-author\n }\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("a.contrib")).unwrap(),
        unformatted
    );
}

#[test]
fn dash_formats_standard_input_to_standard_output() {
    let cache = tempfile::tempdir().unwrap();
    let mut command = isolated::contrib_command();
    isolated::isolate(&mut command, cache.path());
    let mut child = command
        .args(["fmt", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(UNFORMATTED.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), FORMATTED);
}

#[test]
fn dash_cannot_be_combined_with_paths() {
    let dir = tempfile::tempdir().unwrap();
    let output = contrib_in(&["fmt", "-", "x.contrib"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("cannot be combined"));
}

#[test]
fn a_syntax_error_is_shown_and_the_file_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("bad.contrib"), BROKEN).unwrap();
    fs::write(dir.path().join("good.contrib"), UNFORMATTED).unwrap();
    let output = contrib_in(&["fmt", "."], dir.path());
    assert_eq!(output.status.code(), Some(1));
    let shown = stderr(&output);
    assert!(shown.contains("syntax-error(C0001)"), "{shown}");
    assert!(shown.contains("bad.contrib:4:1"), "{shown}");
    assert_eq!(
        fs::read_to_string(dir.path().join("bad.contrib")).unwrap(),
        BROKEN
    );
    // The other file is still formatted.
    assert_eq!(
        fs::read_to_string(dir.path().join("good.contrib")).unwrap(),
        FORMATTED
    );
}

#[test]
fn bad_bytes_are_shown_like_check_shows_them() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("bin.contrib"), b"plugin \xff {}\n").unwrap();
    let output = contrib_in(&["fmt", "bin.contrib"], dir.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("not valid UTF-8 at byte 7"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_missing_file_is_a_usage_failure() {
    let dir = tempfile::tempdir().unwrap();
    let output = contrib_in(&["fmt", "missing.contrib"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: cannot read `missing.contrib`: no such file or folder\n"
    );
}

#[test]
fn a_read_only_file_is_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ro.contrib");
    fs::write(&path, UNFORMATTED).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let output = contrib_in(&["fmt", "ro.contrib"], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("permission denied"),
        "{}",
        stderr(&output)
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), UNFORMATTED);
}

#[test]
fn a_symbolic_link_found_in_a_folder_is_not_written_through() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("target.contrib");
    fs::write(&target, UNFORMATTED).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join("link.contrib")).unwrap();

    let output = contrib_in(&["fmt", "."], dir.path());
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not writing through the symbolic link"),
        "{}",
        stderr(&output)
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), UNFORMATTED);

    // `--check` only reads, so it looks through the link.
    let check = contrib_in(&["fmt", "--check", "."], dir.path());
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(stdout(&check), "./link.contrib\n");
}

#[test]
fn a_symbolic_link_named_on_the_command_line_formats_its_target() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("target.contrib");
    fs::write(&target, UNFORMATTED).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link.contrib");
    std::os::unix::fs::symlink(&target, &link).unwrap();

    let output = contrib_in(&["fmt", "link.contrib"], dir.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(fs::read_to_string(&target).unwrap(), FORMATTED);
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn the_examples_are_formatted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = contrib_in(&["fmt", "--check", "examples/"], root);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
}

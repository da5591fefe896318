//! What a newcomer hits first, run as they would run it: which stream each
//! line goes to, a closed pipe, `--color`, the width prose wraps at, what
//! `--fix` and `--deny-warnings` say, `import` of what it cannot read,
//! `diff` of the wrong pair, `simulate` of nobody, SARIF paths that need
//! encoding, help for every option, and the generated completions, man
//! pages and `init` scaffold.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::isolated::{self, contrib, contrib_in};
use crate::common::root;

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("an exit code, not a signal")
}

fn copy_into(folder: &Path, from: &str, name: &str) -> PathBuf {
    let to = folder.join(name);
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).expect("a folder");
    }
    std::fs::copy(root().join(from), &to).expect("the copy");
    to
}

// ---- streams: results on stdout, status on stderr ----

#[test]
fn check_writes_diagnostics_to_stdout_and_its_count_to_stderr() {
    let output = contrib(&["check", "examples/broken/unknown-field.contrib"]);
    assert_eq!(code(&output), 1);
    assert!(stdout(&output).contains("unknown-field(C0004)"));
    assert!(!stdout(&output).contains("checked 1 file"));
    assert_eq!(stderr(&output), "checked 1 file: 1 error, 0 warnings\n");
}

#[test]
fn build_keygen_sign_and_verify_say_what_they_did_on_stderr_only() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let out = folder.path().join("bundles");
    let build = contrib(&[
        "build",
        "examples/house-style.contrib",
        "-o",
        &out.to_string_lossy(),
    ]);
    assert_eq!(code(&build), 0, "{}", stderr(&build));
    assert_eq!(stdout(&build), "");
    assert!(stderr(&build).starts_with("built acme/house-style@1.0.0 → "));
    let key = folder.path().join("key");
    let bundle = out.join("acme/house-style/1.0.0.bundle.json");
    let bundle = bundle.to_string_lossy();
    for args in [
        vec!["keygen", "--out", &*key.to_string_lossy()],
        vec![
            "sign",
            &bundle,
            "--key",
            &*key.with_extension("key").to_string_lossy(),
        ],
        vec![
            "verify",
            &bundle,
            "--pubkey",
            &*key.with_extension("pub").to_string_lossy(),
        ],
    ]
    .iter()
    .map(|args| args.iter().map(ToString::to_string).collect::<Vec<_>>())
    {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = contrib(&args);
        assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
        assert_eq!(stdout(&output), "", "{args:?}");
        assert!(!stderr(&output).is_empty(), "{args:?} said nothing");
    }
}

#[test]
fn explain_and_rules_are_results_on_stdout() {
    for args in [&["explain", "budget-unused"][..], &["rules"]] {
        let output = contrib(args);
        assert_eq!(code(&output), 0);
        assert!(!stdout(&output).is_empty());
        assert_eq!(stderr(&output), "");
    }
}

// ---- a closed pipe ----

/// Runs `contrib ARGS` in `folder` with its output read one line and then
/// closed, as `| head -1` does.
fn read_one_line_and_close(folder: &Path, args: &[&str]) -> (Option<i32>, String) {
    let (mut child, _cache) = isolated::spawn(
        isolated::contrib_command()
            .args(args)
            .current_dir(folder)
            .env("NO_COLOR", "1")
            .env("RUST_BACKTRACE", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    reader.read_line(&mut line).expect("a line");
    drop(reader);
    let output = child.wait_with_output().expect("it ends");
    (output.status.code(), stderr(&output))
}

#[test]
fn a_closed_pipe_ends_import_quietly() {
    // Far more than a pipe holds (64 KiB), so the writes after the reader
    // has gone fail.
    let folder = tempfile::tempdir().expect("a temp folder");
    let body = "Read the whole diff before you comment on any line of it. ".repeat(20);
    for index in 0..200 {
        let skill = folder.path().join(format!("skills/skill-{index}"));
        std::fs::create_dir_all(&skill).expect("a folder");
        std::fs::write(
            skill.join("SKILL.md"),
            format!("---\nname: skill-{index}\ndescription: Reviews code.\n---\n{body}\n"),
        )
        .expect("write");
    }
    let (status, errors) = read_one_line_and_close(folder.path(), &["import", "auto", "skills"]);
    assert!(!errors.contains("Broken pipe"), "{errors}");
    assert!(!errors.contains("panicked"), "{errors}");
    assert!(!errors.contains("error"), "{errors}");
    assert_eq!(status, Some(0), "{errors}");
}

// ---- --color and the width ----

#[test]
fn color_always_colours_a_pipe_and_never_does_not() {
    let args = ["check", "examples/broken/unknown-field.contrib"];
    let always = contrib(&[&["--color", "always"][..], &args].concat());
    assert!(stdout(&always).contains("\u{1b}["), "{}", stdout(&always));
    let never = contrib(&[&args[..], &["--color=never"]].concat());
    assert!(!stdout(&never).contains('\u{1b}'));
    let auto = contrib(&args);
    assert!(
        !stdout(&auto).contains('\u{1b}'),
        "a pipe is not a terminal"
    );
    let bad = contrib(&[&args[..], &["--color", "sometimes"]].concat());
    assert_eq!(code(&bad), 2);
}

#[test]
fn prose_wraps_at_columns_without_breaking_a_code_span() {
    // A suppression without a reason: the help quotes the comment to
    // write, which must stay on one line at any width to be copied.
    let folder = tempfile::tempdir().expect("a temp folder");
    let manifest = copy_into(
        folder.path(),
        "tests/rules/budget-unused/fail.contrib",
        "m.contrib",
    );
    let text = std::fs::read_to_string(&manifest).expect("text");
    std::fs::write(
        &manifest,
        text.replace(
            "    text stance {",
            "    # contrib: allow(budget-unused)\n    text stance {",
        ),
    )
    .expect("write");
    let run = |columns: &str| {
        let output = isolated::output(
            isolated::contrib_command()
                .args(["check", "m.contrib"])
                .current_dir(folder.path())
                .env("NO_COLOR", "1")
                .env("COLUMNS", columns),
        );
        stdout(&output)
    };
    let narrow = run("40");
    let wide = run("200");
    assert!(narrow.contains("unused-suppression"), "{narrow}");
    assert!(
        narrow.lines().count() > wide.lines().count(),
        "COLUMNS was ignored:\n{narrow}"
    );
    assert!(
        narrow.contains("`# contrib: allow(rule) -- reason`"),
        "a code span broke across lines:\n{narrow}"
    );
}

#[test]
fn a_code_span_longer_than_the_width_stays_whole() {
    use contrib::codes::UNKNOWN_FIELD;
    use contrib::diagnostic::Diagnostic;
    use contrib::report::human::{Human, Style};
    use contrib::source::{SourceFile, Span};
    let source = SourceFile::new("m.contrib", "plugin acme/x 1.0.0 {\n}\n");
    let code = "`# contrib: allow(budget-unused) -- approved at four times for growth`";
    let diagnostic = Diagnostic::new(&UNKNOWN_FIELD, "a message")
        .primary(Span::new(0, 6), "here")
        .help(format!(
            "add {code} above the contributor, then check again"
        ));
    let text = Human::styled(Style {
        color: false,
        width: 40,
    })
    .render(&source, &diagnostic);
    assert!(text.contains(code), "{text}");
}

// ---- --fix and --deny-warnings say what happened ----

#[test]
fn fix_says_what_it_fixed() {
    let folder = tempfile::tempdir().expect("a temp folder");
    copy_into(folder.path(), "tests/fix/typos.contrib", "typos.contrib");
    copy_into(folder.path(), "tests/rules/contrib.toml", "contrib.toml");
    let output = contrib_in(&["check", "--fix", "--no-cache", "."], folder.path());
    let errors = stderr(&output);
    let line = errors
        .lines()
        .find(|line| line.starts_with("fixed "))
        .unwrap_or_else(|| panic!("--fix said nothing:\n{errors}"));
    assert!(line.contains("typos.contrib: "), "{line}");
    assert!(line.contains("unknown-field"), "{line}");
    assert!(
        errors.contains("fixed)"),
        "the count does not say how many were fixed:\n{errors}"
    );
}

#[test]
fn deny_warnings_says_why_it_failed() {
    let output = contrib(&[
        "check",
        "--deny-warnings",
        "tests/rules/budget-unused/fail.contrib",
    ]);
    assert_eq!(code(&output), 1);
    assert!(
        stderr(&output).contains("error: failing on 1 warning because of `--deny-warnings`"),
        "{}",
        stderr(&output)
    );
    let allowed = contrib(&["check", "tests/rules/budget-unused/fail.contrib"]);
    assert_eq!(code(&allowed), 0);
    assert!(!stderr(&allowed).contains("--deny-warnings"));
}

// ---- import ----

#[test]
fn import_of_a_file_it_cannot_read_is_an_error_that_names_it() {
    let folder = tempfile::tempdir().expect("a temp folder");
    std::fs::write(folder.path().join("notes.xyz"), "hello\n").expect("write");
    let output = contrib_in(&["import", "auto", "notes.xyz"], folder.path());
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("`notes.xyz`"),
        "{}",
        stderr(&output)
    );
    assert!(stderr(&output).starts_with("error: nothing in "));
}

#[test]
fn import_creates_the_out_folder_even_with_nothing_to_write() {
    let folder = tempfile::tempdir().expect("a temp folder");
    std::fs::write(folder.path().join("notes.xyz"), "hello\n").expect("write");
    contrib_in(
        &["import", "auto", "notes.xyz", "-o", "out/deeper"],
        folder.path(),
    );
    assert!(folder.path().join("out/deeper").is_dir());
}

#[test]
fn import_says_how_much_it_imported() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let skill = folder.path().join("skills/review");
    std::fs::create_dir_all(&skill).expect("a folder");
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: review\ndescription: Reviews code.\n---\nRead the diff first.\n",
    )
    .expect("write");
    std::fs::write(skill.join("logo.png"), [0u8, 1, 2]).expect("write");
    let output = contrib_in(&["import", "auto", "skills", "-o", "out"], folder.path());
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        stderr(&output).contains("imported skills: 1 manifest from 1 file, 1 file skipped"),
        "{}",
        stderr(&output)
    );
}

// ---- fmt ----

#[test]
fn fmt_refuses_a_syntax_error_that_lowering_finds() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let manifest = copy_into(
        folder.path(),
        "examples/broken/syntax-error.contrib",
        "m.contrib",
    );
    let before = std::fs::read(&manifest).expect("read");
    let output = contrib_in(&["fmt", "m.contrib"], folder.path());
    assert_eq!(code(&output), 1);
    assert!(
        stderr(&output).contains("syntax-error(C0001)"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read(&manifest).expect("read"), before);
}

// ---- diff ----

fn build_to(folder: &Path, manifest: &Path) -> PathBuf {
    let output = contrib_in(
        &[
            "build",
            &manifest.to_string_lossy(),
            "-o",
            &folder.join("dist").to_string_lossy(),
        ],
        folder,
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let line = stderr(&output);
    let path = line
        .split(" → ")
        .nth(1)
        .and_then(|rest| rest.split(" (").next())
        .expect("a built path");
    folder.join(path)
}

#[test]
fn diff_refuses_two_different_plugins() {
    let output = contrib(&[
        "diff",
        "examples/house-style.contrib",
        "examples/code-review.contrib",
    ]);
    assert_eq!(code(&output), 2, "{}", stdout(&output));
    assert!(
        stderr(&output).contains("are different plugins"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn diff_of_a_downgrade_needs_approval() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let new = copy_into(folder.path(), "examples/house-style.contrib", "new.contrib");
    let text = std::fs::read_to_string(&new).expect("read");
    let old = folder.path().join("old.contrib");
    std::fs::write(&old, text.replace("1.0.0", "0.9.0")).expect("write");
    copy_into(folder.path(), "examples/contrib.toml", "contrib.toml");
    let newer = build_to(folder.path(), &new);
    let older = build_to(folder.path(), &old);
    let output = contrib_in(
        &["diff", &newer.to_string_lossy(), &older.to_string_lossy()],
        folder.path(),
    );
    assert_eq!(code(&output), 3, "{}", stdout(&output));
    assert!(
        stdout(&output).contains("the version goes down from 1.0.0 to 0.9.0"),
        "{}",
        stdout(&output)
    );
    let upgrade = contrib_in(
        &["diff", &older.to_string_lossy(), &newer.to_string_lossy()],
        folder.path(),
    );
    assert_eq!(code(&upgrade), 0, "{}", stdout(&upgrade));
}

#[test]
fn diff_accepts_only_the_formats_it_writes() {
    for format in ["sarif", "github"] {
        let output = contrib(&[
            "diff",
            "--format",
            format,
            "examples/house-style.contrib",
            "examples/house-style.contrib",
        ]);
        assert_eq!(code(&output), 2, "{format}: {}", stdout(&output));
        assert!(
            stderr(&output).contains("invalid value"),
            "{}",
            stderr(&output)
        );
    }
}

// ---- simulate ----

#[test]
fn simulate_refuses_nobody_and_its_sums_do_not_drift() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let bundles = folder.path().join("bundles");
    let build = contrib(&[
        "build",
        "examples/house-style.contrib",
        "examples/code-review.contrib",
        "-o",
        &bundles.to_string_lossy(),
    ]);
    assert_eq!(code(&build), 0, "{}", stderr(&build));
    let bundles = bundles.to_string_lossy();
    for flag in ["--agents", "--persons", "--conversations", "--turns"] {
        let output = contrib(&["simulate", "--bundles", &bundles, flag, "0"]);
        assert_eq!(code(&output), 2, "{flag}");
        assert!(stderr(&output).contains("must be at least 1"), "{flag}");
        assert!(!stdout(&output).contains("-0"), "{flag}");
    }
    let output = contrib(&[
        "simulate",
        "--bundles",
        &bundles,
        "--profile",
        "openai",
        "--format",
        "json",
    ]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let layouts = report["layouts"].as_array().expect("layouts");
    assert!(!layouts.is_empty());
    for figures in layouts {
        let layout = figures["name"].as_str().expect("a name");
        // Costs are sums of prices in millionths: exact to the millionth.
        let cost = figures["input_cost"].as_f64().expect("cost");
        let millionths = cost * 1e6;
        assert!(
            (millionths - millionths.round()).abs() < 1e-3,
            "{layout}: {cost}"
        );
        // A mean of whole tokens times the number of requests is whole.
        let requests = figures["requests"].as_f64().expect("requests");
        for key in ["mean_request_tokens", "agent_prefix_tokens_per_request"] {
            let total = figures[key].as_f64().expect(key) * requests;
            assert!(
                (total - total.round()).abs() < 1e-6,
                "{layout}.{key}: {total}"
            );
        }
    }
}

// ---- SARIF ----

#[test]
fn sarif_uris_are_percent_encoded_and_validate_with_formats_on() {
    let folder = tempfile::tempdir().expect("a temp folder");
    copy_into(
        folder.path(),
        "examples/broken/unknown-field.contrib",
        "my plugins/50% #1 é.contrib",
    );
    let output = contrib_in(&["check", "--format", "sarif", "."], folder.path());
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let sarif: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let uri = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        ["artifactLocation"]["uri"];
    assert_eq!(uri, "my%20plugins/50%25%20%231%20%C3%A9.contrib");
    let errors = common::sarif_errors(&sarif);
    assert!(errors.is_empty(), "{errors:#?}");
    // The unencoded path is what the check used to write: it must fail the
    // same validation, or the test proves nothing.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"] = "my plugins/50% #1 é.contrib".into();
    assert!(
        !common::sarif_errors(&broken).is_empty(),
        "format checks are off"
    );
}

// ---- help ----

#[test]
fn every_option_and_argument_has_help() {
    let mut missing = Vec::new();
    walk(&contrib::cli::command(), "contrib", &mut missing);
    assert!(missing.is_empty(), "no help for: {missing:#?}");
}

fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
    if command.get_about().is_none() && path != "contrib" {
        missing.push(path.to_string());
    }
    for arg in command.get_arguments() {
        let id = arg.get_id().as_str();
        if arg.is_hide_set() || id == "help" || id == "version" {
            continue;
        }
        if arg.get_help().is_none() && arg.get_long_help().is_none() {
            missing.push(format!("{path} {id}"));
        }
    }
    for sub in command.get_subcommands() {
        if sub.get_name() != "help" {
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
}

// ---- completions, man pages, init ----

#[test]
fn completions_name_every_command_and_bash_parses_them() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = contrib(&["completions", shell]);
        assert_eq!(code(&output), 0, "{shell}");
        let script = stdout(&output);
        for command in ["check", "fmt", "import", "init", "diff"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
    }
    let folder = tempfile::tempdir().expect("a temp folder");
    let script = folder.path().join("contrib.bash");
    std::fs::write(&script, contrib(&["completions", "bash"]).stdout).expect("write");
    match Command::new("bash").arg("-n").arg(&script).output() {
        Ok(output) => assert!(output.status.success(), "{}", stderr(&output)),
        Err(_) => common::unavailable::cannot_run("bash is not installed"),
    }
}

#[test]
fn man_pages_cover_every_command() {
    let page = stdout(&contrib(&["man"]));
    assert!(page.contains(".TH contrib 1"), "{page}");
    assert!(page.contains("contrib\\-check(1)"), "no SEE ALSO for check");
    let folder = tempfile::tempdir().expect("a temp folder");
    let output = contrib(&["man", "--out", &folder.path().to_string_lossy()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    for name in [
        "contrib",
        "contrib-check",
        "contrib-catalog-check",
        "contrib-init",
    ] {
        let page = std::fs::read_to_string(folder.path().join(format!("{name}.1")))
            .unwrap_or_else(|_| panic!("no {name}.1"));
        assert!(page.contains(&format!(".TH {name} 1")), "{page}");
        assert!(page.contains(env!("CARGO_PKG_VERSION")), "{page}");
    }
    let check = std::fs::read_to_string(folder.path().join("contrib-check.1")).expect("page");
    assert!(check.contains("\\-\\-deny\\-warnings"), "{check}");
    assert!(
        check.contains("contrib check"),
        "the synopsis is not as typed: {check}"
    );
}

#[test]
fn init_scaffolds_a_workspace_that_checks_and_formats_clean() {
    let folder = tempfile::tempdir().expect("a temp folder");
    let workspace = folder.path().join("My Plugin");
    let output = contrib_in(&["init", "My Plugin"], folder.path());
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    let manifest = workspace.join("my-plugin.contrib");
    let text = std::fs::read_to_string(&manifest).expect("the manifest");
    assert!(text.contains("plugin local/my-plugin 0.1.0 {"), "{text}");
    let check = contrib_in(&["check", "--no-cache", ".", "contrib.toml"], &workspace);
    assert_eq!(code(&check), 0, "{}{}", stdout(&check), stderr(&check));
    assert_eq!(stderr(&check), "checked 2 files: no problems\n");
    let fmt = contrib_in(&["fmt", "--check", "."], &workspace);
    assert_eq!(code(&fmt), 0, "{}", stdout(&fmt));
    // A second init overwrites nothing.
    std::fs::write(&manifest, "kept").expect("write");
    let again = contrib_in(&["init", "My Plugin"], folder.path());
    assert_eq!(code(&again), 2);
    assert_eq!(std::fs::read_to_string(&manifest).expect("read"), "kept");
}

#[test]
fn check_reads_a_named_contrib_toml_as_configuration() {
    let folder = tempfile::tempdir().expect("a temp folder");
    std::fs::write(
        folder.path().join("contrib.toml"),
        "[workspace]\ntokeniser = \"o200k\"\n",
    )
    .expect("write");
    let output = contrib_in(&["check", "--no-cache", "contrib.toml"], folder.path());
    assert_eq!(code(&output), 1);
    let text = stdout(&output);
    assert!(text.contains("invalid-config(C0201)"), "{text}");
    assert!(text.contains("did you mean `tokenizer`?"), "{text}");
    assert!(!text.contains("syntax-error"), "read as a manifest: {text}");
    let clean = contrib(&["check", "examples/contrib.toml"]);
    assert_eq!(code(&clean), 0, "{}", stdout(&clean));
}

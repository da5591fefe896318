//! What ships around the binary, run for real: the GitHub Action's script
//! against the examples (SARIF validated with format checks on, and the
//! `diff` gate), the problem matcher against real output, and the
//! `contrib.toml` JSON Schema against every `contrib.toml` in the
//! repository.

use crate::common;
use crate::common::isolated;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::root;

/// The folder holding the `contrib` binary under test, for `PATH`.
fn binary_folder() -> PathBuf {
    Path::new(isolated::binary())
        .parent()
        .expect("a folder")
        .to_path_buf()
}

/// Runs `action/contrib-action.sh` in `folder` with `env`, the binary under
/// test first on the `PATH`; returns its output and what it wrote to
/// `GITHUB_OUTPUT`.
fn action(folder: &Path, env: &[(&str, &str)]) -> (Output, String) {
    let outputs = folder.join("github-output");
    std::fs::write(&outputs, "").expect("write");
    let path = std::env::join_paths(
        std::iter::once(binary_folder()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .expect("a PATH");
    let output = isolated::output(
        Command::new("bash")
            .arg(root().join("action/contrib-action.sh"))
            .current_dir(folder)
            .env("PATH", path)
            .env("GITHUB_OUTPUT", &outputs)
            .env("NO_COLOR", "1")
            .envs(env.iter().copied()),
    );
    let written = std::fs::read_to_string(&outputs).expect("the outputs");
    (output, written)
}

/// A temporary copy of the examples (manifests, `contrib.toml`, broken
/// ones), so that the check's cache is written there and not in the
/// repository.
fn examples_copy() -> tempfile::TempDir {
    let folder = tempfile::tempdir().expect("a temp folder");
    copy_tree(&root().join("examples"), &folder.path().join("examples"));
    folder
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("a folder") {
        let path = entry.expect("an entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("a copy");
        }
    }
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("the file")).expect("JSON")
}

fn have_bash() -> bool {
    let found = Command::new("bash").arg("--version").output().is_ok();
    if !found {
        common::unavailable::cannot_run("bash is not installed");
    }
    found
}

#[test]
fn the_action_checks_the_examples_into_sarif_that_validates() {
    if !have_bash() {
        return;
    }
    let folder = examples_copy();
    let (output, written) = action(
        folder.path(),
        &[
            ("CONTRIB_COMMAND", "check"),
            (
                "CONTRIB_PATHS",
                "examples/code-review.contrib examples/house-style.contrib examples/contrib.toml",
            ),
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(written.contains("sarif-file=contrib.sarif"), "{written}");
    let sarif = read_json(&folder.path().join("contrib.sarif"));
    let errors = common::sarif_errors(&sarif);
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
}

#[test]
fn the_action_reports_broken_examples_with_annotations_and_valid_sarif() {
    if !have_bash() {
        return;
    }
    let folder = examples_copy();
    let (output, written) = action(
        folder.path(),
        &[
            ("CONTRIB_COMMAND", "check"),
            ("CONTRIB_PATHS", "examples/broken"),
            ("CONTRIB_SARIF", "out.sarif"),
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(written.contains("sarif-file=out.sarif"), "{written}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("::error file=examples/broken/unknown-field.contrib,line=6,col=9"),
        "{stdout}"
    );
    let sarif = read_json(&folder.path().join("out.sarif"));
    let errors = common::sarif_errors(&sarif);
    assert!(errors.is_empty(), "{errors:#?}");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let files = std::fs::read_dir(root().join("examples/broken"))
        .expect("a folder")
        .count();
    assert!(results.len() >= files, "{} results", results.len());
}

#[test]
fn the_action_gates_on_a_diff_that_needs_approval() {
    if !have_bash() {
        return;
    }
    let folder = examples_copy();
    let old = folder.path().join("examples/house-style.contrib");
    let text = std::fs::read_to_string(&old).expect("read");
    assert!(text.contains("budget 190 tokens"), "the example changed");
    let new = folder.path().join("examples/house-style-next.contrib");
    // A larger budget: what a person approved no longer covers it.
    std::fs::write(
        &new,
        text.replacen("budget 190 tokens", "budget 400 tokens", 1)
            .replacen("1.0.0", "1.1.0", 1),
    )
    .expect("write");
    let (output, written) = action(
        folder.path(),
        &[
            ("CONTRIB_COMMAND", "diff"),
            ("CONTRIB_OLD", "examples/house-style.contrib"),
            ("CONTRIB_NEW", "examples/house-style-next.contrib"),
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stdout}{stderr}");
    assert!(written.contains("needs-approval=true"), "{written}");
    assert!(stdout.contains("needs approval:"), "{stdout}");
    assert!(stdout.contains("::error title=contrib diff::"), "{stdout}");
    let (same, written) = action(
        folder.path(),
        &[
            ("CONTRIB_COMMAND", "diff"),
            ("CONTRIB_OLD", "examples/house-style.contrib"),
            ("CONTRIB_NEW", "examples/house-style.contrib"),
        ],
    );
    assert_eq!(same.status.code(), Some(0));
    assert!(written.contains("needs-approval=false"), "{written}");
}

/// One problem as GitHub's runner would read it from a log line by line.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Matched {
    severity: String,
    file: String,
    line: u64,
    column: u64,
    code: String,
}

/// Applies `.github/contrib-matcher.json` to `log` as the runner does:
/// each matcher's patterns must match consecutive lines.
fn apply_matcher(log: &str) -> Vec<Matched> {
    let document: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join(".github/contrib-matcher.json")).expect("matcher"),
    )
    .expect("JSON");
    let lines: Vec<&str> = log.lines().collect();
    let mut found = Vec::new();
    for matcher in document["problemMatcher"].as_array().expect("matchers") {
        let patterns: Vec<(regex::Regex, &serde_json::Value)> = matcher["pattern"]
            .as_array()
            .expect("patterns")
            .iter()
            .map(|pattern| {
                let regexp = pattern["regexp"].as_str().expect("a regexp");
                (regex::Regex::new(regexp).expect("a regex"), pattern)
            })
            .collect();
        for start in 0..lines.len() {
            let mut matched = Matched {
                severity: matcher["severity"].as_str().expect("severity").into(),
                file: String::new(),
                line: 0,
                column: 0,
                code: String::new(),
            };
            let all = patterns
                .iter()
                .enumerate()
                .all(|(offset, (regex, pattern))| {
                    let Some(captures) = lines.get(start + offset).and_then(|l| regex.captures(l))
                    else {
                        return false;
                    };
                    let group = |key: &str| {
                        pattern[key]
                            .as_u64()
                            .and_then(|index| captures.get(index as usize))
                            .map(|m| m.as_str().to_string())
                    };
                    if let Some(file) = group("file") {
                        matched.file = file;
                    }
                    if let Some(line) = group("line") {
                        matched.line = line.parse().expect("a line");
                    }
                    if let Some(column) = group("column") {
                        matched.column = column.parse().expect("a column");
                    }
                    if let Some(code) = group("code") {
                        matched.code = code;
                    }
                    true
                });
            if all {
                found.push(matched);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn the_problem_matcher_reads_every_diagnostic_of_the_human_report() {
    let folder = examples_copy();
    let run = |format: &str| {
        isolated::output(
            isolated::contrib_command()
                .args(["check", "--no-cache", "--format", format, "examples/broken"])
                .current_dir(folder.path())
                .env("NO_COLOR", "1")
                .env("COLUMNS", "400"),
        )
    };
    let human = String::from_utf8(run("human").stdout).expect("UTF-8");
    let document: serde_json::Value = serde_json::from_slice(&run("json").stdout).expect("JSON");
    let mut expected = Vec::new();
    for diagnostic in document["diagnostics"].as_array().expect("diagnostics") {
        if diagnostic["labels"].as_array().is_none_or(Vec::is_empty) {
            continue;
        }
        expected.push(Matched {
            severity: diagnostic["severity"].as_str().expect("severity").into(),
            file: diagnostic["file"].as_str().expect("file").into(),
            line: diagnostic["line"].as_u64().expect("line"),
            column: diagnostic["column"].as_u64().expect("column"),
            code: diagnostic["code"].as_str().expect("code").into(),
        });
    }
    expected.sort();
    assert!(!expected.is_empty());
    assert_eq!(apply_matcher(&human), expected, "{human}");
}

/// Every `contrib.toml` under `folder`, skipping build output.
fn config_files(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).expect("a folder") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("");
        if path.is_dir() {
            if !matches!(name, "target" | ".git" | "node_modules") {
                config_files(&path, found);
            }
        } else if name == "contrib.toml" {
            found.push(path);
        }
    }
}

fn config_schema() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/contrib-toml.schema.json")).expect("schema"),
    )
    .expect("JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles")
}

fn schema_errors(validator: &jsonschema::Validator, text: &str) -> Vec<String> {
    let value: toml::Value = toml::from_str(text).expect("TOML");
    let instance = serde_json::to_value(value).expect("JSON");
    validator
        .iter_errors(&instance)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect()
}

#[test]
fn every_contrib_toml_in_the_repository_validates_against_the_schema() {
    let validator = config_schema();
    let mut files = Vec::new();
    config_files(&root(), &mut files);
    assert!(files.len() >= 4, "{files:?}");
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read");
        let errors = schema_errors(&validator, &text);
        assert!(errors.is_empty(), "{}: {errors:#?}", file.display());
    }
    let scaffold = schema_errors(&validator, contrib::cli::SCAFFOLD_CONFIG);
    assert!(scaffold.is_empty(), "contrib init's: {scaffold:#?}");
    let platform = schema_errors(
        &validator,
        &std::fs::read_to_string(root().join("crates/contrib-core/src/config/default.toml"))
            .expect("read"),
    );
    assert!(platform.is_empty(), "the platform's: {platform:#?}");
}

/// `contrib init` points editors at the schema with taplo's `#:schema`
/// directive, on its first line, at the address the schema says is its own.
#[test]
fn init_points_editors_at_the_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/contrib-toml.schema.json")).expect("schema"),
    )
    .expect("JSON");
    assert_eq!(schema["$id"], contrib::cli::SCHEMA_URL);
    assert_eq!(
        contrib::cli::SCAFFOLD_CONFIG.lines().next(),
        Some(format!("#:schema {}", contrib::cli::SCHEMA_URL).as_str())
    );
}

#[test]
fn the_schema_refuses_what_contrib_check_refuses() {
    let validator = config_schema();
    for text in [
        "[workspace]\ntokeniser = \"o200k\"\n",
        "[workspace]\ntokenizer = \"gpt2\"\n",
        "[workspace]\nsystem_prompt_share = 1.5\n",
        "[workspace]\nexclude = \"drafts/\"\n",
        "[workspace]\nexclude = [1]\n",
        "[egress]\nallow = [\"https://docs.acme.dev\"]\n",
        "[tools.search]\nparams = { q = \"string\" }\n",
        "[tools.search]\neffect = \"reads\"\n",
        "[tools.search]\neffect = \"read\"\nparams = { q = \"text\" }\n",
        "[skills.review]\nversion = \"2.3\"\n",
        "[lints]\nbudget-unused = \"ignore\"\n",
        "[unknown]\n",
    ] {
        assert!(
            !schema_errors(&validator, text).is_empty(),
            "the schema accepts {text:?}"
        );
        let config = contrib::config::Config::from_source(contrib::source::SourceFile::new(
            "contrib.toml",
            text,
        ));
        assert!(
            config.1.iter().any(|diagnostic| diagnostic.is_error()),
            "`contrib check` accepts {text:?}"
        );
    }
}

/// `rust-version` in `Cargo.toml` is at least what every locked
/// dependency declares: a dependency update that needs a newer compiler
/// fails here instead of on a user's machine. (That 1.88 builds, and 1.87
/// is refused, was checked with `cargo +1.88.0 check --locked
/// --all-targets`; see CONTRIBUTING.md.)
#[test]
fn rust_version_covers_every_locked_dependency() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo runs");
    if !output.status.success() {
        common::unavailable::cannot_run(&format!(
            "cargo metadata failed offline (`cargo fetch` downloads every platform's dependencies): {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
        return;
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let version = |text: &str| -> semver::Version {
        let parts: Vec<&str> = text.split('.').collect();
        semver::Version::parse(&format!(
            "{}.{}.{}",
            parts[0],
            parts.get(1).unwrap_or(&"0"),
            parts.get(2).unwrap_or(&"0")
        ))
        .expect("a version")
    };
    let packages = metadata["packages"].as_array().expect("packages");
    let ours = packages
        .iter()
        .find(|package| package["name"] == "contrib" && package["source"].is_null())
        .and_then(|package| package["rust_version"].as_str())
        .map(version)
        .expect("contrib's rust-version");
    let needed = packages
        .iter()
        .filter(|package| !package["source"].is_null())
        .filter_map(|package| {
            let declared = package["rust_version"].as_str()?;
            Some((version(declared), package["name"].as_str()?.to_string()))
        })
        .max()
        .expect("dependencies with a rust-version");
    assert!(
        ours >= needed.0,
        "rust-version {ours} is below what `{}` needs ({})",
        needed.1,
        needed.0
    );
}

/// The root crate's integration tests are one binary, `it`
/// (CONTRIBUTING.md, "Tests"): a file added directly under `tests/` would
/// be a test binary of its own, linked apart.
#[test]
fn the_root_crate_has_one_integration_test_target() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let ours = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|package| package["name"] == "contrib")
        .expect("the contrib package");
    let tests: Vec<&str> = ours["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .filter(|target| {
            target["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.contains(&"test".into()))
        })
        .filter_map(|target| target["name"].as_str())
        .collect();
    assert_eq!(
        tests,
        ["it"],
        "move new test files into tests/it/ as modules"
    );
}

/// What pre-commit installs (the root's `pyproject.toml`) and what the
/// Action installs (`action.yml`'s `version`) are this version, so that
/// `rev: vX.Y.Z` and `contrib-lang/contrib@vX.Y.Z` run X.Y.Z; and the
/// hooks' package compiles nothing: it is the `contrib-lang` wheel alone.
#[test]
fn the_hooks_and_the_action_install_this_version_without_compiling() {
    let version = env!("CARGO_PKG_VERSION");
    let read = |name: &str| std::fs::read_to_string(root().join(name)).expect(name);
    let hooks_package = read("pyproject.toml");
    assert!(
        hooks_package.contains(&format!("\nversion = \"{version}\"\n"))
            && hooks_package.contains(&format!("dependencies = [\"contrib-lang=={version}\"]")),
        "pyproject.toml (pre-commit's package) pins contrib-lang {version}:\n{hooks_package}"
    );
    assert!(
        !hooks_package.contains("maturin") && hooks_package.contains("packages = []"),
        "pre-commit's package builds nothing:\n{hooks_package}"
    );
    let wheel = read("pypi/pyproject.toml");
    assert!(wheel.contains("name = \"contrib-lang\"") && wheel.contains("bindings = \"bin\""));
    let hooks = read(".pre-commit-hooks.yaml");
    let languages: Vec<&str> = hooks
        .lines()
        .filter_map(|line| line.trim().strip_prefix("language: "))
        .collect();
    assert_eq!(languages, ["python"; 3], "{hooks}");
    let action = read("action.yml");
    let inputs = &action[action.find("\n  version:\n").expect("a version input")..];
    let default = inputs
        .lines()
        .find_map(|line| line.trim().strip_prefix("default: "))
        .expect("a default version");
    assert_eq!(
        default,
        format!("\"{version}\""),
        "action.yml installs {version}"
    );
    assert!(
        action.contains("action/install.sh") && !action.contains("pip install"),
        "the Action installs the release binary, not a Python package"
    );
}

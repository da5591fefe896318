//! Every rule that `[lints]` can change has fixtures under `tests/rules/`:
//!
//! ```text
//! tests/rules/contrib.toml                   the workspace the fixtures share
//! tests/rules/<rule-name>/fail.contrib       must trigger the rule
//! tests/rules/<rule-name>/fail-<case>.contrib  another case that must trigger it
//! tests/rules/<rule-name>/pass.contrib       its fixed twin: no diagnostic at all
//! tests/rules/<rule-name>/contrib.toml       optional: a workspace of its own
//! tests/rules/<rule-name>/fail.snap          every diagnostic of `fail.contrib`, rendered
//! ```
//!
//! A `fail-warning` or `fail-error` fixture must trigger its rule at that
//! severity; any other `fail` fixture at the rule's default level. Rules of
//! the configuration have `fail.toml` and `pass.toml` instead, and a
//! `manifest.contrib` that checks clean with `pass.toml`.
//!
//! New snapshots are reviewed before they are accepted (`cargo insta
//! review`, or `INSTA_UPDATE=always` and `git diff`): a wrong span, a
//! message that confuses or a help that does not say how to fix is a bug in
//! the rule, not in the snapshot.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use contrib::config::{self, Config};
use contrib::diagnostic::{Diagnostic, Rule, RuleKind, Severity};
use contrib::report::human::Human;
use contrib::source::SourceFile;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rules")
}

/// The checker's and the configuration's rules, which have fixtures here
/// (the language's have theirs in `examples/broken/`).
fn configurable_rules() -> Vec<&'static Rule> {
    contrib::codes::all()
        .iter()
        .copied()
        .filter(|rule| {
            matches!(
                rule.kind,
                RuleKind::Lint | RuleKind::Policy | RuleKind::Config
            )
        })
        .collect()
}

/// What a fixture must produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// The rule fires, every time at this severity.
    Fires(Severity),
    /// Nothing fires at all.
    Clean,
}

/// One fixture file and what it must produce.
struct Fixture {
    rule: &'static Rule,
    path: PathBuf,
    expect: Expect,
}

impl Fixture {
    /// `rule-name/fail.contrib`, as shown in reports and snapshots.
    fn name(&self) -> String {
        let file = self.path.file_name().unwrap_or_default().to_string_lossy();
        format!("{}/{file}", self.rule.name)
    }

    fn stem(&self) -> String {
        self.path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    }

    fn is_config(&self) -> bool {
        self.path
            .extension()
            .is_some_and(|extension| extension == "toml")
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.path)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", self.path.display()))
    }

    /// The fixture as a source, and every diagnostic it produces.
    fn run(&self) -> (SourceFile, Vec<Diagnostic>) {
        let source = SourceFile::new(self.name(), self.text());
        if self.is_config() {
            let (_, diagnostics) = Config::from_source(source.clone());
            return (source, diagnostics);
        }
        let config = workspace(self.path.parent().unwrap_or(Path::new(".")));
        let analysis = contrib::analyze(&source, &config);
        (source, analysis.diagnostics)
    }
}

/// The configuration a manifest in `folder` is checked with: the nearest
/// `contrib.toml`, which must itself be valid.
fn workspace(folder: &Path) -> Config {
    let path = config::discover(folder)
        .unwrap_or_else(|| panic!("no contrib.toml at or above {}", folder.display()));
    let (config, diagnostics) = Config::load(&path).unwrap_or_else(|error| panic!("{error}"));
    let messages: Vec<&str> = diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(messages.is_empty(), "{}: {messages:?}", path.display());
    config
}

/// What a fixture named `stem` must produce for `rule`.
fn expectation(rule: &Rule, stem: &str) -> Option<Expect> {
    let default = rule.default_level.severity().unwrap_or(Severity::Warning);
    match stem {
        "pass" => Some(Expect::Clean),
        "fail-warning" => Some(Expect::Fires(Severity::Warning)),
        "fail-error" => Some(Expect::Fires(Severity::Error)),
        _ if stem == "fail" || stem.starts_with("fail-") => Some(Expect::Fires(default)),
        _ => None,
    }
}

/// The fixtures of `rule`, in name order; files that are neither fixtures
/// nor their snapshots are an error, so a misnamed fixture is never skipped.
fn fixtures_of(rule: &'static Rule) -> Result<Vec<Fixture>, String> {
    let folder = root().join(rule.name);
    let fixture_extension = match rule.kind {
        RuleKind::Config => "toml",
        _ => "contrib",
    };
    let entries = std::fs::read_dir(&folder).map_err(|error| {
        format!(
            "{}: no fixture folder `{}`: {error}",
            rule.name,
            folder.display()
        )
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    let mut found = Vec::new();
    for path in paths {
        let file = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let extension = path
            .extension()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let stem = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if extension == "snap" || file == config::FILE_NAME {
            continue;
        }
        if rule.kind == RuleKind::Config && file == "manifest.contrib" {
            continue;
        }
        let expect = (extension == fixture_extension)
            .then(|| expectation(rule, &stem))
            .flatten()
            .ok_or_else(|| format!("{}: `{file}` is not a fixture (fail*.{fixture_extension} or pass.{fixture_extension})", rule.name))?;
        found.push(Fixture { rule, path, expect });
    }
    Ok(found)
}

fn all_fixtures() -> Vec<Fixture> {
    configurable_rules()
        .into_iter()
        .flat_map(|rule| fixtures_of(rule).unwrap_or_else(|error| panic!("{error}")))
        .collect()
}

/// Panics listing every problem, or returns when there is none.
fn assert_none(what: &str, problems: &[String]) {
    assert!(problems.is_empty(), "{what}:\n  {}", problems.join("\n  "));
}

#[test]
fn every_configurable_rule_has_fail_and_pass_fixtures() {
    let mut problems = Vec::new();
    for rule in configurable_rules() {
        match fixtures_of(rule) {
            Err(error) => problems.push(error),
            Ok(fixtures) => {
                if !fixtures.iter().any(|fixture| fixture.stem() == "fail") {
                    problems.push(format!("{}: no `fail` fixture", rule.name));
                }
                if !fixtures
                    .iter()
                    .any(|fixture| fixture.expect == Expect::Clean)
                {
                    problems.push(format!("{}: no `pass` fixture", rule.name));
                }
                let manifest = root().join(rule.name).join("manifest.contrib");
                if rule.kind == RuleKind::Config && !manifest.is_file() {
                    problems.push(format!("{}: no `manifest.contrib`", rule.name));
                }
            }
        }
    }
    assert_none("rules without fixtures", &problems);
}

#[test]
fn every_fixture_folder_is_a_rule() {
    let names: Vec<&str> = configurable_rules().iter().map(|rule| rule.name).collect();
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(root())
        .expect("tests/rules exists")
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() && !names.contains(&name.as_str()) {
            problems.push(format!("tests/rules/{name}"));
        }
    }
    assert_none(
        "fixture folders named after no configurable rule",
        &problems,
    );
}

#[test]
fn fail_fixtures_trigger_their_rule_and_pass_fixtures_are_clean() {
    let mut problems = Vec::new();
    for fixture in all_fixtures() {
        let (_, diagnostics) = fixture.run();
        let name = fixture.name();
        let own: Vec<&Diagnostic> = diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.rule == fixture.rule)
            .collect();
        match fixture.expect {
            Expect::Fires(severity) => {
                if own.is_empty() {
                    let fired: Vec<&str> = diagnostics.iter().map(|d| d.rule.name).collect();
                    problems.push(format!(
                        "{name}: `{}` did not fire (fired: {fired:?})",
                        fixture.rule.name
                    ));
                }
                for diagnostic in &own {
                    if diagnostic.severity != severity {
                        problems.push(format!(
                            "{name}: expected a {}, got a {}: {}",
                            severity.as_str(),
                            diagnostic.severity.as_str(),
                            diagnostic.message
                        ));
                    }
                }
                for diagnostic in &diagnostics {
                    problems
                        .extend(style_problems(diagnostic).map(|problem| {
                            format!("{name}: `{}` {problem}", diagnostic.rule.name)
                        }));
                }
            }
            Expect::Clean => {
                for diagnostic in &diagnostics {
                    problems.push(format!(
                        "{name}: unexpected `{}`: {}",
                        diagnostic.rule.name, diagnostic.message
                    ));
                }
            }
        }
    }
    assert_none("fixtures that do not do what their name says", &problems);
}

/// How a diagnostic breaks the message style (one sentence, lowercase
/// start, no trailing period; at least one label; a help that says how to
/// fix it, with labels that say something).
fn style_problems(diagnostic: &Diagnostic) -> impl Iterator<Item = String> + '_ {
    let message = diagnostic.message.as_str();
    let checks = [
        (
            message.starts_with(|c: char| c.is_lowercase() || c == '`' || c == '"'),
            "message must start lowercase",
        ),
        (
            !message.ends_with('.'),
            "message must not end with a period",
        ),
        (!message.contains(". "), "message must be one sentence"),
        (!diagnostic.labels.is_empty(), "needs a label"),
        (
            diagnostic
                .labels
                .iter()
                .all(|label| !label.message.is_empty() && label.message != "here"),
            "every label must say something",
        ),
        (
            diagnostic
                .help
                .as_deref()
                .is_some_and(|help| !help.is_empty()),
            "needs a help",
        ),
    ];
    checks
        .into_iter()
        .filter(|(ok, _)| !ok)
        .map(move |(_, problem)| format!("{problem}: {message}"))
}

#[test]
fn config_rule_manifests_check_clean_with_the_fixed_config() {
    let mut problems = Vec::new();
    for rule in configurable_rules()
        .into_iter()
        .filter(|rule| rule.kind == RuleKind::Config)
    {
        let folder = root().join(rule.name);
        let read = |file: &str| std::fs::read_to_string(folder.join(file)).unwrap_or_default();
        let (config, _) = Config::from_source(SourceFile::new("pass.toml", read("pass.toml")));
        let manifest = SourceFile::new("manifest.contrib", read("manifest.contrib"));
        for diagnostic in contrib::analyze(&manifest, &config).diagnostics {
            problems.push(format!(
                "{}/manifest.contrib: `{}`: {}",
                rule.name, diagnostic.rule.name, diagnostic.message
            ));
        }
    }
    assert_none(
        "config fixtures' manifests that do not check clean",
        &problems,
    );
}

/// The snapshot of a fail fixture: its source, then every diagnostic as a
/// person sees it, so the `.snap` reads on its own.
fn snapshot(source: &SourceFile, diagnostics: &[Diagnostic]) -> String {
    let human = Human::new(false);
    let mut text = format!("----- SOURCE CODE -- {}\n{}", source.name, source.text);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("----- DIAGNOSTICS\n");
    for diagnostic in diagnostics {
        text.push_str(&human.render(source, diagnostic));
        text.push('\n');
    }
    text
}

fn description(fixture: &Fixture) -> String {
    let rule = fixture.rule;
    let how = match fixture.expect {
        Expect::Fires(severity) => format!("fires as {}", severity.as_str()),
        Expect::Clean => "stays silent".into(),
    };
    format!(
        "{} ({}) {how} on {}: {}",
        rule.name,
        rule.code,
        fixture.name(),
        rule.summary
    )
}

#[test]
fn fail_fixture_snapshots() {
    let mut failed = Vec::new();
    for fixture in all_fixtures() {
        if fixture.expect == Expect::Clean {
            continue;
        }
        let (source, diagnostics) = fixture.run();
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(fixture.path.parent().unwrap_or(Path::new(".")));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(description(&fixture));
        settings.set_input_file(&fixture.path);
        let body = snapshot(&source, &diagnostics);
        let stem = fixture.stem();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            settings.bind(|| insta::assert_snapshot!(stem, body));
        }));
        if outcome.is_err() {
            failed.push(fixture.name());
        }
    }
    assert_none(
        "snapshots that changed (review them with `cargo insta review`)",
        &failed,
    );
}

#[test]
fn every_rule_is_documented_and_uniquely_named() {
    let code = regex::Regex::new(r"^C\d{4}$").expect("valid regex");
    let kebab = regex::Regex::new(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$").expect("valid regex");
    let rules = contrib::codes::all();
    let mut problems = Vec::new();
    for rule in rules {
        let name = rule.name;
        for section in ["## What it does", "## Why is this bad?", "## Example"] {
            if !rule.explanation.contains(section) {
                problems.push(format!("{name}: the explanation has no `{section}`"));
            }
        }
        let summary = rule.summary;
        if !summary.starts_with(|c: char| c.is_lowercase() || c == '`') {
            problems.push(format!(
                "{name}: the summary must start lowercase: {summary:?}"
            ));
        }
        if summary.is_empty() || summary.ends_with('.') {
            problems.push(format!(
                "{name}: the summary must not end with a period: {summary:?}"
            ));
        }
        if !code.is_match(rule.code) {
            problems.push(format!(
                "{name}: code `{}` is not C and four digits",
                rule.code
            ));
        }
        if !kebab.is_match(name) {
            problems.push(format!("{name}: the name is not kebab-case"));
        }
        if rules.iter().filter(|other| other.code == rule.code).count() > 1 {
            problems.push(format!("{name}: code `{}` is used twice", rule.code));
        }
        if rules.iter().filter(|other| other.name == name).count() > 1 {
            problems.push(format!("{name}: the name is used twice"));
        }
        let found_by_code = contrib::codes::find(rule.code).map(|rule| rule.name);
        let found_by_name = contrib::codes::find(name).map(|rule| rule.code);
        if found_by_code != Some(name) || found_by_name != Some(rule.code) {
            problems.push(format!(
                "{name}: `codes::find` does not find it by code and name"
            ));
        }
    }
    assert_none("rules whose documentation is incomplete", &problems);
}

/// A fixture config shared by the fixtures must not be stale: every tool
/// and skill it declares is used by some fixture.
#[test]
fn the_shared_workspace_declares_only_what_fixtures_use() {
    let config = workspace(&root());
    let texts: Vec<String> = all_fixtures()
        .iter()
        .filter(|fixture| !fixture.is_config())
        .map(Fixture::text)
        .collect();
    let platform = Config::platform();
    let mut unused = Vec::new();
    let declared = config
        .tools
        .keys()
        .filter(|tool| !platform.tools.contains_key(*tool));
    for name in declared.chain(config.skills.keys()) {
        if !texts.iter().any(|text| text.contains(name.as_str())) {
            unused.push(name.clone());
        }
    }
    assert_none(
        "tests/rules/contrib.toml declares what no fixture uses",
        &unused,
    );
}

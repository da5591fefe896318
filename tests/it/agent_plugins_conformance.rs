//! The Agent Plugins conformance fixtures (`tests/data/agent-plugins/`,
//! from the reference implementation's shared corpus; see its README), each
//! run with the reference verdict:
//!
//! - a case the reference loads imports as one manifest, with no failure,
//!   named as the package names itself, with exactly the listed skills and
//!   MCP servers, and with the problems the reference reports (by rule,
//!   counted as the reference counts them) and no others;
//! - a case the reference rejects imports nothing, and its refusal is a
//!   located `invalid-plugin-manifest` problem in `plugin.json`;
//! - severities follow the standard's classes: a refusal is an error, and
//!   every diagnostic of a package that loads (a component skipped, a
//!   field ignored) is a warning, as the reference reports it, unless the
//!   workspace raises its rule.
//!
//! Where contrib deliberately differs, the assertion says why.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use contrib::config::Config;
use contrib::import::{self, Imported, Options, ProblemKind};
use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/agent-plugins/cases");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("the fixtures are present")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    cases.sort();
    cases
}

fn import_case(case: &Path) -> Imported {
    let tree = import::read_tree(&case.join("plugin")).expect("the package reads");
    import::import(&tree, &Options::default(), &Config::platform())
}

/// The reference's diagnostic codes, as contrib's problem kinds.
fn kind_of(code: &str) -> ProblemKind {
    match code {
        "unknown-manifest-field" | "extensions-ignored" => ProblemKind::IgnoredManifestField,
        "server-skipped" => ProblemKind::InvalidMcpServer,
        "mcp-disabled" => ProblemKind::InvalidMcpConfig,
        // The reference says the component type is invalid; contrib names
        // the path that is of the wrong kind.
        "component-invalid" => ProblemKind::MissingPath,
        "skill-skipped" => ProblemKind::InvalidSkill,
        other => panic!("a reference diagnostic this test does not know: {other}"),
    }
}

/// Problems by kind, a skill counted once however many of its rules it
/// breaks (the reference stops at the first; contrib reports each).
fn counted(imported: &Imported) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let mut skills = Vec::new();
    for problem in &imported.problems {
        if problem.kind == ProblemKind::InvalidSkill {
            if skills.contains(&problem.file) {
                continue;
            }
            skills.push(problem.file.clone());
        }
        *counts.entry(format!("{:?}", problem.kind)).or_insert(0) += 1;
    }
    counts
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn loaded(expected: &Value, imported: &Imported) -> Result<(), String> {
    if !imported.failures.is_empty() {
        return Err(format!("failures: {:?}", imported.failures));
    }
    let [manifest] = imported.manifests.as_slice() else {
        return Err(format!("{} manifests, not one", imported.manifests.len()));
    };
    let name = expected["name"].as_str().unwrap_or_default();
    // The language's names hold no dots: the package's own name is kept
    // in the header, and a dotted one gives the scope (docs/import.md).
    if !manifest.text.contains(&format!("package `{name}`")) {
        return Err(format!("the header does not name `{name}`"));
    }
    let skills: Vec<String> = manifest
        .contributors
        .iter()
        .filter_map(|contributor| contributor.id.strip_prefix("skill-"))
        .map(str::to_string)
        .collect();
    if skills != strings(&expected["skills"]) {
        return Err(format!("skills {skills:?}"));
    }
    // contrib keeps servers in name order (JSON objects are read sorted),
    // where the reference keeps the file's order: compared as sets.
    let mut servers = manifest.servers.clone();
    servers.sort();
    let mut wanted = strings(&expected["servers"]);
    wanted.sort();
    if servers != wanted {
        return Err(format!("servers {servers:?}, not {wanted:?}"));
    }
    let mcp = expected["mcp"].as_str().unwrap_or_default();
    let disabled = imported.problems.iter().any(|problem| {
        matches!(
            problem.kind,
            ProblemKind::InvalidMcpConfig | ProblemKind::MissingPath
        ) && problem.file.ends_with("mcp.json")
    });
    let configured = manifest.files.iter().any(|file| file == "mcp.json") && !disabled;
    let state = match (configured, disabled) {
        (true, _) => "configured",
        (false, true) => "disabled",
        (false, false) => "absent",
    };
    if state != mcp {
        return Err(format!("MCP is {state}, not {mcp}"));
    }
    let mut expected_counts = BTreeMap::new();
    for code in strings(&expected["diagnostics"]) {
        *expected_counts
            .entry(format!("{:?}", kind_of(&code)))
            .or_insert(0) += 1;
    }
    // The package loads: the reference reports each problem as a warning.
    if let Some(error) = imported
        .problems
        .iter()
        .find(|problem| problem.severity != contrib::diagnostic::Severity::Warning)
    {
        return Err(format!("an error where the reference warns: {error:?}"));
    }
    let counts = counted(imported);
    if counts != expected_counts {
        return Err(format!(
            "problems {counts:?}, not {expected_counts:?}: {:#?}",
            imported.problems
        ));
    }
    Ok(())
}

fn rejected(expected: &Value, imported: &Imported) -> Result<(), String> {
    if !imported.manifests.is_empty() {
        return Err("the plugin was imported".into());
    }
    let [failure] = imported.failures.as_slice() else {
        return Err(format!("failures: {:?}", imported.failures));
    };
    if failure.file != "plugin.json" {
        return Err(format!("the failure names {}", failure.file));
    }
    let refusals: Vec<_> = imported
        .problems
        .iter()
        .filter(|problem| problem.kind == ProblemKind::InvalidPluginManifest)
        .collect();
    let [refusal] = refusals.as_slice() else {
        return Err(format!("refusals: {refusals:?}"));
    };
    if refusal.severity != contrib::diagnostic::Severity::Error {
        return Err(format!("the refusal is not an error: {refusal:?}"));
    }
    if refusal.file != "plugin.json" || refusal.label.is_empty() || refusal.help.is_empty() {
        return Err(format!("the refusal is not located: {refusal:?}"));
    }
    if expected["reason"] == "unsupported-schema" && !refusal.message.contains("version") {
        return Err(format!(
            "the refusal does not name the version: {}",
            refusal.message
        ));
    }
    Ok(())
}

#[test]
fn every_case_gets_the_reference_verdict() {
    let mut problems = Vec::new();
    let all = cases();
    assert!(all.len() >= 17, "the fixtures are missing: {all:?}");
    for case in all {
        let name = case
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let expected: Value = serde_json::from_slice(
            &std::fs::read(case.join("expected.json")).expect("expected.json"),
        )
        .expect("expected.json is JSON");
        let imported = import_case(&case);
        let verdict = match expected["outcome"].as_str() {
            Some("loaded") => loaded(&expected, &imported),
            Some("rejected") => rejected(&expected, &imported),
            other => Err(format!("an outcome this test does not know: {other:?}")),
        };
        if let Err(why) = verdict {
            problems.push(format!("{name}: {why}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `contrib check` gives the same verdict and the standard's severity: a
/// rejected case has an error located in `plugin.json`, a case that loads
/// has warnings only (none at all when the reference reports none), and a
/// workspace that raises a rule gets errors for it.
#[test]
fn check_in_place_agrees() {
    for case in cases() {
        let expected: Value =
            serde_json::from_slice(&std::fs::read(case.join("expected.json")).unwrap()).unwrap();
        let files = import::check_in_place(&case.join("plugin"))
            .unwrap()
            .expect("a package is a source");
        let diagnostics: Vec<_> = files.iter().flat_map(|file| &file.diagnostics).collect();
        match expected["outcome"].as_str() {
            Some("rejected") => {
                let manifest = files
                    .iter()
                    .find(|file| file.path == "plugin.json")
                    .unwrap();
                assert!(
                    manifest
                        .diagnostics
                        .iter()
                        .any(|d| d.is_error() && d.rule.name == "invalid-plugin-manifest"),
                    "{}: {diagnostics:#?}",
                    case.display()
                );
            }
            _ if strings(&expected["diagnostics"]).is_empty() => {
                assert!(
                    diagnostics.is_empty(),
                    "{}: {diagnostics:#?}",
                    case.display()
                );
            }
            _ => {
                assert!(!diagnostics.is_empty(), "{}", case.display());
                assert!(
                    diagnostics.iter().all(|d| !d.is_error()),
                    "{}: the package loads, so its diagnostics are warnings: {diagnostics:#?}",
                    case.display()
                );
            }
        }
    }
}

/// `[lints]` raises a source rule: the reference's warnings become the
/// workspace's errors, and `allow` cannot lower them.
#[test]
fn a_workspace_raises_the_standard_s_warnings() {
    let case = cases()
        .into_iter()
        .find(|case| case.ends_with("skill-invalid"))
        .expect("the skill-invalid case");
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let copy = scratch.path().join("plugin");
    crate::common::copy_tree(&case.join("plugin"), &copy);
    std::fs::write(
        copy.join("contrib.toml"),
        "[lints]\ninvalid-skill = \"deny\"\n",
    )
    .unwrap();
    let files = import::check_in_place(&copy).unwrap().expect("a source");
    let skills: Vec<_> = files
        .iter()
        .flat_map(|file| &file.diagnostics)
        .filter(|d| d.rule.name == "invalid-skill")
        .collect();
    assert!(!skills.is_empty());
    assert!(skills.iter().all(|d| d.is_error()), "{skills:#?}");

    let (_, diagnostics) = Config::from_source(contrib::source::SourceFile::new(
        "contrib.toml",
        "[lints]\ninvalid-skill = \"allow\"\n",
    ));
    assert!(
        diagnostics
            .iter()
            .any(|d| d.rule.name == "unknown-lint" && d.message.contains("can only be raised")),
        "{diagnostics:#?}"
    );
}

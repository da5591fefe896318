//! `contrib export`: packages other harnesses load.
//!
//! - Round trip: every example manifest, exported to each target and
//!   imported again, gives back every text it exported, byte for byte,
//!   with the activation it had (a skill's listing and body, a command's
//!   or a subagent's prompt), and the plugin's name.
//! - What the target cannot express is reported, and where the target
//!   has a way the package keeps the manifest's promise: an eager run that
//!   writes is never a `SessionStart` hook.
//! - The command as a person runs it: a folder written whole, never over
//!   other work, replaced only with `--force`; nothing written from a
//!   manifest with errors; the report as JSON.
//!
//! The packages are checked by an independent validator (skillsaw) in
//! `tests/export/skillsaw.sh`.

use crate::common::isolated::contrib_in;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use contrib::config::Config;
use contrib::export::{self, Package, Target};
use contrib::import::{self, frontmatter, Options};
use contrib::ir::{Activation, ActivationKind, Kind, Plugin};
use contrib::source::SourceFile;

const TARGETS: [Target; 2] = [Target::AgentPlugin, Target::ClaudePlugin];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn config(path: &Path) -> Config {
    let (config, diagnostics) = Config::load(path).expect("the configuration reads");
    assert!(
        diagnostics.iter().all(|d| !d.is_error()),
        "{diagnostics:#?}"
    );
    config
}

fn plugin(path: &Path, config: &Config) -> Plugin {
    let text = std::fs::read_to_string(path).expect("the manifest reads");
    let analysis = contrib::analyze(&SourceFile::new(path.display().to_string(), text), config);
    assert!(
        analysis.diagnostics.iter().all(|d| !d.is_error()),
        "{}: {:#?}",
        path.display(),
        analysis.diagnostics
    );
    analysis.plugin.expect("the manifest lowers")
}

fn examples() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .expect("examples/ exists")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "contrib"))
        .collect();
    found.sort();
    assert!(found.len() >= 10, "the examples are there");
    found
}

fn write(package: &Package, folder: &Path) {
    for (path, text) in &package.files {
        let path = folder.join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("folders are made");
        std::fs::write(path, text).expect("the file is written");
    }
}

/// A text of the manifest as the model reads it (none of the examples'
/// exported texts has variables: those are reported, not written).
fn body(plugin: &Plugin, id: &str) -> String {
    let contributor = plugin
        .contributors
        .iter()
        .find(|contributor| contributor.id.value == id)
        .expect("the contributor exists");
    contributor
        .template()
        .expect("a text")
        .render(|_| unreachable!("exported texts have no variables"))
}

/// Exports `plugin`, imports the package, and checks that every text
/// written comes back the same, with its activation. Returns how many
/// texts were written.
fn round_trip(plugin: &Plugin, config: &Config, target: Target, label: &str) -> usize {
    let package = export::package(plugin, config, target);
    let folder = tempfile::tempdir().expect("a temporary folder");
    write(&package, folder.path());
    let tree = import::read_tree(folder.path()).expect("the package reads");
    let imported = import::import(&tree, &Options::default(), config);
    assert!(
        imported.failures.is_empty(),
        "{label}: {:#?}",
        imported.failures
    );
    assert!(
        imported.problems.is_empty(),
        "{label}: the package breaks no rule of its format: {:#?}",
        imported.problems
    );
    let [manifest] = imported.manifests.as_slice() else {
        panic!("{label}: one manifest, got {:#?}", imported.manifests);
    };
    if target == Target::AgentPlugin {
        assert_eq!(manifest.plugin, plugin.name.value.to_string(), "{label}");
    }
    let produced = |id: &str| {
        manifest
            .contributors
            .iter()
            .find(|produced| produced.id == id)
            .unwrap_or_else(|| panic!("{label}: no `{id}` in {:#?}", manifest.contributors))
    };
    let mut texts = 0;
    for written in &package.report.written {
        let contributor = plugin
            .contributors
            .iter()
            .find(|contributor| contributor.id.value == written.contributor)
            .expect("a contributor of the manifest");
        if contributor.kind() != Kind::Text {
            continue;
        }
        texts += 1;
        let text = body(plugin, &written.contributor);
        match (&contributor.activation.value, written.what) {
            (Activation::Request(description), "skill") => {
                let id = &written.contributor;
                let listing = produced(&format!("skill-{id}"));
                assert_eq!(
                    listing.body.as_deref(),
                    Some(format!("{id}: {}", description.value).as_str()),
                    "{label}: the skill's listing is its description"
                );
                let file = std::fs::read_to_string(folder.path().join(&written.file))
                    .expect("the skill is written");
                let read = frontmatter::split(&file);
                assert_eq!(import::body_text(read.body), text, "{label}: `{id}`'s body");
                assert_eq!(
                    read.frontmatter.text("description"),
                    Some(description.value.as_str())
                );
            }
            (Activation::Command(command), "command") => {
                let prompt = produced(&format!("command-{}-prompt", command.value));
                assert_eq!(prompt.activation, ActivationKind::Command, "{label}");
                assert_eq!(prompt.body.as_deref(), Some(text.as_str()), "{label}");
                assert!(prompt.verbatim);
                assert!(
                    manifest
                        .contributors
                        .iter()
                        .all(|produced| produced.id != format!("command-{}", command.value)),
                    "{label}: the command is not listed to the model"
                );
            }
            (Activation::Subagent(agent), "agent") => {
                let prompt = produced(&format!("agent-{}-prompt", agent.value));
                assert_eq!(prompt.activation, ActivationKind::Subagent, "{label}");
                assert_eq!(prompt.body.as_deref(), Some(text.as_str()), "{label}");
            }
            (activation, what) => panic!("{label}: {activation:?} written as a {what}"),
        }
    }
    texts
}

#[test]
fn every_example_round_trips_through_every_target() {
    let config = config(&root().join("examples/contrib.toml"));
    let mut written = 0;
    for path in examples() {
        let plugin = plugin(&path, &config);
        for target in TARGETS {
            let label = format!("{} as {target:?}", path.display());
            written += round_trip(&plugin, &config, target, &label);
            let package = export::package(&plugin, &config, target);
            // Every contributor is either written or reported.
            for contributor in &plugin.contributors {
                let id = &contributor.id.value;
                let accounted = package.report.written.iter().any(|w| &w.contributor == id)
                    || package
                        .report
                        .not_expressed
                        .iter()
                        .any(|loss| loss.contributor.as_ref() == Some(id))
                    || package
                        .report
                        .enforced
                        .iter()
                        .any(|kept| &kept.contributor == id);
                assert!(accounted, "{label}: `{id}` is neither written nor reported");
            }
        }
    }
    assert!(written >= 3, "the examples export some texts ({written})");
}

#[test]
fn the_fixture_round_trips_with_a_command_a_subagent_and_a_hook() {
    let folder = root().join("tests/data/export");
    let config = config(&folder.join("contrib.toml"));
    let plugin = plugin(&folder.join("review-kit.contrib"), &config);
    assert_eq!(
        round_trip(&plugin, &config, Target::ClaudePlugin, "review-kit"),
        3
    );
    let package = export::package(&plugin, &config, Target::ClaudePlugin);
    let written: BTreeSet<(&str, &str)> = package
        .report
        .written
        .iter()
        .map(|written| (written.what, written.file.as_str()))
        .collect();
    assert_eq!(
        written,
        BTreeSet::from([
            ("agent", "agents/reviewer.md"),
            ("command", "commands/ship.md"),
            ("hook", "hooks/hooks.json"),
            ("skill", "skills/review-checklist/SKILL.md"),
        ])
    );
    let hooks: serde_json::Value =
        serde_json::from_str(&package.files["hooks/hooks.json"]).expect("JSON");
    assert_eq!(
        hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "git branch --show-current"
    );
    // Agent Plugins has skills only: the rest is reported.
    let package = export::package(&plugin, &config, Target::AgentPlugin);
    let files: Vec<&str> = package.files.keys().map(String::as_str).collect();
    assert_eq!(files, ["plugin.json", "skills/review-checklist/SKILL.md"]);
    let lost: BTreeSet<(&str, &str)> = package
        .report
        .not_expressed
        .iter()
        .filter_map(|loss| Some((loss.contributor.as_deref()?, loss.what)))
        .collect();
    assert!(lost.contains(&("ship", "activation")), "{lost:?}");
    assert!(
        lost.contains(&("reviewer-prompt", "activation")),
        "{lost:?}"
    );
    assert!(lost.contains(&("branch", "eager-run")), "{lost:?}");
}

#[test]
fn an_eager_run_that_writes_is_never_a_session_start_hook() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let toml = "[tools.run_shell_command]\neffect = \"write\"\neager = true\ngated = false\negress = false\nparams = { command = \"string\" }\n";
    std::fs::write(folder.path().join("contrib.toml"), toml).expect("written");
    let manifest = std::fs::read_to_string(root().join("tests/data/export/review-kit.contrib"))
        .expect("the fixture reads");
    std::fs::write(folder.path().join("kit.contrib"), manifest).expect("written");
    let config = config(&folder.path().join("contrib.toml"));
    let plugin = plugin(&folder.path().join("kit.contrib"), &config);
    let package = export::package(&plugin, &config, Target::ClaudePlugin);
    assert!(!package.files.contains_key("hooks/hooks.json"));
    assert!(package
        .report
        .written
        .iter()
        .all(|w| w.contributor != "branch"));
    let kept = package
        .report
        .enforced
        .iter()
        .find(|kept| kept.contributor == "branch")
        .expect("the refusal is reported");
    assert!(kept.how.contains("it writes"), "{}", kept.how);
}

#[test]
fn the_agent_plugins_manifest_is_what_the_specification_loads() {
    let config = config(&root().join("examples/contrib.toml"));
    let plugin = plugin(&root().join("examples/project-rules.contrib"), &config);
    let package = export::package(&plugin, &config, Target::AgentPlugin);
    assert_eq!(package.name, "acme.project-rules");
    let manifest = &package.files["plugin.json"];
    assert!(
        manifest.starts_with("{\n  \"$schema\": \"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json\",\n  \"name\": \"acme.project-rules\","),
        "{manifest}"
    );
    let mut problems = Vec::new();
    let read = import::agent_plugin::manifest("plugin.json", manifest, &mut problems)
        .expect("the package loads");
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(read.name, "acme.project-rules");
    assert_eq!(read.version.as_deref(), Some("1.0.0"));
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_command_writes_whole_folders_and_never_over_other_work() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let work = dir.path();
    let manifest = root().join("examples/project-rules.contrib");
    let manifest = manifest.to_str().expect("UTF-8");
    let export = |out: &str, extra: &[&str]| {
        let mut args = vec!["export", "--format", "agent-plugin", manifest, "-o", out];
        args.extend_from_slice(extra);
        contrib_in(&args, work)
    };

    let first = export("pkg", &["--report", "json"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let report: serde_json::Value = serde_json::from_slice(&first.stdout).expect("JSON");
    let package = &report["packages"][0];
    assert_eq!(package["plugin"], "acme/project-rules");
    assert_eq!(package["target"], "agent-plugin");
    assert_eq!(package["out"], "pkg");
    assert_eq!(package["written"][0]["as"], "skill");
    assert!(package["not_expressed"]
        .as_array()
        .expect("a list")
        .iter()
        .any(|loss| loss["contributor"] == "rust-conventions" && loss["what"] == "activation"));
    assert!(work.join("pkg/plugin.json").is_file());

    // A package already there: refused, then replaced whole with --force.
    std::fs::write(work.join("pkg/stale.md"), "old").expect("written");
    let again = export("pkg", &[]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again.stderr));
    assert!(
        text(&again.stderr).contains("--force"),
        "{}",
        text(&again.stderr)
    );
    let forced = export("pkg", &["--force"]);
    assert!(forced.status.success(), "{}", text(&forced.stderr));
    assert!(
        !work.join("pkg/stale.md").exists(),
        "the old package is gone whole"
    );
    assert!(
        text(&forced.stdout).contains("not expressed:"),
        "{}",
        text(&forced.stdout)
    );

    // Other work is never replaced, even with --force.
    std::fs::create_dir(work.join("notes")).expect("made");
    std::fs::write(work.join("notes/todo.md"), "mine").expect("written");
    let refused = export("notes", &["--force"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("no plugin manifest"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(work.join("notes/todo.md")).expect("kept"),
        "mine"
    );

    // Nothing is left beside the folders.
    let mut names: Vec<String> = std::fs::read_dir(work)
        .expect("listed")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["notes", "pkg"]);
}

#[test]
fn several_manifests_are_packages_side_by_side_and_errors_write_nothing() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let work = dir.path();
    let examples = root().join("examples");
    let a = examples.join("project-rules.contrib");
    let b = examples.join("house-style.contrib");
    let both = contrib_in(
        &[
            "export",
            "--format",
            "claude-plugin",
            a.to_str().expect("UTF-8"),
            b.to_str().expect("UTF-8"),
            "-o",
            "out",
        ],
        work,
    );
    assert!(both.status.success(), "{}", text(&both.stderr));
    assert!(work
        .join("out/project-rules/.claude-plugin/plugin.json")
        .is_file());
    assert!(work
        .join("out/house-style/.claude-plugin/plugin.json")
        .is_file());

    let broken = work.join("broken.contrib");
    std::fs::write(&broken, "plugin acme/broken 1.0.0 {\n    owner nobody\n}\n").expect("written");
    let refused = contrib_in(
        &[
            "export",
            "--format",
            "agent-plugin",
            a.to_str().expect("UTF-8"),
            "broken.contrib",
            "-o",
            "fresh",
        ],
        work,
    );
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stderr));
    assert!(
        text(&refused.stderr).contains("not exported"),
        "{}",
        text(&refused.stderr)
    );
    assert!(!work.join("fresh").exists(), "nothing is written");
}

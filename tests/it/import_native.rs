//! `contrib import` of GitHub Copilot's formats, Agent Plugins packages and
//! MCP configurations, and the readers' named bugs: what each reads, what
//! it reports, and that nothing it cannot map is dropped in silence.

use crate::common::imported;

use std::path::Path;

use contrib::config::Config;
use contrib::import::{self, Imported, Options, SourceTree};
use contrib::ir::{ActivationKind, Kind};

fn auto(name: &str, files: &[(&str, &str)]) -> Imported {
    let tree = SourceTree::from_files(name, files.iter().copied());
    let imported = import::import(&tree, &Options::default(), &Config::platform());
    for manifest in &imported.manifests {
        imported::assert_canonical(manifest);
    }
    imported
}

fn fixture(case: &str) -> Imported {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/agent-plugins/cases")
        .join(case)
        .join("plugin");
    let tree = import::read_tree(&path).expect("the fixture reads");
    import::import(&tree, &Options::default(), &Config::platform())
}

fn categories(imported: &Imported) -> Vec<&'static str> {
    imported
        .manifests
        .iter()
        .flat_map(|manifest| manifest.notes.iter().map(|note| note.category))
        .collect()
}

#[test]
fn copilot_agents_prompts_chat_modes_and_hooks() {
    let imported = auto(
        "samples",
        &[
            (
                ".github/agents/reviewer.agent.md",
                "---\nname: reviewer\ndescription: Reviews Python\ntools: [\"read\", \"search\"]\nmodel: gpt-5\n---\n\nYou review Python code.\n",
            ),
            (
                ".github/prompts/explain.prompt.md",
                "---\ndescription: Explain the selection\nargument-hint: topic\n---\n\nExplain ${selection} for ${input:audience}.\n",
            ),
            (
                ".github/chatmodes/plan.chatmode.md",
                "---\ndescription: Plan before coding\ntools: ['search']\n---\n\nPlan only; never edit.\n",
            ),
            (
                ".github/hooks/start.json",
                r#"{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "./scripts/start.sh", "timeoutSec": 10}], "preToolUse": [{"type": "command", "bash": "./check.sh"}]}}"#,
            ),
        ],
    );
    assert!(imported.skipped.is_empty(), "{:#?}", imported.skipped);
    let manifest = &imported.manifests[0];
    let ids: Vec<&str> = manifest
        .contributors
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "agent-reviewer",
            "agent-reviewer-prompt",
            "command-explain",
            "command-explain-prompt",
            "chatmode-plan-prompt",
            "session-start-hook"
        ]
    );
    let by_id = |id: &str| manifest.contributors.iter().find(|c| c.id == id).unwrap();
    assert_eq!(
        by_id("agent-reviewer-prompt").activation,
        ActivationKind::Subagent
    );
    assert_eq!(
        by_id("chatmode-plan-prompt").activation,
        ActivationKind::Command
    );
    assert_eq!(
        by_id("command-explain").body.as_deref(),
        Some("/explain topic: Explain the selection")
    );
    assert_eq!(by_id("session-start-hook").kind, Kind::EagerRun);
    assert!(manifest.text.contains("command: \"./scripts/start.sh\""));
    let notes = categories(&imported);
    for expected in ["field", "arguments", "hook"] {
        assert!(notes.contains(&expected), "{expected}: {notes:?}");
    }
    assert!(manifest
        .notes
        .iter()
        .any(|note| note.message.contains("`model: gpt-5`")));
    assert!(manifest
        .notes
        .iter()
        .any(|note| note.message.contains("${selection}")));
}

#[test]
fn the_full_agent_plugins_fixture_is_acme_reports_1_2_0_with_its_servers() {
    let imported = fixture("full");
    assert!(imported.failures.is_empty(), "{:#?}", imported.failures);
    assert_eq!(imported.manifests.len(), 1, "{:#?}", imported.manifests);
    let manifest = &imported.manifests[0];
    assert_eq!(manifest.plugin, "acme/reports");
    assert!(
        manifest.text.contains("plugin acme/reports 1.2.0 {"),
        "{}",
        manifest.text
    );
    assert!(manifest
        .text
        .contains("# Agent Plugins 1.0.0 package `acme.reports` 1.2.0"));
    // In name order, as the reader keeps JSON objects.
    assert_eq!(
        manifest.servers,
        ["deployment-api", "legacy-events", "local-validator"]
    );
    let ids: Vec<&str> = manifest
        .contributors
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(ids, ["skill-deploy", "skill-summarize"]);
    assert!(imported.problems.is_empty(), "{:#?}", imported.problems);
}

#[test]
fn a_dotted_name_under_a_given_scope_keeps_every_part() {
    let tree = SourceTree::from_files(
        "p",
        [(
            "plugin.json",
            r#"{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "acme.reports", "version": "1.2.0"}"#,
        )],
    );
    let options = Options {
        scope: Some("team".into()),
        ..Options::default()
    };
    let imported = import::import(&tree, &options, &Config::platform());
    assert_eq!(imported.manifests[0].plugin, "team/acme-reports");
}

#[test]
fn refused_agent_plugins_are_not_imported() {
    for case in [
        "bad-name",
        "missing-schema",
        "unsupported-schema",
        "author-unknown-field",
    ] {
        let imported = fixture(case);
        assert!(
            imported.manifests.is_empty(),
            "{case}: {:#?}",
            imported.manifests
        );
        assert_eq!(imported.failures.len(), 1, "{case}");
        assert!(
            imported.failures[0]
                .message
                .contains("so the plugin is refused"),
            "{case}: {}",
            imported.failures[0].message
        );
    }
}

#[test]
fn a_template_agents_md_in_a_skill_is_a_resource() {
    let imported = auto(
        "repo",
        &[
            ("AGENTS.md", "Project rules.\n"),
            (
                "skills/scaffold/SKILL.md",
                "---\nname: scaffold\ndescription: Scaffolds a project\n---\nCopy assets/AGENTS.md.\n",
            ),
            ("skills/scaffold/assets/AGENTS.md", "Template for new projects.\n"),
        ],
    );
    let sources: Vec<&str> = imported.manifests[0]
        .contributors
        .iter()
        .map(|c| c.source.as_str())
        .collect();
    assert!(
        !sources.contains(&"skills/scaffold/assets/AGENTS.md"),
        "{sources:?}"
    );
    assert!(imported
        .skipped
        .iter()
        .any(|skipped| skipped.file == "skills/scaffold/assets/AGENTS.md"
            && skipped.reason.contains("skill's resource")));
}

#[test]
fn a_renamed_skill_is_reported() {
    let imported = auto(
        "skills",
        &[(
            "Other_Name/SKILL.md",
            "---\nname: Other_Name\ndescription: Does things\n---\nBody.\n",
        )],
    );
    let manifest = &imported.manifests[0];
    assert_eq!(manifest.contributors[0].id, "skill-other-name");
    assert!(manifest.notes.iter().any(|note| note.category == "name"
        && note
            .message
            .contains("`Other_Name` is written `other-name`")));
    assert!(manifest
        .text
        .contains("`Other_Name` is written `other-name`"));
}

#[test]
fn vs_code_and_project_mcp_configurations_keep_their_servers() {
    let imported = auto(
        "repo",
        &[
            (
                ".vscode/mcp.json",
                r#"{"inputs": [{"id": "token", "type": "promptString"}], "servers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}}"#,
            ),
            (
                "mcp.json",
                r#"{"mcpServers": {"files": {"command": "npx", "args": ["fs-mcp"]}}}"#,
            ),
        ],
    );
    let servers: Vec<&str> = imported
        .manifests
        .iter()
        .flat_map(|m| m.servers.iter().map(String::as_str))
        .collect();
    assert_eq!(servers, ["github", "files"]);
    assert!(categories(&imported).contains(&"field"), "inputs are noted");
}

#[test]
fn a_file_given_alone_finds_its_plugin_root() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().join("review-kit");
    std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    std::fs::create_dir_all(root.join("agents")).unwrap();
    std::fs::write(
        root.join(".claude-plugin/plugin.json"),
        r#"{"name": "review-kit", "version": "1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        root.join("agents/reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews diffs\n---\nReview.\n",
    )
    .unwrap();
    let tree = import::read_tree(&root.join("agents/reviewer.md")).unwrap();
    assert_eq!(tree.name, "review-kit");
    let imported = import::import(&tree, &Options::default(), &Config::platform());
    assert!(imported.skipped.is_empty(), "{:#?}", imported.skipped);
    let manifest = &imported.manifests[0];
    assert_eq!(manifest.plugin, "review-kit/review-kit");
    assert!(manifest
        .text
        .contains("plugin review-kit/review-kit 1.0.0 {"));
    assert_eq!(manifest.contributors[0].id, "agent-reviewer");
}

#[test]
fn files_whose_meaning_is_their_folder_import_alone() {
    let folder = tempfile::tempdir().unwrap();
    let project = folder.path().join("project");
    let write = |path: &str, text: &str| {
        let path = project.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(".git/HEAD", "ref: refs/heads/main\n");
    write(".github/copilot-instructions.md", "Use tabs.\n");
    write(
        "kit/.claude-plugin/plugin.json",
        r#"{"name": "kit", "version": "2.0.0"}"#,
    );
    write(
        "kit/hooks/hooks.json",
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}"#,
    );
    let instructions = import::read_tree(&project.join(".github/copilot-instructions.md")).unwrap();
    assert_eq!(instructions.name, "project");
    let imported = import::import(&instructions, &Options::default(), &Config::platform());
    let texts = &imported.manifests[0].contributors;
    assert_eq!(texts[0].id, "github-copilot-instructions-md");
    assert_eq!(texts[0].activation, ActivationKind::Always);

    let hooks = import::read_tree(&project.join("kit/hooks/hooks.json")).unwrap();
    let imported = import::import(&hooks, &Options::default(), &Config::platform());
    assert!(imported.skipped.is_empty(), "{:#?}", imported.skipped);
    let manifest = &imported.manifests[0];
    assert!(
        manifest.text.contains("plugin kit/kit 2.0.0 {"),
        "{}",
        manifest.text
    );
    assert_eq!(manifest.contributors[0].kind, Kind::EagerRun);
}

#[test]
fn an_invisible_character_is_a_warning_in_the_manifest() {
    let imported = auto(
        "rules",
        &[(
            ".cursor/rules/tasks.mdc",
            "---\nalwaysApply: true\n---\nDefine a task with `\u{2060}schedules.task()`.\n",
        )],
    );
    let manifest = &imported.manifests[0];
    assert!(manifest
        .notes
        .iter()
        .any(|note| note.category == "hidden" && note.warning && note.message.contains("U+2060")));
    assert!(manifest.text.contains("# WARNING"), "{}", manifest.text);
    assert!(manifest.text.contains("\\u{2060}"), "{}", manifest.text);
    assert_eq!(imported.problems.len(), 1, "{:#?}", imported.problems);
}

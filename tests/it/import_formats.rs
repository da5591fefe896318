//! `contrib import`, one format at a time, on small hand-written sources.
//! Each snapshot is a produced manifest, reviewed by hand: its comments say
//! where each contributor came from and what could not be mapped.

use crate::common::imported;

use contrib::config::Config;
use contrib::import::{self, Format, Imported, Options, SourceTree};
use contrib::ir::{ActivationKind, Owner, Placement};

fn run(name: &str, files: &[(&str, &str)], options: &Options) -> Imported {
    let tree = SourceTree::from_files(name, files.iter().copied());
    let imported = import::import(&tree, options, &Config::platform());
    imported::assert_imported(&imported);
    for manifest in &imported.manifests {
        imported::assert_canonical(manifest);
        imported::assert_faithful(manifest, &Config::platform());
    }
    imported
}

fn auto(name: &str, files: &[(&str, &str)]) -> Imported {
    run(name, files, &Options::default())
}

/// The one manifest of an import.
fn only(imported: &Imported) -> &str {
    assert_eq!(imported.manifests.len(), 1, "{:#?}", imported.manifests);
    &imported.manifests[0].text
}

const SKILL: &str = r#"---
name: pdf-tools
description: Fill PDF forms; use when a "form" or {template} is mentioned.
allowed-tools: Read, Bash(python3:*), get_current_time
license: Apache-2.0
metadata:
  author: acme
---

# PDF tools

Run `python3 fill.py {input}` and check the output.
"#;

#[test]
fn skill_listing_and_body_reference() {
    let imported = auto("skills", &[("pdf-tools/SKILL.md", SKILL)]);
    insta::assert_snapshot!(only(&imported));
    let listing = &imported.manifests[0].contributors[0];
    assert_eq!(listing.placement, Placement::Agent);
    assert_eq!(
        imported.manifests[0].vocabulary.get("get_current_time"),
        Some(&true)
    );
    assert_eq!(imported.manifests[0].vocabulary.get("bash"), Some(&false));
}

#[test]
fn a_skill_a_context_file_imports_is_eager_loaded() {
    let imported = auto(
        "plugin",
        &[
            ("GEMINI.md", "@./skills/pdf-tools/SKILL.md\n@./notes/tools.md\n"),
            ("skills/pdf-tools/SKILL.md", SKILL),
            (
                "skills/hidden/SKILL.md",
                "---\nname: hidden\ndescription: Not for the model.\ndisable-model-invocation: true\n---\nBody.\n",
            ),
        ],
    );
    insta::assert_snapshot!(only(&imported));
}

const PLUGIN_JSON: &str = r#"{
  "name": "Review Kit",
  "version": "1.0",
  "description": "Review helpers",
  "author": { "name": "Ada", "email": "ada@example.com" },
  "license": "MIT",
  "homepage": "https://example.com",
  "mcpServers": { "docs": { "command": "npx", "args": ["docs-mcp"] } }
}"#;

const AGENT: &str = "---\nname: code-reviewer\ndescription: Reviews diffs for bugs.\ntools: Read, Grep\nmodel: sonnet\n---\n\nYou review code. Be specific.\n";

const COMMAND: &str = "---\ndescription: Commit staged changes\nallowed-tools: Bash(git commit:*)\nargument-hint: [message]\n---\n\n## Context\n\n- Status: !`git status`\n\nCommit with message: $ARGUMENTS\n";

const HOOKS: &str = r#"{
  "description": "Adds the house style at start",
  "hooks": {
    "SessionStart": [
      { "matcher": "startup", "hooks": [ { "type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/start.sh\"", "timeout": 10 } ] }
    ],
    "PreToolUse": [
      { "hooks": [ { "type": "command", "command": "python3 check.py" } ] }
    ]
  }
}"#;

#[test]
fn claude_code_plugin() {
    let imported = auto(
        "acme",
        &[
            ("review-kit/.claude-plugin/plugin.json", PLUGIN_JSON),
            ("review-kit/agents/code-reviewer.md", AGENT),
            ("review-kit/commands/commit.md", COMMAND),
            ("review-kit/hooks/hooks.json", HOOKS),
            (
                "review-kit/.mcp.json",
                r#"{"search": {"type": "http", "url": "https://mcp.example.com"}}"#,
            ),
        ],
    );
    insta::assert_snapshot!(only(&imported));
    let manifest = &imported.manifests[0];
    assert_eq!(manifest.plugin, "acme/review-kit");
    let categories: Vec<&str> = manifest.notes.iter().map(|note| note.category).collect();
    for expected in [
        "version",
        "mcp server",
        "hook",
        "shell",
        "arguments",
        "field",
    ] {
        assert!(categories.contains(&expected), "{expected}: {categories:?}");
    }
}

#[test]
fn a_session_start_hook_is_never_read_only() {
    let imported = auto(
        "acme",
        &[
            (
                "kit/.claude-plugin/plugin.json",
                r#"{"name": "kit", "version": "0.1.0"}"#,
            ),
            ("kit/hooks/hooks.json", HOOKS),
        ],
    );
    let source = contrib::source::SourceFile::new("kit.contrib", only(&imported).to_string());
    let names: Vec<&str> = contrib::analyze(&source, &Config::platform())
        .diagnostics
        .iter()
        .map(|diagnostic| diagnostic.rule.name)
        .collect();
    assert_eq!(names, ["unknown-tool"]);

    // Declared as what it is, the hook is refused by name.
    let (config, problems) = Config::from_source(contrib::source::SourceFile::new(
        "contrib.toml",
        "[tools.run_shell_command]\neffect = \"write\"\nparams = { command = \"string\" }\n",
    ));
    assert!(problems.is_empty(), "{problems:#?}");
    let names: Vec<&str> = contrib::analyze(&source, &config)
        .diagnostics
        .iter()
        .map(|diagnostic| diagnostic.rule.name)
        .collect();
    assert_eq!(names, ["eager-run-writes"]);
}

#[test]
fn kimi_manifest_instructions_and_session_start_skill() {
    let imported = auto(
        "wild",
        &[
            (
                "sp/.kimi-plugin/plugin.json",
                r#"{"name": "sp", "version": "2.0.0", "skills": "./skills/", "sessionStart": {"skill": "boot"}, "skillInstructions": "Use `AskUserQuestion` for choices.\n- One question at a time."}"#,
            ),
            (
                "sp/.claude-plugin/plugin.json",
                r#"{"name": "sp", "version": "2.0.1", "description": "Skills"}"#,
            ),
            (
                "sp/skills/boot/SKILL.md",
                "---\nname: boot\ndescription: Read first.\nversion: 1.2.0\n---\nAlways check for a skill before answering.\n",
            ),
        ],
    );
    insta::assert_snapshot!(only(&imported));
}

#[test]
fn cursor_rules() {
    let imported = auto(
        "rules",
        &[
            (
                ".cursor/rules/always.mdc",
                "---\ndescription: House style\nglobs:\nalwaysApply: true\n---\nUse `{}` for empty objects.\n",
            ),
            (
                ".cursor/rules/globbed.mdc",
                "---\ndescription: Go rules\nglobs: **/*.go, cmd/**\nalwaysApply: false\n---\n\n# Go\n\n\tTabs are fine.\n",
            ),
            (
                ".cursor/rules/requested.mdc",
                "---\ndescription: When writing migrations\nalwaysApply: false\n---\nNever drop columns.\n",
            ),
            (".cursor/rules/manual.mdc", "---\nalwaysApply: false\n---\nManual rule.\n"),
            (".cursor/rules/empty.mdc", "---\ndescription: x\nglobs: **/*\n---\n\n"),
            (
                ".cursor/commands/deslop.md",
                "Remove AI slop from the diff: \"\"\"quoted\"\"\" and C:\\path.\n",
            ),
        ],
    );
    insta::assert_snapshot!(only(&imported));
    let contributors = &imported.manifests[0].contributors;
    assert!(contributors
        .iter()
        .all(|contributor| contributor.placement == Placement::Agent));
    assert_eq!(
        activations(&imported),
        [
            ("rule-always", ActivationKind::Always),
            ("rule-globbed", ActivationKind::Files),
            ("rule-manual", ActivationKind::Command),
            ("rule-requested", ActivationKind::Request),
            ("command-deslop-prompt", ActivationKind::Command),
        ]
    );
    assert_eq!(findings(&imported), Vec::<&str>::new());
}

/// Each contributor of the only manifest: its id, and when it applies.
fn activations(imported: &Imported) -> Vec<(&str, ActivationKind)> {
    imported.manifests[0]
        .contributors
        .iter()
        .map(|contributor| (contributor.id.as_str(), contributor.activation))
        .collect()
}

/// The names of the rules `contrib check` reports on the only manifest.
fn findings(imported: &Imported) -> Vec<&'static str> {
    let source = contrib::source::SourceFile::new("x.contrib", only(imported).to_string());
    contrib::analyze(&source, &Config::platform())
        .diagnostics
        .iter()
        .map(|diagnostic| diagnostic.rule.name)
        .collect()
}

#[test]
fn cursor_globs_as_authors_write_them() {
    let imported = auto(
        "rules",
        &[
            (
                ".cursor/rules/unquoted.mdc",
                "---\ndescription: Everything\nglobs: **/*\n---\nThese conventions hold for every file in the project.\n",
            ),
            (
                ".cursor/rules/braces.mdc",
                "---\nglobs: **/*.{ts,tsx}, /src/**/*.rs,./docs/*.md\n---\nKeep functions short and name them after what they do.\n",
            ),
            (
                ".cursor/rules/listed.mdc",
                "---\nglobs: [\"**/*.py\", \"pyproject.toml\"]\n---\nUse type hints on every public function.\n",
            ),
            (
                ".cursor/rules/broken.mdc",
                "---\ndescription: Schema rules\nglobs: [\"src/[a\", \"{x,y\"]\n---\nEvery schema change needs a migration and a test.\n",
            ),
            (
                ".cursor/rules/half.mdc",
                "---\nglobs: [\"src/[a\", \"lib/**\"]\n---\nLibraries never print; they return errors.\n",
            ),
        ],
    );
    let text = only(&imported);
    for line in [
        "applies to files [\"**/*.{ts,tsx}\", \"src/**/*.rs\", \"docs/*.md\"]",
        "# `/src/**/*.rs` is written `src/**/*.rs`: globs are relative to the workspace",
        "applies on request \"Schema rules\"",
        "applies to files [\"lib/**\"]",
        "applies to files [\"**/*.py\", \"pyproject.toml\"]",
        "applies to files [\"**/*\"]",
        "# not mapped (.cursor/rules/broken.mdc): `globs` glob `src/[a` is not one the language reads",
        "# not mapped (.cursor/rules/half.mdc): `globs` glob `src/[a` is not one the language reads",
    ] {
        assert!(text.contains(line), "no `{line}` in\n{text}");
    }
    let globs = imported.manifests[0]
        .notes
        .iter()
        .filter(|note| note.category == "glob")
        .count();
    assert_eq!(globs, 3);
    assert_eq!(findings(&imported), Vec::<&str>::new());
}

#[test]
fn a_person_owns_what_they_import_at_person_placement() {
    let options = Options {
        owner: Owner::Person,
        ..Options::default()
    };
    let imported = run(
        "mine",
        &[
            (
                ".cursor/rules/requested.mdc",
                "---\ndescription: When writing migrations\n---\nNever drop columns.\n",
            ),
            ("AGENTS.md", "Rules.\n"),
        ],
        &options,
    );
    let placements: Vec<Placement> = imported.manifests[0]
        .contributors
        .iter()
        .map(|contributor| contributor.placement)
        .collect();
    assert_eq!(placements, [Placement::Person, Placement::Person]);
    // Whether a person's text should reach turns nobody is waiting on is
    // theirs to decide: the sources do not say, so the import leaves the
    // default and the checker asks.
    assert_eq!(
        findings(&imported),
        ["reach-without-audience", "reach-without-audience"]
    );
}

#[test]
fn instruction_files_in_folder_order() {
    let imported = auto(
        "repo",
        &[
            ("web/AGENTS.md", "Web rules.\n"),
            ("AGENTS.md", "# Repo\r\nUse pnpm.\r\n"),
            ("CLAUDE.md", "@AGENTS.md\n"),
            (
                ".github/copilot-instructions.md",
                "Prefer types over interfaces.\n",
            ),
            (
                ".github/instructions/tests.instructions.md",
                "---\napplyTo: \"**/*.test.ts,**/*.spec.ts\"\ndescription: Tests\n---\nUse vitest.\n",
            ),
            (
                ".github/instructions/release.instructions.md",
                "Attach when releasing.\n",
            ),
            (".claude/CLAUDE.md", "Project memory.\n"),
            ("pkg/[v2]/CLAUDE.md", "Version two.\n"),
            (
                ".claude/rules/db.md",
                "---\npaths:\n  - \"db/**\"\n---\nNever drop tables.\n",
            ),
            ("web/src/app/AGENTS.md", "App rules.\n"),
        ],
    );
    insta::assert_snapshot!(only(&imported));
    assert_eq!(
        activations(&imported),
        [
            ("agents-md", ActivationKind::Always),
            ("claude-md", ActivationKind::Always),
            ("claude-claude-md", ActivationKind::Always),
            ("claude-rules-db-md", ActivationKind::Files),
            ("github-copilot-instructions-md", ActivationKind::Always),
            (
                "github-instructions-release-instructions-md",
                ActivationKind::Command
            ),
            (
                "github-instructions-tests-instructions-md",
                ActivationKind::Files
            ),
            ("pkg-v2-claude-md", ActivationKind::Files),
            ("web-agents-md", ActivationKind::Files),
            ("web-src-app-agents-md", ActivationKind::Files),
        ]
    );
    assert_eq!(findings(&imported), Vec::<&str>::new());
}

const BUNDLE: &str = r#"{
  "manifest_version": "0.3",
  "name": "Copilot Money",
  "version": "{{VERSION}}",
  "description": "Read your budgets",
  "author": { "name": "Ignacio" },
  "tools": [
    { "name": "getTransactions", "description": "List transactions" },
    { "name": "get_current_time", "description": "The time" },
    { "name": "refresh.database", "description": "Refresh the local cache" }
  ],
  "tools_generated": true,
  "user_config": {
    "api_key": { "type": "string", "title": "API key", "sensitive": true, "required": true }
  },
  "server": { "type": "node", "entry_point": "server/index.js" }
}"#;

#[test]
fn mcp_bundle() {
    let imported = auto("bundles", &[("money/manifest.json", BUNDLE)]);
    insta::assert_snapshot!(only(&imported));
}

#[test]
fn bundle_manifest_versions_outside_the_known_range_warn() {
    let imported = auto(
        "bundles",
        &[(
            "old/manifest.json",
            r#"{"dxt_version": "1.0", "name": "old", "version": "1.0.0", "description": "Old"}"#,
        )],
    );
    let manifest = &imported.manifests[0];
    assert!(manifest
        .text
        .contains("# WARNING (old/manifest.json): `dxt_version` is 1.0"));
    assert!(manifest.notes.iter().any(|note| note.warning));
}

#[test]
fn format_filters_and_owner() {
    let files = [("s/SKILL.md", SKILL), ("AGENTS.md", "Rules.\n")];
    let options = Options {
        format: Format::Skill,
        owner: Owner::Workspace,
        scope: Some("Team Tools".into()),
    };
    let imported = run("repo", &files, &options);
    let manifest = &imported.manifests[0];
    assert_eq!(manifest.plugin, "team-tools/repo");
    assert_eq!(manifest.contributors.len(), 1);
    assert!(imported
        .skipped
        .iter()
        .any(|skipped| skipped.file == "AGENTS.md" && skipped.reason == "not a skill file"));
    // Below agent priority the framing is part of what the text adds.
    let agent_author = auto("repo", &files[..1]);
    assert!(
        manifest.contributors[0].tokens > agent_author.manifests[0].contributors[0].tokens + 10
    );
    assert!(manifest.text.contains("owner workspace"));
}

#[test]
fn broken_json_is_a_failure_not_a_panic() {
    let tree = SourceTree::from_files(
        "acme",
        [
            ("kit/.claude-plugin/plugin.json", "{ not json"),
            ("kit/agents/a.md", AGENT),
            ("other/AGENTS.md", "Fine.\n"),
        ],
    );
    let imported = import::import(&tree, &Options::default(), &Config::platform());
    assert_eq!(imported.failures.len(), 1);
    assert_eq!(imported.failures[0].file, "kit/.claude-plugin/plugin.json");
    // The plugin imports without its manifest, named by its folder, and the
    // other project imports too.
    let plugins: Vec<&str> = imported
        .manifests
        .iter()
        .map(|manifest| manifest.plugin.as_str())
        .collect();
    assert_eq!(plugins, ["acme/kit", "acme/other"]);
    assert_eq!(imported.files_read, 2);
    for manifest in &imported.manifests {
        imported::assert_canonical(manifest);
    }
}

#[test]
fn a_text_over_the_string_limit_is_a_failure_not_a_broken_manifest() {
    let big = "x".repeat(contrib::limits::MAX_STRING_BYTES + 1);
    let tree = SourceTree::from_files(
        "repo",
        [("AGENTS.md", big.as_str()), ("CLAUDE.md", "Small.\n")],
    );
    let imported = import::import(&tree, &Options::default(), &Config::platform());
    assert_eq!(imported.failures.len(), 1);
    assert_eq!(imported.failures[0].file, "AGENTS.md");
    assert_eq!(imported.manifests[0].contributors.len(), 1);
    imported::assert_canonical(&imported.manifests[0]);
}

/// What was imported, built and composed: the notes a turn gets, by
/// contributor id, when `files` are in play and `command` is invoked.
fn told(imported: &Imported, files: &[&str], command: Option<&str>) -> Vec<String> {
    use contrib::runtime::{CliGate, Composer, Profile, Session, Timestamp, TurnInput};
    let source = contrib::source::SourceFile::new("x.contrib", only(imported).to_string());
    let config = Config::platform();
    let plugin = contrib::analyze(&source, &config)
        .plugin
        .expect("the manifest lowers");
    let bundles = [contrib::bundle::build(&plugin, &config).expect("a bundle")];
    let session = Session::from_toml(
        "started_at = \"2026-03-02T09:00:00Z\"\n[agent]\nname = \"Helper\"\n[model]\nname = \"claude-sonnet-4-5\"\n",
    )
    .expect("a session");
    let profile = Profile::none();
    let mut conversation = Composer::start(&bundles, session, CliGate, &profile);
    let at = Timestamp::parse("2026-03-02T09:05:00Z").expect("a time");
    let mut input = TurnInput::reply_at(at);
    input.files = files.iter().map(|file| file.to_string()).collect();
    input.command = command.map(str::to_string);
    let turn = conversation.turn(input);
    turn.notes
        .iter()
        .map(|note| {
            note.contributor
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

#[test]
fn imported_conditions_hold_at_run_time() {
    let imported = auto(
        "repo",
        &[
            (
                "AGENTS.md",
                "Use pnpm for every package in this repository.\n",
            ),
            (
                "pkg/[v2]/AGENTS.md",
                "Version two keeps the old wire format.\n",
            ),
            (
                ".cursor/rules/go.mdc",
                "---\nglobs: **/*.go, /cmd/**\n---\nRun gofmt before every commit.\n",
            ),
            (
                ".claude/commands/ship.md",
                "Tag the release and push the tag to the remote.\n",
            ),
        ],
    );
    assert_eq!(told(&imported, &["README.md"], None), Vec::<String>::new());
    assert_eq!(
        told(&imported, &["pkg/[v2]/wire.ts"], None),
        ["pkg-v2-agents-md"]
    );
    assert_eq!(
        told(&imported, &["pkg/v2/wire.ts", "cmd/main.rs"], None),
        ["rule-go"]
    );
    assert_eq!(told(&imported, &[], Some("ship")), ["command-ship-prompt"]);
}

//! An Agent Plugins package read as a client loads it: the manifest names
//! the plugin (or refuses it), only `skills/*/SKILL.md` that follow the
//! Agent Skills specification are skills, and `mcp.json` gives the servers
//! (or disables MCP). The rules themselves are in [`super::agent_plugin`].

use super::detect::FileKind;
use super::emit::{self, Draft};
use super::{
    agent_plugin, claude_plugin, folder_of, metadata_note, skill, Failure, Found, InputFile, Note,
    Problem, ProblemKind,
};

/// An Agent Plugins package, read.
pub(super) struct Package {
    /// The `SKILL.md` files discovered and valid.
    pub skills: Vec<String>,
}

/// Reads an Agent Plugins package's manifest, skills and MCP servers, as
/// a client would load it; `None` when the plugin is refused.
pub(super) fn read(
    root: &str,
    manifest_file: &InputFile,
    files: &[(&InputFile, FileKind)],
    draft: &mut Draft,
    found: &mut Found,
) -> Option<Package> {
    let before = found.problems.len();
    let Some(manifest) =
        agent_plugin::manifest(&manifest_file.path, &manifest_file.text, found.problems)
    else {
        let why = found.problems[before..]
            .iter()
            .find(|problem| problem.kind == ProblemKind::InvalidPluginManifest)
            .map_or("it is invalid".to_string(), |problem| {
                problem.message.clone()
            });
        found.failures.push(Failure {
            file: manifest_file.path.clone(),
            message: why,
        });
        return None;
    };
    draft.read(&manifest_file.path);
    identity(&manifest_file.path, &manifest, draft, found.scope_given);
    for problem in &found.problems[before..] {
        draft
            .notes
            .push(Note::new(&problem.file, "field", problem.message.clone()));
    }
    let within = |name: &str| match root {
        "" => name.to_string(),
        root => format!("{root}/{name}"),
    };
    let mut skills = Vec::new();
    let skills_folder = within("skills");
    if found.paths.contains(skills_folder.as_str()) {
        found.problems.push(Problem::new(
            &skills_folder,
            crate::source::Span::point(0),
            ProblemKind::MissingPath,
            "`skills` is a file, not a folder, so the plugin's skills are not read",
            "not a folder",
            "make `skills/` a folder holding one folder per skill",
        ));
    } else {
        for (file, kind) in files {
            if *kind != FileKind::Skill {
                continue;
            }
            let folder = folder_of(&file.path);
            if folder_of(folder) != skills_folder {
                draft.notes.push(Note::new(
                    &file.path,
                    "skill",
                    "not an immediate child of `skills/`, so Agent Plugins clients do not discover it",
                ));
                continue;
            }
            if skill::validate(&file.path, &file.text, true, found.problems) {
                skills.push(file.path.clone());
            } else {
                draft.notes.push(Note::new(
                    &file.path,
                    "skill",
                    "the skill breaks the Agent Skills specification, so clients skip it (see the problems)",
                ));
            }
        }
    }
    let mcp_path = within("mcp.json");
    let prefix = format!("{mcp_path}/");
    if found.paths.iter().any(|path| path.starts_with(&prefix)) {
        found.problems.push(Problem::new(
            &mcp_path,
            crate::source::Span::point(0),
            ProblemKind::MissingPath,
            "`mcp.json` is a folder, not a file, so MCP is disabled for the plugin",
            "not a file",
            "make `mcp.json` a file holding `$schema` and `mcpServers`",
        ));
    } else if let Some((file, _)) = files.iter().find(|(file, _)| file.path == mcp_path) {
        match agent_plugin::mcp(&file.path, &file.text, manifest.spec, found.problems) {
            Some(servers) => claude_plugin::checked_servers(&file.path, servers, draft),
            None => {
                draft.read(&file.path);
                draft.notes.push(Note::new(
                    &file.path,
                    "mcp server",
                    "MCP is disabled for the plugin: its `mcp.json` is invalid (see the problems)",
                ));
            }
        }
    }
    // The package loads: whatever else is wrong skips or ignores only the
    // component it names, which the specification's reference reports as
    // a warning.
    for problem in &mut found.problems[before..] {
        problem.severity = crate::diagnostic::Severity::Warning;
    }
    Some(Package { skills })
}

/// The plugin's name, version, summary and header, from an Agent Plugins
/// manifest. The name is kept as written in the header; in the language,
/// a dotted name gives the scope (all but its last part, dots as `-`) and
/// the name (its last part) unless `--scope` was given, in which case the
/// whole name is the name (`acme.reports` → `acme/reports`, or
/// `SCOPE/acme-reports`).
fn identity(file: &str, manifest: &agent_plugin::Manifest, draft: &mut Draft, scope_given: bool) {
    let draft_spec = agent_plugin::VERSIONS
        .iter()
        .any(|(version, draft)| *version == manifest.spec && *draft);
    draft.header.push(format!(
        "Agent Plugins {}{} package `{}`{}",
        manifest.spec,
        if draft_spec { " (a draft)" } else { "" },
        manifest.name,
        manifest
            .version
            .as_deref()
            .map_or(String::new(), |version| format!(" {version}"))
    ));
    match manifest.name.rsplit_once('.') {
        Some((scope, name)) if !scope_given => {
            draft.scope = emit::kebab(scope, "imported");
            draft.name = emit::kebab(name, "plugin");
        }
        _ => draft.name = emit::kebab(&manifest.name, "plugin"),
    }
    if let Some(display) = &manifest.display_name {
        draft.header.push(format!(
            "Display name (`presentation.displayName`): {display}"
        ));
    }
    match &manifest.version {
        Some(version) => match semver::Version::parse(version) {
            Ok(parsed) => draft.version = parsed,
            Err(_) => claude_plugin::warn_version(
                draft,
                file,
                format!(
                    "the Agent Plugins manifest's version `{version}` is not a semantic version"
                ),
            ),
        },
        None => claude_plugin::warn_version(
            draft,
            file,
            "the Agent Plugins manifest gives no version".into(),
        ),
    }
    let mut described = serde_json::Map::new();
    if let Some(description) = &manifest.description {
        described.insert("description".into(), description.clone().into());
    }
    if let Some(author) = &manifest.author {
        described.insert("author".into(), author.clone());
    }
    if let Some(license) = &manifest.license {
        described.insert("license".into(), license.clone().into());
    }
    claude_plugin::describe(draft, &described);
    if !manifest.metadata.is_empty() {
        draft
            .notes
            .push(metadata_note(file, manifest.metadata.clone()));
    }
}

//! The import itself: a source folder's files grouped into units (a plugin
//! root, a project's files), each unit read by its format's importer into a
//! draft, checked against the language's limits and emitted as a manifest.
//! Apart from `mod.rs` so the options and results stay readable on their own.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::config::Config;

use super::detect::{FileKind, Host, Layout, Unit};
use super::emit::{self, Draft};
use super::{
    checks, claude_loader, claude_plugin, copilot, cursor, instructions, mcpb, package, skill,
};
use super::{
    folder_of, Failure, Format, Imported, InputFile, Note, Options, Problem, ProblemKind, Skipped,
    SourceTree,
};

/// Imports one source folder.
pub fn import(tree: &SourceTree, options: &Options, config: &Config) -> Imported {
    import_into(tree, options, config, &mut HashSet::new())
}

/// Imports several source folders, keeping every plugin's name distinct
/// across them (they may share a scope).
pub fn import_all(trees: &[SourceTree], options: &Options, config: &Config) -> Vec<Imported> {
    let mut names = HashSet::new();
    trees
        .iter()
        .map(|tree| import_into(tree, options, config, &mut names))
        .collect()
}

/// Imports one source folder; `names` holds the `scope/name`s taken.
fn import_into(
    tree: &SourceTree,
    options: &Options,
    config: &Config,
    names: &mut HashSet<String>,
) -> Imported {
    let scope = emit::kebab(options.scope.as_deref().unwrap_or(&tree.name), "imported");
    let layout = Layout::new(tree.files.iter().map(|file| file.path.as_str()));
    let mut skipped = tree.skipped.clone();
    let mut units: BTreeMap<Unit, Vec<(&InputFile, FileKind)>> = BTreeMap::new();
    for file in &tree.files {
        match layout.classify(&file.path, &file.text) {
            Ok(kind) if options.format.accepts(&kind) => {
                units
                    .entry(layout.unit(&file.path, &kind))
                    .or_default()
                    .push((file, kind));
            }
            Ok(_) => skipped.push(Skipped {
                file: file.path.clone(),
                reason: format!("not a {} file", format_name(options.format)),
            }),
            Err(reason) => skipped.push(Skipped {
                file: file.path.clone(),
                reason: reason.to_string(),
            }),
        }
    }

    let mut failures = tree.failures.clone();
    let mut problems = Vec::new();
    let paths: HashSet<&str> = tree
        .files
        .iter()
        .map(|file| file.path.as_str())
        .chain(tree.skipped.iter().map(|skipped| skipped.file.as_str()))
        .collect();
    let mut checked = Vec::new();
    let (marketplace_problems, anthropic_plugins) = marketplaces(tree);
    checked.extend(marketplace_problems);
    checked.extend(named_hooks(tree));
    let known = checks::Known::new(&paths).with_anthropic_plugins(anthropic_plugins);
    for file in &tree.files {
        if layout.is_skill_resource(&file.path) {
            checked.extend(checks::resource_links(file, &known));
        }
    }
    for files in units.values() {
        let package = files.iter().any(|(file, kind)| {
            *kind == FileKind::PluginManifest(Host::AgentPlugins)
                && layout.unit(&file.path, kind) == Unit::Folder(folder_of(&file.path).to_string())
        });
        for (file, kind) in files {
            let in_package = package && *kind == FileKind::Skill;
            checked.extend(checks::file_problems(file, kind, &known, in_package));
        }
    }
    let mut drafts = Vec::new();
    let mut left_out = Vec::new();
    for (unit, files) in &units {
        let mut draft = Draft::new(&scope, &unit_name(unit, &tree.name));
        attribute(&mut draft, tree, unit);
        match unit {
            Unit::Bundle(_) => {
                for (file, _) in files {
                    if let Err(failure) = mcpb::import(file, &mut draft) {
                        failures.push(failure);
                    }
                }
            }
            Unit::Folder(root) => {
                let mut found = Found {
                    failures: &mut failures,
                    problems: &mut problems,
                    paths: &paths,
                    scope_given: options.scope.is_some(),
                };
                plugin(root, files, config, &mut draft, &mut found)
            }
        }
        hidden_notes(&mut draft, &checked);
        within_limits(&mut draft, &mut failures, &mut left_out);
        // A unit whose every file failed has nothing to write.
        if !draft.files.is_empty() {
            drafts.push((unit, draft));
        }
    }

    let mut manifests = Vec::new();
    let mut oversized = Vec::new();
    let mut files_read = BTreeSet::new();
    for (unit, mut draft) in drafts {
        draft.name = distinct_name(&draft.scope, &draft.name, unit, names);
        let manifest = emit::emit(&draft, options.owner, config);
        if manifest.text.len() > crate::limits::MAX_FILE_BYTES {
            failures.push(Failure {
                file: unit.path().to_string(),
                message: format!(
                    "the manifest would be {} bytes, over the 4 MiB limit; import its folders one at a time",
                    manifest.text.len()
                ),
            });
            oversized.push(manifest);
            continue;
        }
        files_read.extend(manifest.files.iter().cloned());
        manifests.push(manifest);
    }
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    problems.extend(checked);
    problems.sort_by(|a, b| (&a.file, a.span.start).cmp(&(&b.file, b.span.start)));
    problems.dedup();
    let mut formats = BTreeMap::new();
    for (_, kind) in units.values().flatten() {
        *formats.entry(kind.label()).or_insert(0) += 1;
    }
    Imported {
        formats,
        source: tree.name.clone(),
        manifests,
        files_read: files_read.len(),
        skipped,
        failures,
        problems,
        left_out,
        oversized,
    }
}

/// The problems of the source's Claude Code marketplaces, and the plugins
/// that marketplaces of Anthropic's own list. A marketplace is no plugin,
/// so it is judged here rather than imported.
fn marketplaces(tree: &SourceTree) -> (Vec<Problem>, HashSet<String>) {
    let mut problems = Vec::new();
    let mut anthropic = HashSet::new();
    for file in &tree.files {
        if !claude_loader::is_marketplace(&file.path) {
            continue;
        }
        let (found, listed, reserved) = claude_loader::marketplace(file);
        problems.extend(found);
        if reserved {
            anthropic.extend(listed);
        }
    }
    (problems, anthropic)
}

/// The hooks files a Claude Code `plugin.json` names in `hooks` (other
/// than `hooks/hooks.json`, which Claude Code reads by itself and the
/// file checks judge), judged as Claude Code reads them.
fn named_hooks(tree: &SourceTree) -> Vec<Problem> {
    let mut problems = Vec::new();
    for manifest in &tree.files {
        if !manifest.path.ends_with(".claude-plugin/plugin.json") {
            continue;
        }
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&manifest.text) else {
            continue;
        };
        let named: Vec<&str> = match value.get("hooks") {
            Some(serde_json::Value::String(path)) => vec![path.as_str()],
            Some(serde_json::Value::Array(paths)) => {
                paths.iter().filter_map(serde_json::Value::as_str).collect()
            }
            _ => continue,
        };
        let root = folder_of(folder_of(&manifest.path));
        for path in named {
            let relative = path.trim_start_matches("./");
            let joined = if root.is_empty() {
                relative.to_string()
            } else {
                format!("{root}/{relative}")
            };
            if format!("/{joined}").ends_with("/hooks/hooks.json") {
                continue;
            }
            if let Some(file) = tree.files.iter().find(|file| file.path == joined) {
                problems.extend(claude_loader::hooks_file(file, false));
            }
        }
    }
    problems
}

/// What reading a folder unit finds besides its draft.
pub(crate) struct Found<'a> {
    pub failures: &'a mut Vec<Failure>,
    pub problems: &'a mut Vec<Problem>,
    /// Every path of the source, read or skipped.
    pub paths: &'a HashSet<&'a str>,
    /// Whether `--scope` was given (a dotted Agent Plugins name gives the
    /// scope otherwise).
    pub scope_given: bool,
}

/// A warning for each invisible character in the plugin's sources: the
/// manifest writes it as an escape (`\u{2060}`), which `hidden-character`
/// accepts as meant, yet the model still receives the character.
fn hidden_notes(draft: &mut Draft, checked: &[Problem]) {
    for problem in checked {
        if problem.kind == ProblemKind::InvisibleCharacter && draft.files.contains(&problem.file) {
            draft.notes.push(Note::warning(
                &problem.file,
                "hidden",
                format!("{}; the manifest writes it as an escape", problem.message),
            ));
        }
    }
}

/// Drops what the language could not read back: a text over its string
/// limit, contributors past its limit per plugin. Each is a failure of its
/// source file, never a manifest with a language error in it.
///
/// Each is also in `left_out`, for `contrib check` to report where it is.
fn within_limits(draft: &mut Draft, failures: &mut Vec<Failure>, left_out: &mut Vec<Failure>) {
    let mut dropped = Vec::new();
    draft.contributors.retain(|contributor| {
        let fits = emit::fits_string_limit(&contributor.content);
        if !fits {
            dropped.push(Failure {
                file: contributor.source.clone(),
                message: format!(
                    "its text is over the language's limit of {} bytes for one string",
                    crate::limits::MAX_STRING_BYTES
                ),
            });
        }
        fits
    });
    let limit = crate::limits::MAX_CONTRIBUTORS;
    if draft.contributors.len() > limit {
        for contributor in draft.contributors.drain(limit..) {
            dropped.push(Failure {
                file: contributor.source,
                message: format!(
                    "the plugin already has {limit} contributors, the language's limit; import its folders one at a time"
                ),
            });
        }
    }
    failures.extend(dropped.iter().cloned());
    left_out.extend(dropped);
}

fn format_name(format: Format) -> &'static str {
    match format {
        Format::Auto => "supported",
        Format::Skill => "skill",
        Format::ClaudePlugin => "claude-plugin",
        Format::Cursor => "cursor",
        Format::Instructions => "instructions",
        Format::Mcpb => "mcpb",
        Format::Copilot => "copilot",
        Format::AgentPlugin => "agent-plugin",
        Format::Mcp => "mcp",
    }
}

/// A unit's name before any manifest says otherwise: its folder's name
/// (without a leading dot), or the source's for the top folder.
fn unit_name(unit: &Unit, source: &str) -> String {
    let path = match unit {
        Unit::Folder(root) => root.as_str(),
        Unit::Bundle(file) => file.rsplit_once('/').map_or("", |(dir, _)| dir),
    };
    match path.rsplit('/').next() {
        Some(last) if !last.is_empty() => last.trim_start_matches('.').to_string(),
        _ => source.to_string(),
    }
}

/// Plugin names are file names under the scope, so two units that call
/// themselves the same are told apart by where they are: their folder (or
/// the bundle manifest's file name), else their whole path.
fn distinct_name(scope: &str, name: &str, unit: &Unit, taken: &mut HashSet<String>) -> String {
    let place = match unit {
        Unit::Folder(root) => root.clone(),
        Unit::Bundle(file) => file.trim_end_matches(".json").to_string(),
    };
    let nearest = place.rsplit('/').next().unwrap_or(&place).to_string();
    let candidates = [
        name.to_string(),
        emit::kebab(&format!("{name} {nearest}"), "plugin"),
        emit::kebab(&format!("{name} {place}"), "plugin"),
    ];
    for candidate in &candidates {
        if taken.insert(format!("{scope}/{candidate}")) {
            return candidate.clone();
        }
    }
    let longest = &candidates[2];
    let mut n = 2;
    loop {
        let candidate = format!("{longest}-{n}");
        if taken.insert(format!("{scope}/{candidate}")) {
            return candidate;
        }
        n += 1;
    }
}

/// The header every manifest starts with: where it came from, under what
/// licence, and that a person should review it.
fn attribute(draft: &mut Draft, tree: &SourceTree, unit: &Unit) {
    let place = match unit.path() {
        "" => tree.name.clone(),
        path => format!("{}/{path}", tree.name),
    };
    draft.header.push(format!(
        "Imported by `contrib import` from {place}; review before use."
    ));
    for note in tree.attribution_for(unit.path()) {
        draft.header.push(format!("Source: {note}"));
    }
}

/// A folder unit: a plugin root, or a project's files.
fn plugin(
    root: &str,
    files: &[(&InputFile, FileKind)],
    config: &Config,
    draft: &mut Draft,
    found: &mut Found,
) {
    let of = |wanted: &dyn Fn(&FileKind) -> bool| -> Vec<&InputFile> {
        let mut chosen: Vec<&InputFile> = files
            .iter()
            .filter(|(_, kind)| wanted(kind))
            .map(|(file, _)| *file)
            .collect();
        chosen.sort_by(|a, b| a.path.cmp(&b.path));
        chosen
    };
    let package = of(&|kind| *kind == FileKind::PluginManifest(Host::AgentPlugins))
        .into_iter()
        .find(|file| folder_of(&file.path) == root);
    let package = match package {
        Some(file) => match package::read(root, file, files, draft, found) {
            Some(package) => Some(package),
            // A refused plugin: none of its components is read.
            None => return,
        },
        None => None,
    };
    let mut always_loaded = claude_plugin::manifests(
        root,
        &of(&|kind| matches!(kind, FileKind::PluginManifest(host) if *host != Host::AgentPlugins)),
        draft,
        found.failures,
        package.is_some(),
    );
    let mut instruction_files = of(&|kind| matches!(kind, FileKind::Instructions));
    instruction_files.sort_by_key(|file| instructions::folder_order(&file.path));
    let siblings: Vec<&str> = instruction_files
        .iter()
        .map(|file| file.path.as_str())
        .collect();
    for file in &instruction_files {
        for (skill, why) in instructions::import(root, file, &siblings, draft) {
            always_loaded
                .entry(skill)
                .and_modify(|reasons| {
                    reasons.push_str("; ");
                    reasons.push_str(&why);
                })
                .or_insert(why);
        }
    }
    for file in of(&|kind| matches!(kind, FileKind::CursorRule)) {
        cursor::import(file, draft);
    }
    for file in of(&|kind| matches!(kind, FileKind::Skill)) {
        if let Some(package) = &package {
            if !package.skills.contains(&file.path) {
                continue;
            }
        }
        skill::import(file, &always_loaded, config, draft);
    }
    for file in of(&|kind| matches!(kind, FileKind::Agent | FileKind::CopilotAgent)) {
        claude_plugin::agent(file, config, draft);
    }
    for file in of(&|kind| matches!(kind, FileKind::Command { .. } | FileKind::PromptFile)) {
        claude_plugin::command(file, config, draft);
    }
    for file in of(&|kind| matches!(kind, FileKind::ChatMode)) {
        copilot::chat_mode(file, config, draft);
    }
    for file in of(&|kind| {
        matches!(
            kind,
            FileKind::Hooks | FileKind::Settings | FileKind::CopilotHooks
        )
    }) {
        if let Err(failure) = claude_plugin::hooks(file, draft) {
            found.failures.push(failure);
        }
    }
    for file in of(&|kind| matches!(kind, FileKind::McpServers(_))) {
        if package.is_some() && folder_of(&file.path) == root && file.path.ends_with("/mcp.json")
            || package.is_some() && root.is_empty() && file.path == "mcp.json"
        {
            continue;
        }
        if let Err(failure) = claude_plugin::mcp_servers(file, draft) {
            found.failures.push(failure);
        }
    }
}

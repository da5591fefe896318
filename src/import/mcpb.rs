//! MCP bundle manifests (`manifest.json`; DXT before it was renamed), with
//! `dxt_version` or `manifest_version` 0.1 to 0.4.
//!
//! A bundle is a plugin of its own: its name, version and description
//! become the plugin's. The tools it declares become one `eager-load`
//! candidate at `agent` placement, because a desktop client loads every
//! tool of an installed bundle into every conversation; the comment lists
//! each tool with its description so a person can keep only the tools
//! every conversation needs. Tool names are respelt as the language wants
//! them (`getTransactions` → `get_transactions`), each change noted. The
//! budget is measured on the tools' names and descriptions, the best
//! estimate of their schemas until the workspace declares `schema_tokens`.
//!
//! `user_config` (settings a person gives at install) is listed in a
//! comment: the values are per person and reach the server, not the
//! prompt. A manifest version outside 0.1–0.4 is read the same way, with a
//! warning.

use serde_json::{Map, Value};

use super::claude_plugin::{display, unmapped_field};
use super::emit::{tool_name, Content, Draft, DraftContributor};
use super::{json, metadata_note, shorten, Failure, InputFile, Note};
use crate::ir::Placement;

const KNOWN_VERSIONS: &[&str] = &["0.1", "0.2", "0.3", "0.4"];

/// Keys that describe or run the package and add nothing to a prompt.
const PACKAGE_KEYS: &[&str] = &[
    "$schema",
    "compatibility",
    "display_name",
    "documentation",
    "homepage",
    "icon",
    "icons",
    "id",
    "keywords",
    "localization",
    "long_description",
    "privacy_policies",
    "repository",
    "screenshots",
    "server",
    "support",
];

pub(super) fn import(file: &InputFile, draft: &mut Draft) -> Result<(), Failure> {
    let Value::Object(object) = json(file)? else {
        return Err(Failure {
            file: file.path.clone(),
            message: "a bundle manifest must be a JSON object".into(),
        });
    };
    draft.read(&file.path);
    draft
        .header
        .push(format!("An MCP bundle manifest ({}).", file.path));
    spec_version(file, &object, draft);
    identity(file, &object, draft);
    let mut package = Vec::new();
    for (key, value) in &object {
        match key.as_str() {
            "dxt_version" | "manifest_version" | "name" | "version" | "description" | "author"
            | "license" => {}
            "tools" => tools(file, value, draft),
            "user_config" => user_config(value, draft),
            "tools_generated" | "prompts_generated" => generated(file, key, value, draft),
            "prompts" => prompts(file, value, draft),
            key if PACKAGE_KEYS.contains(&key) => package.push((key.to_string(), display(value))),
            key => draft.notes.push(unmapped_field(file, key, value)),
        }
    }
    if !package.is_empty() {
        draft.notes.push(metadata_note(&file.path, package));
    }
    Ok(())
}

fn spec_version(file: &InputFile, object: &Map<String, Value>, draft: &mut Draft) {
    let (key, version) = match (object.get("manifest_version"), object.get("dxt_version")) {
        (Some(version), _) => ("manifest_version", display(version)),
        (None, Some(version)) => ("dxt_version", display(version)),
        (None, None) => return,
    };
    if !KNOWN_VERSIONS.contains(&version.as_str()) {
        let message =
            format!("`{key}` is {version}, outside the 0.1–0.4 this importer knows; read as 0.4");
        draft
            .notes
            .push(Note::warning(&file.path, "version", message));
    }
}

fn identity(file: &InputFile, object: &Map<String, Value>, draft: &mut Draft) {
    super::claude_plugin::name_and_version(file, object, "the bundle", "bundle", draft);
    super::claude_plugin::describe(draft, object);
}

fn tools(file: &InputFile, value: &Value, draft: &mut Draft) {
    let Some(tools) = value.as_array().filter(|tools| !tools.is_empty()) else {
        return;
    };
    let mut listed: Vec<(String, String)> = Vec::new();
    let mut comments = vec![
        format!("from {}: the bundle's tools, loaded into every conversation by desktop clients", file.path),
        "candidate: keep only the tools every conversation needs; declare each in contrib.toml with its effect and `schema_tokens`".into(),
        "budget: each tool the workspace declares at its `schema_tokens`, the others at their names and descriptions below".into(),
    ];
    for tool in tools {
        let Some(written) = tool.get("name").and_then(Value::as_str) else {
            draft.notes.push(
                Note::new(&file.path, "tool", "a tool without a name")
                    .detail(shorten(&display(tool))),
            );
            continue;
        };
        let name = tool_name(written);
        let description = tool
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();

        let renamed = if name == written {
            String::new()
        } else {
            format!(" (written `{written}`)")
        };
        comments.push(format!("- {name}{renamed}: {description}"));
        if !listed.iter().any(|(known, _)| *known == name) {
            listed.push((name, format!("{written}: {description}\n")));
        }
    }
    if listed.is_empty() {
        return;
    }
    draft.contributors.push(DraftContributor {
        activation: None,
        id: "tools".into(),
        source: file.path.clone(),
        comments,
        notes: Vec::new(),
        placement: Placement::Agent,
        content: Content::ToolLoad { tools: listed },
    });
}

/// Settings a person gives at install: per-person values that reach the
/// server, never the prompt.
fn user_config(value: &Value, draft: &mut Draft) {
    let Value::Object(settings) = value else {
        return;
    };
    if settings.is_empty() {
        return;
    }
    draft.header.push(
        "user_config (asked of each person at install; the values reach the server, not the prompt):"
            .into(),
    );
    for (key, setting) in settings {
        let field = |name: &str| setting.get(name).and_then(Value::as_str).unwrap_or("");
        let mut traits = vec![field("type").to_string()];
        for flag in ["required", "sensitive", "multiple"] {
            if setting.get(flag).and_then(Value::as_bool) == Some(true) {
                traits.push(flag.to_string());
            }
        }
        traits.retain(|text| !text.is_empty());
        let title = field("description");
        draft.header.push(format!(
            "- {key} ({}): {}",
            traits.join(", "),
            if title.is_empty() {
                field("title")
            } else {
                title
            }
        ));
    }
}

fn generated(file: &InputFile, key: &str, value: &Value, draft: &mut Draft) {
    if value.as_bool() == Some(true) {
        let what = if key == "tools_generated" {
            "tools"
        } else {
            "prompts"
        };
        draft.notes.push(Note::new(
            &file.path,
            "generated",
            format!("`{key}`: the server adds {what} at run time that the manifest does not list, so no budget covers them"),
        ));
    }
}

fn prompts(file: &InputFile, value: &Value, draft: &mut Draft) {
    let Some(prompts) = value.as_array() else {
        return;
    };
    for prompt in prompts {
        let name = prompt
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("(unnamed)");
        draft.notes.push(
            Note::new(
                &file.path,
                "prompt",
                format!("prompt `{name}`: a template a person invokes, not added up front"),
            )
            .detail(shorten(&display(prompt))),
        );
    }
}

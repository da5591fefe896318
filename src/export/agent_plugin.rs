//! Agent Plugins 1.0.0: a root `plugin.json` (its closed schema, §5) and
//! `skills/*/SKILL.md` (§7.1). The language has no MCP servers, so no
//! `mcp.json` is written.

use serde_json::{json, Value};

use super::{files, Out};
use crate::import::agent_plugin::{check_name, VERSIONS};
use crate::ir::Plugin;

/// The manifest's `$schema` for the version written.
fn schema() -> String {
    let version = VERSIONS
        .iter()
        .find(|(_, draft)| !draft)
        .map_or("1.0.0", |(version, _)| *version);
    format!("https://agent-plugins.org/schemas/{version}/plugin.schema.json")
}

/// Writes `plugin.json`; returns the package's folder name. The name is
/// `scope.name`, which `contrib import` reads back as `scope/name` (a name
/// over §5.5's 64 characters is the name alone, reported).
pub(super) fn manifest(plugin: &Plugin, out: &mut Out) -> String {
    let full = format!("{}.{}", plugin.name.value.scope, plugin.name.value.name);
    let name = if check_name(&full).is_ok() {
        full
    } else {
        out.report.not_expressed.push(super::Loss {
            contributor: None,
            what: "scope",
            why: format!(
                "`{full}` is over the 64 characters an Agent Plugins name may have, so the package is named `{}` without its scope",
                plugin.name.value.name
            ),
        });
        plugin.name.value.name.clone()
    };
    let mut manifest: Vec<(&str, Value)> = vec![
        ("$schema", schema().into()),
        ("name", name.clone().into()),
        ("version", plugin.version.value.to_string().into()),
    ];
    if let Some(summary) = &plugin.summary {
        manifest.push(("description", summary.value.clone().into()));
    }
    manifest.push(("author", json!({ "name": plugin.name.value.scope.clone() })));
    out.files
        .insert("plugin.json".into(), files::object(&manifest));
    out.report.package = name.clone();
    name
}

//! Agent Plugins packages (agent-plugins.org, specification 1.0.0; 1.1.0 in
//! draft): a root `plugin.json` with its `$schema`, skills in
//! `skills/*/SKILL.md`, MCP servers in `mcp.json`.
//!
//! Reading a package is validating it, as the specification says a client
//! must:
//!
//! - `plugin.json` (§5): a closed object. An unknown top-level field and a
//!   non-object `extensions` are reported and ignored (§5.2, §8.1); any
//!   other violation — no or an unsupported `$schema`, a `name` outside
//!   §5.5's rules, a field of the wrong type, an `author` with a field
//!   other than `name`, `email`, `url` — refuses the plugin, and none of
//!   its components is read;
//! - `mcp.json` (§7.2): invalid JSON, another version than the manifest's,
//!   or top-level fields other than `$schema` and `mcpServers` disable MCP
//!   for the plugin; a server entry that breaks its transport's closed
//!   variant is skipped, the others kept;
//! - skills (§7.1): only `skills/<folder>/SKILL.md`, never deeper; a skill
//!   that breaks the Agent Skills specification is skipped, the others
//!   kept;
//! - a fixed location of the wrong kind (`skills` a file, `mcp.json` a
//!   folder) invalidates that component type (§6.2).
//!
//! 1.1.0 (a draft) adds `presentation { displayName, icon }` to the
//! manifest; it is read when the manifest's `$schema` names 1.1.0.

mod bad_server;
mod mcp_json;
mod plugin_json;

pub use mcp_json::{mcp, Server};
pub use plugin_json::{check_name, manifest, Manifest};

/// The specification versions read, with whether each is a draft.
pub const VERSIONS: &[(&str, bool)] = &[("1.0.0", false), ("1.1.0", true)];

const SCHEMA_PREFIX: &str = "https://agent-plugins.org/schemas/";

/// The specification version a `$schema` names for `document`
/// (`plugin` or `mcp`), if it is one this reads.
pub fn schema_version(schema: &str, document: &str) -> Option<&'static str> {
    VERSIONS
        .iter()
        .map(|(version, _)| *version)
        .find(|version| schema == format!("{SCHEMA_PREFIX}{version}/{document}.schema.json"))
}

/// Whether a `$schema` value is an Agent Plugins one (supported or not).
pub fn is_agent_plugins_schema(schema: &str) -> bool {
    schema.starts_with(SCHEMA_PREFIX) || schema.contains("agent-plugins.org")
}

/// Whether a relative path leads above where it starts.
pub fn escapes(path: &str) -> bool {
    let mut depth: i64 = 0;
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            _ => depth += 1,
        }
    }
    false
}

/// The byte offset of a 1-based line and column, as serde_json reports.
pub(super) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (index, piece) in text.split_inclusive('\n').enumerate() {
        if index + 1 == line {
            let column = column.saturating_sub(1).min(piece.len());
            return crate::source::floor_char_boundary(text, offset + column);
        }
        offset += piece.len();
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_section_5_5() {
        for good in ["my-plugin", "acme.tools", "lint3r", "a"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for bad in ["My-Plugin", "-start", "has--double", "too.many..dots", ""] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn paths_that_climb_out_escape() {
        assert!(escapes("data/../.."));
        assert!(!escapes("data/../bin"));
    }
}

//! The Markdown and JSON both targets write.

use super::Out;

/// A YAML scalar for a frontmatter value: double-quoted with JSON's
/// escapes, which YAML reads the same way, so no value can open a list, a
/// map, a comment or an alias.
pub(super) fn yaml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_string())
}

/// A Markdown file with `fields` (already YAML scalars) as frontmatter,
/// then the body: `---`, the fields, `---`, a blank line, the body, a
/// final line break. `contrib import` reads the body back as written.
pub(super) fn markdown(fields: &[(&str, String)], body: &str) -> String {
    let mut out = String::from("---\n");
    for (key, value) in fields {
        out.push_str(key);
        out.push_str(": ");
        out.push_str(value);
        out.push('\n');
    }
    out.push_str("---\n\n");
    out.push_str(body);
    out.push('\n');
    out
}

/// A JSON object with its fields in the order given (a manifest reads
/// best `$schema`, `name`, `version` first), pretty, with a final line
/// break.
pub(super) fn object(fields: &[(&str, serde_json::Value)]) -> String {
    let mut out = String::from("{\n");
    for (at, (key, value)) in fields.iter().enumerate() {
        let value = serde_json::to_string_pretty(value).unwrap_or_default();
        out.push_str(&format!(
            "  {}: {}{}\n",
            serde_json::Value::from(*key),
            value.replace('\n', "\n  "),
            if at + 1 < fields.len() { "," } else { "" }
        ));
    }
    out.push_str("}\n");
    out
}

/// Pretty JSON with a final line break.
pub(super) fn json(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// An Agent Skill, `skills/ID/SKILL.md`, for a text the model asks for by
/// its description (both targets read Agent Skills the same way).
pub(super) fn skill(id: &str, description: &str, body: &str, out: &mut Out) -> bool {
    // Contributor ids are kebab-case, as skill names are; only the length
    // can differ.
    if id.chars().count() > 64 {
        out.lose(
            id,
            "skill",
            "its id is longer than the 64 characters a skill's name may have; give it a shorter id",
        );
        return false;
    }
    let text = markdown(
        &[
            ("name", id.to_string()),
            ("description", yaml_string(description)),
        ],
        body,
    );
    out.add(id, format!("skills/{id}/SKILL.md"), text, "skill")
}

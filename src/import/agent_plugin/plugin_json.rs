//! `plugin.json` (§5), validated as the specification says a client must:
//! the closed object, its `$schema`, the name rules of §5.5 and the 1.1.0
//! draft's `presentation`. Apart from `mcp.json`, which has rules of its own.

use serde_json::Value;

use crate::import::problem::{first_line, json_span, Problem, ProblemKind};
use crate::source::Span;

use super::{offset_of, schema_version, VERSIONS};

/// The manifest's fields, in 1.0.0.
const FIELDS: &[&str] = &[
    "$schema",
    "name",
    "version",
    "description",
    "author",
    "homepage",
    "repository",
    "license",
    "keywords",
    "extensions",
];

/// A manifest, read.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    /// The name as written (`acme.reports`).
    pub name: String,
    /// The specification version its `$schema` names.
    pub spec: &'static str,
    pub version: Option<String>,
    pub description: Option<String>,
    pub author: Option<Value>,
    pub license: Option<String>,
    /// 1.1.0's `presentation.displayName`.
    pub display_name: Option<String>,
    /// Metadata kept for a comment: homepage, repository, keywords,
    /// extensions.
    pub metadata: Vec<(String, String)>,
}

/// Reads `plugin.json`; `None` when the plugin is refused (the problems
/// say why).
pub fn manifest(path: &str, text: &str, problems: &mut Vec<Problem>) -> Option<Manifest> {
    let refuse =
        |problems: &mut Vec<Problem>, span: Span, message: String, label: &str, help: &str| {
            problems.push(Problem::new(
                path,
                span,
                ProblemKind::InvalidPluginManifest,
                message,
                label,
                help,
            ));
            None
        };
    let object = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => object,
        Ok(_) => {
            return refuse(
                problems,
                first_line(text),
                "`plugin.json` is not a JSON object, so the plugin is refused".into(),
                "not an object",
                "write the manifest as one JSON object: `{ \"$schema\": …, \"name\": … }`",
            )
        }
        Err(error) => {
            let offset = offset_of(text, error.line(), error.column());
            return refuse(
                problems,
                Span::new(offset, offset),
                format!("`plugin.json` is not valid JSON ({error}), so the plugin is refused"),
                "the JSON breaks here",
                "fix the JSON syntax",
            );
        }
    };
    let spec = match object.get("$schema") {
        None => {
            return refuse(
                problems,
                first_line(text),
                "`plugin.json` has no `$schema`, so the plugin is refused".into(),
                "no `$schema` in this object",
                "add `\"$schema\": \"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json\"`",
            )
        }
        Some(Value::String(schema)) => match schema_version(schema, "plugin") {
            Some(spec) => spec,
            None => {
                return refuse(
                    problems,
                    json_span(text, &["$schema"]),
                    format!("`$schema` names `{schema}`, an Agent Plugins version contrib does not read, so the plugin is refused"),
                    "unsupported version",
                    "target Agent Plugins 1.0.0: `https://agent-plugins.org/schemas/1.0.0/plugin.schema.json`",
                )
            }
        },
        Some(_) => {
            return refuse(
                problems,
                json_span(text, &["$schema"]),
                "`$schema` is not a string, so the plugin is refused".into(),
                "not a string",
                "write the schema identifier as a string",
            )
        }
    };
    let draft = VERSIONS
        .iter()
        .any(|(version, draft)| *version == spec && *draft);
    let mut read = Manifest {
        spec,
        ..Manifest::default()
    };
    match object.get("name") {
        Some(Value::String(name)) => {
            if let Err(why) = check_name(name) {
                return refuse(
                    problems,
                    json_span(text, &["name"]),
                    format!("the plugin name `{name}` {why}, so the plugin is refused"),
                    "invalid name",
                    "use 1 to 64 lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit, without `--` or `..`",
                );
            }
            read.name = name.clone();
        }
        Some(_) => {
            return refuse(
                problems,
                json_span(text, &["name"]),
                "the plugin `name` is not a string, so the plugin is refused".into(),
                "not a string",
                "write the name as a string such as `\"acme.reports\"`",
            )
        }
        None => {
            return refuse(
                problems,
                first_line(text),
                "`plugin.json` has no `name`, so the plugin is refused".into(),
                "no `name` in this object",
                "add a `name` such as `\"acme.reports\"`",
            )
        }
    }
    for (key, value) in &object {
        let known = FIELDS.contains(&key.as_str()) || (draft && key == "presentation");
        if !known {
            problems.push(Problem::new(
                path,
                json_span(text, &[key]),
                ProblemKind::IgnoredManifestField,
                format!("`{key}` is not an Agent Plugins {spec} manifest field, so it is ignored"),
                "unknown field",
                "move client-specific data under `extensions` in a reverse-domain namespace, or remove it",
            ));
            continue;
        }
        if let Err(why) = field(&mut read, key, value) {
            if key == "extensions" && !value.is_object() {
                problems.push(Problem::new(
                    path,
                    json_span(text, &[key]),
                    ProblemKind::IgnoredManifestField,
                    "`extensions` is not an object, so it is ignored",
                    "not an object",
                    "write `extensions` as an object keyed by reverse-domain namespaces, each an object",
                ));
                continue;
            }
            return refuse(
                problems,
                json_span(text, &[key]),
                format!("`{key}` {why}, so the plugin is refused"),
                "does not match the manifest schema",
                "give the field the type the specification defines, or remove it",
            );
        }
    }
    Some(read)
}

/// Why a manifest field does not match the schema; it follows the field's
/// name in the problem ("`author` is not an object").
#[derive(Debug, Clone, PartialEq, Eq)]
enum BadField {
    NotAString,
    NotAnObject,
    NotAList,
    /// A list that holds something other than strings.
    NotStrings,
    /// An object with a field the schema does not give it; `allowed` names
    /// the ones it does.
    UnknownField {
        field: String,
        allowed: &'static str,
    },
    /// An object's field that is not a string.
    FieldNotAString(String),
    /// An `extensions` namespace whose value is not an object.
    NamespaceNotAnObject(String),
}

impl std::fmt::Display for BadField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadField::NotAString => f.write_str("is not a string"),
            BadField::NotAnObject => f.write_str("is not an object"),
            BadField::NotAList => f.write_str("is not a list"),
            BadField::NotStrings => f.write_str("holds something other than strings"),
            BadField::UnknownField { field, allowed } => {
                write!(f, "has the field `{field}`, which is not {allowed}")
            }
            BadField::FieldNotAString(field) => write!(f, "has a `{field}` that is not a string"),
            BadField::NamespaceNotAnObject(namespace) => {
                write!(f, "has `{namespace}`, whose value is not an object")
            }
        }
    }
}

/// An object's fields, each one of `names` (which `allowed` says in
/// words) and a string.
fn string_fields(
    object: &serde_json::Map<String, Value>,
    names: &[&str],
    allowed: &'static str,
) -> Result<(), BadField> {
    for (field, value) in object {
        if !names.contains(&field.as_str()) {
            return Err(BadField::UnknownField {
                field: field.clone(),
                allowed,
            });
        }
        if !value.is_string() {
            return Err(BadField::FieldNotAString(field.clone()));
        }
    }
    Ok(())
}

/// One manifest field, checked and kept.
fn field(read: &mut Manifest, key: &str, value: &Value) -> Result<(), BadField> {
    let text = || {
        value
            .as_str()
            .map(str::to_string)
            .ok_or(BadField::NotAString)
    };
    match key {
        "$schema" | "name" => {}
        "version" => read.version = Some(text()?),
        "description" => read.description = Some(text()?),
        "license" => read.license = Some(text()?),
        "homepage" | "repository" => read.metadata.push((key.to_string(), text()?)),
        "author" => {
            let Value::Object(author) = value else {
                return Err(BadField::NotAnObject);
            };
            string_fields(
                author,
                &["name", "email", "url"],
                "`name`, `email` or `url`",
            )?;
            read.author = Some(value.clone());
        }
        "keywords" => {
            let words = value.as_array().ok_or(BadField::NotAList)?;
            if words.iter().any(|word| !word.is_string()) {
                return Err(BadField::NotStrings);
            }
            read.metadata.push((key.to_string(), value.to_string()));
        }
        "extensions" => {
            let Value::Object(namespaces) = value else {
                return Err(BadField::NotAnObject);
            };
            if let Some((namespace, _)) = namespaces.iter().find(|(_, value)| !value.is_object()) {
                return Err(BadField::NamespaceNotAnObject(namespace.clone()));
            }
            read.metadata.push((key.to_string(), value.to_string()));
        }
        "presentation" => {
            let Value::Object(presentation) = value else {
                return Err(BadField::NotAnObject);
            };
            string_fields(
                presentation,
                &["displayName", "icon"],
                "`displayName` or `icon`",
            )?;
            read.display_name = presentation
                .get("displayName")
                .and_then(Value::as_str)
                .filter(|name| !name.is_empty())
                .map(str::to_string);
        }
        _ => {}
    }
    Ok(())
}

/// §5.5: 1–64 of `a-z`, `0-9`, `-`, `.`; alphanumeric at both ends; no
/// `--` or `..`. Says what is wrong.
pub fn check_name(name: &str) -> Result<(), &'static str> {
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    if name.is_empty() {
        return Err("is empty");
    }
    if name.chars().count() > 64 {
        return Err("is longer than 64 characters");
    }
    if !name.chars().all(|c| alnum(c) || c == '-' || c == '.') {
        return Err("holds characters other than lowercase letters, digits, `-` and `.`");
    }
    if !name.starts_with(alnum) || !name.ends_with(alnum) {
        return Err("does not start and end with a letter or digit");
    }
    if name.contains("--") || name.contains("..") {
        return Err("holds `--` or `..`");
    }
    Ok(())
}

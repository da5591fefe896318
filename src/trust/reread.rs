//! A bundle read back as a manifest: the text the installer's checker
//! runs on.
//!
//! Re-checking a bundle at install means running the same checker an
//! author runs, under the installer's configuration instead of the
//! author's. The checker reads manifests, so the bundle is written back as
//! one, in the canonical layout, with every setting spelled out and the
//! authority the installer grants in place of the one requested. Nothing
//! the author wrote besides the bundle's content comes along: no comment,
//! so no suppression.
//!
//! The text is also what a diagnostic at install points into, so an
//! installer sees the contributor and the very words a rule is about.
//!
//! Names are written bare (ids, tools, skills, argument keys), so each is
//! checked against what the language accepts before it is written: a
//! hand-made bundle whose tool is called `x {} } text evil {` is refused
//! here, never read as two contributors. Strings are escaped by the one
//! writer of manifest strings (`import::emit`).

use std::fmt::Write as _;

use crate::bundle::{
    Bundle, BundledActivation, BundledCall, BundledCondition, BundledContributor, Segment,
    SkillOperations,
};
use crate::import::emit::{quoted, string};
use crate::ir::kinds::FIELDS;
use crate::ir::names::is_kebab;
use crate::ir::{ConditionKind, Duration, Kind, Owner, Value};

const INDENT: &str = "    ";

/// What a bundle holds that no manifest can say, so it cannot be read
/// back and re-checked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum Unwritable {
    /// `what` (a contributor id, a skill, a command…) is named `name`,
    /// which is not kebab-case.
    Name { what: &'static str, name: String },
    /// A tool is named `name`, which is not a tool name.
    Tool(String),
    /// A call's argument is named `key`, which no manifest can write.
    Argument(String),
    /// A template names `variable`, which the platform does not have.
    Variable(String),
    /// The kinds table has a field the bundle has no form for.
    Field(String),
}

impl std::fmt::Display for Unwritable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unwritable::Name { what, name } => {
                write!(f, "{what} is named `{name}`, which no manifest can write")
            }
            Unwritable::Tool(name) => {
                write!(f, "a tool is named `{name}`, which no manifest can write")
            }
            Unwritable::Argument(key) => write!(
                f,
                "a call's argument is named `{key}`, which no manifest can write"
            ),
            Unwritable::Variable(variable) => write!(
                f,
                "its template names a variable `{variable}` the platform does not have"
            ),
            Unwritable::Field(field) => write!(f, "the field `{field}` has no form in a bundle"),
        }
    }
}

impl std::error::Error for Unwritable {}

/// The manifest of `bundle` with its plugin owned by `granted` and each
/// contributor's owner narrowed to it, or why the bundle holds something no
/// manifest can say.
pub(crate) fn manifest(bundle: &Bundle, granted: Owner) -> Result<String, Unwritable> {
    let mut out = String::new();
    let _ = writeln!(out, "plugin {} {} {{", bundle.plugin, bundle.version);
    let _ = writeln!(out, "{INDENT}owner {granted}");
    if let Some(summary) = &bundle.summary {
        let _ = writeln!(out, "{INDENT}summary {}", quoted(summary, false));
    }
    for (skill, requirement) in &bundle.requires {
        kebab(skill, "a required skill")?;
        let _ = writeln!(
            out,
            "{INDENT}requires skill {skill} {}",
            quoted(requirement, false)
        );
    }
    for contributor in &bundle.contributors {
        out.push('\n');
        write_contributor(&mut out, contributor, granted)?;
    }
    out.push_str("}\n");
    Ok(out)
}

/// A contributor's block, its fields in the table of kinds' canonical order
/// (`ir::kinds::FIELDS`), as the formatter writes them.
fn write_contributor(
    out: &mut String,
    contributor: &BundledContributor,
    granted: Owner,
) -> Result<(), Unwritable> {
    kebab(&contributor.id, "a contributor id")?;
    let kind = contributor.kind;
    let _ = writeln!(out, "{INDENT}{kind} {} {{", contributor.id);
    for field in FIELDS {
        if let Some(text) = field_text(contributor, field.name, granted)? {
            let _ = writeln!(out, "{INDENT}{INDENT}{text}");
        }
    }
    let _ = writeln!(out, "{INDENT}}}");
    Ok(())
}

/// The line for field `name`, if the contributor has it. Every setting of
/// its kind is spelled out; a field the bundle does not keep (`choose`,
/// resolved when it was built) has no line, and a field this function does
/// not know is an error, so a new field of the table cannot be dropped
/// unnoticed.
fn field_text(
    contributor: &BundledContributor,
    name: &str,
    granted: Owner,
) -> Result<Option<String>, Unwritable> {
    let spec = contributor.kind.spec();
    let setting = |text: String| spec.has_field(name).then_some(text);
    Ok(match name {
        "owner" => Some(format!(
            "owner {}",
            contrib_core::policy::authority::narrower(contributor.owner, granted)
        )),
        "placement" => setting(format!("placement {}", contributor.placement)),
        "priority" => setting(format!("priority {}", contributor.priority)),
        "reach" => setting(format!("reach {}", contributor.reach)),
        "applies" => match &contributor.activation {
            Some(activation) => Some(format!("applies {}", activation_text(activation)?)),
            None => None,
        },
        "when" => match &contributor.condition {
            Some(condition) => Some(condition_text(condition)?),
            None => None,
        },
        "source" => contributor.source.map(|source| format!("source {source}")),
        "origin" => contributor
            .origin
            .as_ref()
            .map(|origin| format!("origin {}", quoted(origin, false))),
        "heading" => contributor
            .heading
            .as_ref()
            .map(|heading| format!("heading {}", quoted(heading, false))),
        "budget" => Some(format!("budget {} tokens", contributor.budget)),
        "choose" => None,
        "body" => match &contributor.template {
            Some(template) => Some(format!("body {}", string(&body(template)?, 2, false))),
            None => None,
        },
        "tools" => tools_text(contributor)?,
        "skill" => match &contributor.operations {
            Some(operations) => Some(skill_load(operations)?),
            None => None,
        },
        "call" => match &contributor.call {
            Some(call) => Some(call_text(call)?),
            None => None,
        },
        "says" => (!contributor.says.is_empty()).then(|| {
            let says: Vec<String> = contributor.says.iter().map(ToString::to_string).collect();
            format!("says [{}]", says.join(", "))
        }),
        other => return Err(Unwritable::Field(other.to_string())),
    })
}

fn condition_text(condition: &BundledCondition) -> Result<String, Unwritable> {
    let mut text = format!("when {}", condition.kind);
    match condition.kind {
        ConditionKind::Idle => {
            let seconds = condition.idle_seconds.unwrap_or_default();
            let _ = write!(text, " > {}", Duration { seconds });
        }
        ConditionKind::SkillUpdated => {
            let skill = condition.skill.as_deref().unwrap_or_default();
            kebab(skill, "a watched skill")?;
            let _ = write!(text, " {skill}");
        }
        _ => {}
    }
    Ok(text)
}

/// An eager load's tools: written even when empty if it loads no skill
/// either, so the checker sees a load that loads nothing.
fn tools_text(contributor: &BundledContributor) -> Result<Option<String>, Unwritable> {
    let empty_load = contributor.kind == Kind::EagerLoad && contributor.operations.is_none();
    if contributor.tools.is_empty() && !empty_load {
        return Ok(None);
    }
    for tool in &contributor.tools {
        tool_name(tool)?;
    }
    Ok(Some(format!("tools [{}]", contributor.tools.join(", "))))
}

/// A template as a body: literal braces doubled, variables in braces.
fn body(template: &[Segment]) -> Result<String, Unwritable> {
    let mut text = String::new();
    for segment in template {
        match segment {
            Segment::Text { text: literal } => {
                text.push_str(&literal.replace('{', "{{").replace('}', "}}"));
            }
            Segment::Variable { variable } => {
                if crate::ir::variables::find(variable).is_none() {
                    return Err(Unwritable::Variable(variable.clone()));
                }
                let _ = write!(text, "{{{variable}}}");
            }
        }
    }
    Ok(text)
}

fn activation_text(activation: &BundledActivation) -> Result<String, Unwritable> {
    Ok(match activation {
        BundledActivation::Command { name } => {
            kebab(name, "a command")?;
            format!("on command {name}")
        }
        BundledActivation::Skill { name } => {
            kebab(name, "a skill")?;
            format!("on skill {name}")
        }
        BundledActivation::Subagent { name } => {
            kebab(name, "a subagent")?;
            format!("on subagent {name}")
        }
        BundledActivation::Files { globs } => {
            let globs: Vec<String> = globs.iter().map(|glob| quoted(glob, false)).collect();
            format!("to files [{}]", globs.join(", "))
        }
        BundledActivation::Request { description } => {
            format!("on request {}", quoted(description, false))
        }
    })
}

fn skill_load(load: &SkillOperations) -> Result<String, Unwritable> {
    kebab(&load.skill, "a loaded skill")?;
    for operation in &load.operations {
        kebab(operation, "a skill operation")?;
    }
    Ok(format!(
        "skill {} operations [{}]",
        load.skill,
        load.operations.join(", ")
    ))
}

fn call_text(call: &BundledCall) -> Result<String, Unwritable> {
    tool_name(&call.tool)?;
    let mut arguments = Vec::new();
    for (key, value) in &call.arguments {
        if key.is_empty()
            || !key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(Unwritable::Argument(key.clone()));
        }
        arguments.push(format!("{key}: {}", value_text(value)));
    }
    Ok(format!("call {} {{ {} }}", call.tool, arguments.join(", ")).replace("{  }", "{}"))
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => quoted(text, false),
        Value::Integer(number) => number.to_string(),
        Value::Boolean(flag) => flag.to_string(),
        Value::List(items) => {
            let items: Vec<String> = items.iter().map(value_text).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// Lowercase kebab-case, as ids and skill names are written.
fn kebab(name: &str, what: &'static str) -> Result<(), Unwritable> {
    if is_kebab(name) {
        Ok(())
    } else {
        Err(Unwritable::Name {
            what,
            name: name.to_string(),
        })
    }
}

/// Lowercase letters, digits, `_` and `-`, starting with a letter.
fn tool_name(name: &str) -> Result<(), Unwritable> {
    let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    if valid {
        Ok(())
    } else {
        Err(Unwritable::Tool(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::source::SourceFile;

    /// Every example, built and read back, is the same plugin: the reread
    /// manifest builds to the same contributors.
    #[test]
    fn examples_read_back_as_themselves() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        let (config, _) = Config::load(&folder.join("contrib.toml")).unwrap();
        let mut seen = 0;
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path
                .extension()
                .is_none_or(|extension| extension != "contrib")
            {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let source = SourceFile::new(path.display().to_string(), text);
            let plugin = crate::analyze(&source, &config).plugin.unwrap();
            // An eager load that chooses from usage holds what its usage
            // file chose; read back, it loads those items plainly.
            let usages = crate::bundle::usage::for_plugin(&path, &plugin, None).unwrap();
            let mut bundle = crate::bundle::build_with_usage(&plugin, &config, &[], &usages)
                .expect("a canonical bundle");
            let reread = manifest(&bundle, bundle.requested_owner).unwrap();
            let again = crate::analyze(&SourceFile::new("reread", reread.clone()), &config);
            assert!(
                !again.diagnostics.iter().any(|d| d.is_error()),
                "{}:\n{reread}\n{:#?}",
                path.display(),
                again.diagnostics
            );
            let rebuilt =
                crate::bundle::build(&again.plugin.unwrap(), &config).expect("a canonical bundle");
            for contributor in &mut bundle.contributors {
                contributor.choice = None;
            }
            assert_eq!(
                rebuilt.contributors,
                bundle.contributors,
                "{}",
                path.display()
            );
            seen += 1;
        }
        assert!(seen >= 5);
    }

    #[test]
    fn names_that_would_change_the_manifest_are_refused() {
        assert!(tool_name("get_current_time").is_ok());
        assert!(tool_name("x {} }\n    text evil {").is_err());
        assert!(kebab("started-at", "an id").is_ok());
        assert!(kebab("a--b", "an id").is_err());
        assert!(body(&[Segment::Variable {
            variable: "person.name} {x".into()
        }])
        .is_err());
    }
}

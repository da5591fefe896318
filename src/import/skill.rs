//! Agent Skills: `SKILL.md`.
//!
//! An agent keeps every installed skill's `name` and `description` in its
//! system prompt (the skill listing) and reads the body only when it uses
//! the skill. So:
//!
//! - the listing becomes an `agent`-placement `text`, `name: description`;
//!   a skill with `disable-model-invocation: true` is not listed, and gets
//!   no listing;
//! - the body stays a skill reference, noted in a comment with its size,
//!   unless the sources say the skill is always loaded (a Kimi manifest's
//!   `sessionStart`, or an `@…/SKILL.md` import in an instruction file):
//!   then it becomes an `eager-load` of the skill's manifest, budgeted at
//!   the body's size, with a `requires` for the skill;
//! - the body is not an `applies on skill NAME` text: that activation is
//!   for a plugin's text *about* a skill, told when the skill is invoked.
//!   The body is the skill itself, which the language models as a skill the
//!   workspace installs (`[skills.NAME]`) and the agent reads through the
//!   skill when it invokes it; as a text it would be told twice on every
//!   invocation, and its plugin would need a `requires` for a skill that no
//!   workspace declares yet;
//! - `allowed-tools` (or `tools`, which some skills write) becomes the tool
//!   vocabulary in a comment, checked against the workspace's tools.

use super::emit::{Content, Draft, DraftContributor};
use super::frontmatter;
use super::problem::{first_line, frontmatter_key, Problem, ProblemKind};
use super::{
    body_text, folder_of, frontmatter_notes, tool_vocabulary, AlwaysLoaded, InputFile, Note,
};
use crate::config::Config;
use crate::ir::Placement;

const MAPPED: &[&str] = &[
    "name",
    "description",
    "allowed-tools",
    "license",
    "version",
    "disable-model-invocation",
    "tools",
];

pub(super) fn import(
    file: &InputFile,
    always_loaded: &AlwaysLoaded,
    config: &Config,
    draft: &mut Draft,
) {
    draft.read(&file.path);
    let document = frontmatter::split(&file.text);
    let front = &document.frontmatter;
    let folder = folder_of(&file.path);
    let folder_name = folder.rsplit('/').next().unwrap_or(folder);
    let written = front.text("name").unwrap_or(folder_name);
    let name = super::emit::kebab(written, "skill");
    let body = body_text(document.body);
    let tokens = config.tokenizer.count(&body);
    let mut renamed =
        (written != name).then(|| super::renamed(&file.path, "skill", written, &name));

    let mut comments = vec![format!("from {}: the Agent Skill `{name}`", file.path)];
    if let Some(version) = front.text("version") {
        comments.push(format!("skill version {version}"));
    }
    if let Some(license) = front.text("license") {
        comments.push(format!("declared licence: {license}"));
    }
    // Some skills say `tools`, as subagents do; both mean the vocabulary.
    for key in ["allowed-tools", "tools"] {
        if let Some(tools) = front.list(key) {
            comments.push(tool_vocabulary(key, &tools, config, draft));
        }
    }
    let always = always_loaded.get(folder);
    if always.is_none() {
        comments.push(format!(
            "its body ({tokens} tokens) stays a skill reference, read when the skill is used"
        ));
    }
    let mut notes = frontmatter_notes(&file.path, front, MAPPED);
    notes.extend(renamed.take());
    if body.contains("$ARGUMENTS") {
        notes.push(Note::new(
            &file.path,
            "arguments",
            "takes the person's arguments (`$ARGUMENTS`) when run as a command; the language has no variable for them, so they stay literal",
        ));
    }

    if front.flag("disable-model-invocation") == Some(true) {
        comments.push(
            "not listed: `disable-model-invocation: true` keeps it out of the system prompt".into(),
        );
        draft.notes.extend(notes);
        if always.is_none() {
            draft.notes.push(
                Note::new(
                    &file.path,
                    "unlisted",
                    "a skill that is neither listed nor always loaded adds nothing up front",
                )
                .detail(std::mem::take(&mut comments).join("\n")),
            );
        }
    } else {
        let listing = match front.text("description") {
            Some(description) => format!("{name}: {description}"),
            None => {
                comments.push("no description: listed by name only".into());
                name.clone()
            }
        };
        draft.contributors.push(DraftContributor {
            activation: None,
            id: format!("skill-{name}"),
            source: file.path.clone(),
            comments: std::mem::take(&mut comments),
            notes,
            placement: Placement::Agent,
            content: Content::Text(listing),
        });
    }

    if let Some(why) = always {
        let requirement = front
            .text("version")
            .and_then(|version| semver::Version::parse(version).ok())
            .map_or("*".to_string(), |version| format!("^{version}"));
        if !draft.requires.iter().any(|(skill, _)| *skill == name) {
            draft.requires.push((name.clone(), requirement));
        }
        comments.insert(
            0,
            format!("the skill `{name}` is always loaded ({why}): its body, loaded up front"),
        );
        draft.contributors.push(DraftContributor {
            activation: None,
            id: format!("skill-{name}-load"),
            source: file.path.clone(),
            comments,
            notes: Vec::new(),
            placement: Placement::Agent,
            content: Content::SkillLoad { skill: name, body },
        });
    }
}

/// The frontmatter fields the Agent Skills specification defines.
const SPECIFIED: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "allowed-tools",
    "metadata",
];

/// Checks a `SKILL.md` against the Agent Skills specification: the
/// frontmatter can be read, `name` follows the naming rules and is its
/// folder's name, `description` is there and at most 1,024 characters.
/// `strict` (a skill an Agent Plugins client discovers) also refuses
/// fields the specification does not define, as its reference does.
/// Returns whether a client loads the skill.
pub(super) fn validate(path: &str, text: &str, strict: bool, problems: &mut Vec<Problem>) -> bool {
    let before = problems.len();
    // Inside a package the reference skips the skill; elsewhere Claude
    // Code and Copilot load it anyway, and it breaks the specification.
    let consequence = if strict {
        "so Agent Plugins clients skip it"
    } else {
        "against the Agent Skills specification"
    };
    let folder = folder_of(path);
    let folder_name = folder.rsplit('/').next().unwrap_or(folder);
    let mut skip = |span, message: String, label: &str, help: &str| {
        problems.push(Problem::new(
            path,
            span,
            ProblemKind::InvalidSkill,
            message,
            label,
            help,
        ));
    };
    let document = frontmatter::split(text);
    let front = &document.frontmatter;
    if front.entries.is_empty() && front.problems.is_empty() {
        skip(
            first_line(text),
            format!("the skill has no frontmatter, {consequence}"),
            "no `---` frontmatter",
            "start the file with `---`, `name: …`, `description: …`, `---`",
        );
        return false;
    }
    if let Some(error) = &front.yaml_error {
        let line = line_at(text, error.offset);
        skip(
            line,
            format!(
                "the frontmatter is not valid YAML ({}, at line {} column {}), {consequence}",
                error.message, error.line, error.column
            ),
            "not valid YAML",
            "quote the value (`key: \"…\"`), or close the bracket or quote it opens",
        );
        return false;
    }
    match front.text("name") {
        // Claude Code names a skill without one after its folder; an Agent
        // Plugins client, held to the specification, skips it.
        None if !strict => {}
        None => skip(
            first_line(text),
            "the skill has no `name`, so Agent Plugins clients skip it".into(),
            "no `name` in the frontmatter",
            &format!("add `name: {folder_name}`"),
        ),
        Some(name) => {
            if let Err(why) = check_skill_name(name) {
                skip(
                    frontmatter_key(text, "name"),
                    format!("the skill name `{name}` {why}, {consequence}"),
                    "invalid name",
                    "use 1 to 64 lowercase letters, digits and `-`, without `--` or a `-` at either end",
                );
            } else if name != folder_name {
                skip(
                    frontmatter_key(text, "name"),
                    format!("the skill is named `{name}` but its folder is `{folder_name}`, {consequence}"),
                    "not the folder's name",
                    &format!("name the skill `{folder_name}`, or rename its folder to `{name}`"),
                );
            }
        }
    }
    match front.text("description") {
        None => skip(
            first_line(text),
            format!("the skill has no `description`, {consequence}"),
            "no `description` in the frontmatter",
            "add `description: …`, saying what the skill does and when to use it",
        ),
        Some(description) if description.trim().is_empty() => skip(
            frontmatter_key(text, "description"),
            format!("the skill's `description` is empty, {consequence}"),
            "empty",
            "say what the skill does and when to use it",
        ),
        Some(description) if description.chars().count() > 1024 => skip(
            frontmatter_key(text, "description"),
            format!(
                "the skill's `description` is {} characters, over the 1,024 the specification allows, {consequence}",
                description.chars().count()
            ),
            "too long",
            "shorten the description to 1,024 characters",
        ),
        Some(_) => {}
    }
    if let Some(compatibility) = front.text("compatibility") {
        if compatibility.chars().count() > 500 {
            skip(
                frontmatter_key(text, "compatibility"),
                format!("the skill's `compatibility` is over 500 characters, {consequence}"),
                "too long",
                "shorten `compatibility` to 500 characters",
            );
        }
    }
    if strict {
        for entry in front.unmapped(SPECIFIED) {
            skip(
                frontmatter_key(text, &entry.key),
                format!(
                    "`{}` is not an Agent Skills frontmatter field, so Agent Plugins clients skip the skill",
                    entry.key
                ),
                "unknown field",
                "move it under `metadata`, or remove it",
            );
        }
    }
    problems.len() == before
}

/// The Agent Skills naming rules; says what is wrong.
fn check_skill_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("is empty");
    }
    if name.chars().count() > 64 {
        return Err("is longer than 64 characters");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err("holds characters other than lowercase letters, digits and `-`");
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Err("starts or ends with `-`, or holds `--`");
    }
    Ok(())
}

/// The span of the line holding `offset`.
fn line_at(text: &str, offset: usize) -> crate::source::Span {
    let offset = crate::source::floor_char_boundary(text, offset.min(text.len()));
    let start = text[..offset].rfind('\n').map_or(0, |at| at + 1);
    let end = text[start..].find('\n').map_or(text.len(), |at| start + at);
    crate::source::Span::new(start, text[start..end].trim_end_matches('\r').len() + start)
}

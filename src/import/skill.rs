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

pub fn import(file: &InputFile, always_loaded: &AlwaysLoaded, config: &Config, draft: &mut Draft) {
    draft.read(&file.path);
    let document = frontmatter::split(&file.text);
    let front = &document.frontmatter;
    let folder = folder_of(&file.path);
    let folder_name = folder.rsplit('/').next().unwrap_or(folder);
    let name = super::emit::kebab(front.text("name").unwrap_or(folder_name), "skill");
    let body = body_text(document.body);
    let tokens = config.tokenizer.count(&body);

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
    let notes = frontmatter_notes(&file.path, front, MAPPED);

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

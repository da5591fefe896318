//! Cursor rules: `.mdc` files with `description`, `globs` and
//! `alwaysApply` frontmatter.
//!
//! Cursor decides per rule whether its text is in the prompt:
//!
//! | rule | Cursor | imported as |
//! |---|---|---|
//! | `alwaysApply: true` | every request | `agent` text |
//! | `globs` | when matching files are in the conversation | `conversation` text, the globs in a comment |
//! | `description` only | when the model asks for it, by its description | `conversation` text, the description in a comment |
//! | neither | when a person mentions it | `conversation` text |
//!
//! A glob-scoped or requested rule joins a conversation and stays for its
//! turns, which is what `conversation` placement means; the language has no
//! condition on file paths, so the globs are kept as a comment for review.
//! The frontmatter is read leniently: most files say `globs: **/*`
//! unquoted, which strict YAML rejects.

use super::emit::{Content, Draft, DraftContributor};
use super::frontmatter;
use super::{body_text, frontmatter_notes, stem, InputFile, Note};
use crate::ir::Placement;

const MAPPED: &[&str] = &["description", "globs", "alwaysApply"];

pub fn import(file: &InputFile, draft: &mut Draft) {
    draft.read(&file.path);
    let document = frontmatter::split(&file.text);
    let front = &document.frontmatter;
    let name = stem(&file.path);
    let body = body_text(document.body);
    let mut notes = frontmatter_notes(&file.path, front, MAPPED);
    let globs: Vec<String> = front
        .list("globs")
        .unwrap_or_default()
        .into_iter()
        .filter(|glob| !glob.trim().is_empty())
        .collect();
    let description = front.text("description");
    let mut comments = vec![format!("from {}: a Cursor rule", file.path)];
    let placement = if front.flag("alwaysApply") == Some(true) {
        comments.push("`alwaysApply: true`: in every request".into());
        if !globs.is_empty() {
            comments.push(format!(
                "globs (ignored when always applied): {}",
                quote_all(&globs)
            ));
        }
        Placement::Agent
    } else if !globs.is_empty() {
        comments.push(format!(
            "applies when files matching {} are in the conversation",
            quote_all(&globs)
        ));
        Placement::Conversation
    } else if description.is_some() {
        comments.push("applies when the model asks for it by its description".into());
        Placement::Conversation
    } else {
        comments.push("applies when a person mentions it".into());
        Placement::Conversation
    };
    if let Some(description) = description {
        comments.push(format!("description: {description}"));
    }
    if body.trim().is_empty() {
        notes.push(Note::new(&file.path, "empty", "the rule has no text"));
        draft.notes.append(&mut notes);
        return;
    }
    draft.contributors.push(DraftContributor {
        activation: None,
        id: format!("rule-{name}"),
        source: file.path.clone(),
        comments,
        notes,
        placement,
        content: Content::Body(body),
    });
}

fn quote_all(globs: &[String]) -> String {
    globs
        .iter()
        .map(|glob| format!("`{glob}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

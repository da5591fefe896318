//! Cursor rules: `.mdc` files with `description`, `globs` and
//! `alwaysApply` frontmatter.
//!
//! Cursor decides per rule when its text is in the prompt, and each of its
//! four rule types is an activation:
//!
//! | rule | Cursor | imported as |
//! |---|---|---|
//! | `alwaysApply: true` | every request | `agent` text, always |
//! | `globs` | when matching files are in the conversation | `applies to files [GLOBS]` |
//! | `description` only | when the model asks for it, by its description | `applies on request "DESCRIPTION"` |
//! | neither | when a person mentions it (`@NAME`) | `applies on command NAME` |
//!
//! Conditional rules are placed at `agent` too: placement says how widely
//! the text is shared, and a rule is the same for everyone who works in
//! the project; when it is sent is its activation's to say.
//!
//! The frontmatter is read leniently: most files say `globs: **/*`
//! unquoted, which strict YAML rejects, and several globs are written on
//! one line, separated by commas. A glob the language refuses is noted; a
//! rule left with none applies as Cursor would have it without globs (on
//! request by its description, or when a person names it), never always.

use super::activation::{self, Globs};
use super::emit::{kebab, Activation, Content, Draft, DraftContributor};
use super::frontmatter;
use super::{body_text, frontmatter_notes, stem, InputFile, Note};
use crate::ir::Placement;

const MAPPED: &[&str] = &["description", "globs", "alwaysApply"];

pub(super) fn import(file: &InputFile, draft: &mut Draft) {
    draft.read(&file.path);
    let document = frontmatter::split(&file.text);
    let front = &document.frontmatter;
    let name = kebab(stem(&file.path), "rule");
    let body = body_text(document.body);
    let mut notes = frontmatter_notes(&file.path, front, MAPPED);
    let written = front.list("globs").unwrap_or_default();
    let description = front.text("description");
    let mut comments = vec![format!("from {}: a Cursor rule", file.path)];
    let activation = if front.flag("alwaysApply") == Some(true) {
        comments.push("`alwaysApply: true`: in every request".into());
        if !written.is_empty() {
            comments.push(format!(
                "globs (ignored when always applied): {}",
                activation::quote_all(&written)
            ));
        }
        None
    } else {
        let globs = activation::globs(&file.path, "globs", &written);
        comments.extend(globs.comments.iter().cloned());
        notes.extend(globs.notes.iter().cloned());
        Some(conditional(
            file,
            &name,
            &globs,
            description,
            &mut comments,
            &mut notes,
        ))
    };
    // A requested rule's description is its activation's; any other's is
    // kept for the reader.
    if let (Some(description), false) = (
        description,
        matches!(activation, Some(Activation::Request(_))),
    ) {
        comments.push(format!("description: {description}"));
    }
    if body.trim().is_empty() {
        notes.push(Note::new(&file.path, "empty", "the rule has no text"));
        draft.notes.append(&mut notes);
        return;
    }
    draft.contributors.push(DraftContributor {
        activation,
        id: format!("rule-{}", stem(&file.path)),
        source: file.path.clone(),
        comments,
        notes,
        placement: Placement::Agent,
        content: Content::Body(body),
    });
}

/// A rule that does not always apply: by its globs, else by its
/// description, else when a person names it.
fn conditional(
    file: &InputFile,
    name: &str,
    globs: &Globs,
    description: Option<&str>,
    comments: &mut Vec<String>,
    notes: &mut Vec<Note>,
) -> Activation {
    if let Some(by_files) = globs.activation() {
        comments.push(format!(
            "applies when files matching {} are in the conversation",
            globs.listed()
        ));
        return by_files;
    }
    if !globs.notes.is_empty() {
        comments.push("none of its globs is one the language reads, so it applies as a rule without globs does".into());
    }
    comments.push(match description {
        Some(_) => "applies when the model asks for it by its description".into(),
        None => format!(
            "applies when a person mentions it (`@{}` in Cursor): a command they invoke",
            stem(&file.path)
        ),
    });
    activation::when_asked(&file.path, name, description, notes)
}

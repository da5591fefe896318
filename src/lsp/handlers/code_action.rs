//! `textDocument/codeAction`: the diagnostics' fixes, as quick fixes.
//!
//! Every fix a diagnostic carries becomes a quick fix with the fix's title.
//! A safe fix that is its diagnostic's only one (a misspelling with one
//! suggestion) is marked preferred, so "auto fix" applies it; unsafe ones
//! (a wider budget, a narrower placement: what a person approves) are
//! offered but never preferred. Each checker diagnostic also offers to
//! suppress its rule for the item it is on, with the reason left for the
//! author to write (until they do, `unused-suppression` says so).
//!
//! `source.fixAll.contrib` applies every safe fix, in rounds, as
//! `contrib check --fix` does; editors run it on save when asked to.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse,
    TextEdit, WorkspaceEdit,
};

use super::diagnostics::to_lsp;
use super::whole_document_edit;
use crate::diagnostic::{Applicability, Diagnostic};
use crate::lsp::convert;
use crate::lsp::rule_docs::RuleDocs;
use crate::lsp::state::{self, Snapshot};
use crate::lsp::world::World;
use crate::source::SourceFile;
use crate::syntax::tree::Item;

/// The route's handler: the actions for the document's snapshot.
pub fn request(world: &mut World, params: CodeActionParams) -> Option<CodeActionResponse> {
    let snapshot = world.state.snapshot(&params.text_document.uri)?;
    Some(code_actions(&snapshot, &params, &world.docs))
}

/// The kind of the fix-all action.
pub fn fix_all_kind() -> CodeActionKind {
    CodeActionKind::new("source.fixAll.contrib")
}

pub fn code_actions(
    snapshot: &Snapshot<'_>,
    params: &CodeActionParams,
    docs: &RuleDocs,
) -> Vec<CodeActionOrCommand> {
    let only = params.context.only.as_deref();
    let wants = |kind: &CodeActionKind| {
        only.is_none_or(|only| {
            only.iter()
                .any(|wanted| kind.as_str().starts_with(wanted.as_str()))
        })
    };
    let mut actions = Vec::new();
    let range = convert::span(snapshot.source, params.range);
    if wants(&CodeActionKind::QUICKFIX) {
        for diagnostic in &snapshot.analysis.diagnostics {
            let span = diagnostic.span();
            let touches = span.start <= range.end && range.start <= span.end;
            if touches {
                quick_fixes(snapshot, diagnostic, docs, &mut actions);
            }
        }
    }
    if wants(&fix_all_kind()) {
        actions.extend(fix_all(snapshot));
    }
    actions
        .into_iter()
        .map(CodeActionOrCommand::CodeAction)
        .collect()
}

fn quick_fixes(
    snapshot: &Snapshot<'_>,
    diagnostic: &Diagnostic,
    docs: &RuleDocs,
    out: &mut Vec<CodeAction>,
) {
    let lsp_diagnostic = to_lsp(snapshot.uri, snapshot.source, diagnostic, docs);
    let only_fix = diagnostic.fixes.len() == 1;
    for fix in &diagnostic.fixes {
        let edits = fix
            .edits
            .iter()
            .map(|edit| {
                TextEdit::new(
                    convert::range(snapshot.source, edit.span),
                    edit.replacement.clone(),
                )
            })
            .collect();
        out.push(CodeAction {
            title: fix.title.clone(),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![lsp_diagnostic.clone()]),
            edit: Some(edit_of(snapshot, edits)),
            is_preferred: Some(only_fix && fix.applicability == Applicability::Safe),
            ..CodeAction::default()
        });
    }
    if let Some(edit) = suppression(snapshot, diagnostic) {
        out.push(CodeAction {
            title: format!(
                "Allow `{}` here (write the reason after `--`)",
                diagnostic.rule.name
            ),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![lsp_diagnostic]),
            edit: Some(edit_of(snapshot, vec![edit])),
            is_preferred: Some(false),
            ..CodeAction::default()
        });
    }
}

/// A `# contrib: allow(rule) -- ` line above the item the diagnostic is
/// on, indented like it; `None` for rules that cannot be suppressed, or
/// when the item does not start its line.
fn suppression(snapshot: &Snapshot<'_>, diagnostic: &Diagnostic) -> Option<TextEdit> {
    let rule = diagnostic.rule;
    if !rule.is_configurable() || rule.name == "unused-suppression" {
        return None;
    }
    let source = snapshot.source;
    let tree = snapshot.syntax.tree()?;
    let at = diagnostic.span().start;
    let mut items = &tree.items;
    let mut target = None;
    while let Some(item) = items.iter().find(|item| {
        let span = item.span();
        span.start <= at && at < span.end.max(span.start + 1)
    }) {
        target = Some(item.span());
        match item {
            Item::Block(block) if block.open.end <= at => items = &block.items,
            _ => break,
        }
    }
    let start = target?.start;
    let lines = source.line_index();
    let line_start = lines.line_start(lines.line_of(start))?;
    let indent = &source.text[line_start..start];
    if !indent.trim().is_empty() {
        return None;
    }
    let line = format!("{indent}# contrib: allow({}) -- \n", rule.name);
    let position = convert::position(source, line_start);
    Some(TextEdit::new(
        lsp_types::Range::new(position, position),
        line,
    ))
}

/// Every safe fix, applied in rounds until nothing changes; worked out
/// once per version (clients ask on every cursor move).
///
/// Not offered while the manifest has a language error: a contributor
/// that does not lower is left out of the checker's view, so the
/// suppressions written for it look unused and would be removed by a
/// "safe" fix, which on save would delete the author's work mid-edit.
fn fix_all(snapshot: &Snapshot<'_>) -> Option<CodeAction> {
    let unreadable = snapshot.analysis.diagnostics.iter().any(|diagnostic| {
        diagnostic.rule.kind == crate::diagnostic::RuleKind::Language && diagnostic.is_error()
    });
    if unreadable {
        return None;
    }
    let text = snapshot.checked.fixed(|| every_safe_fix(snapshot))?;
    let edit = whole_document_edit(snapshot.source, text)?;
    Some(CodeAction {
        title: "Apply every safe fix".to_string(),
        kind: Some(fix_all_kind()),
        edit: Some(edit_of(snapshot, vec![edit])),
        ..CodeAction::default()
    })
}

/// The text with every safe fix applied, or `None` when none applies.
fn every_safe_fix(snapshot: &Snapshot<'_>) -> Option<String> {
    let recheck = |text: &str| {
        let source = SourceFile::new(snapshot.source.name.clone(), text);
        Ok::<_, std::convert::Infallible>(state::analyze(&source, &snapshot.config).diagnostics)
    };
    let Ok((text, _)) = crate::fix::until_stable(
        snapshot.source.text.to_string(),
        snapshot.analysis.diagnostics.clone(),
        false,
        recheck,
        |_, _| {},
    );
    (text != *snapshot.source.text).then_some(text)
}

fn edit_of(snapshot: &Snapshot<'_>, edits: Vec<TextEdit>) -> WorkspaceEdit {
    WorkspaceEdit {
        changes: Some(HashMap::from([(snapshot.uri.clone(), edits)])),
        ..WorkspaceEdit::default()
    }
}

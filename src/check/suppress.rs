//! Suppressions written in the manifest:
//!
//! ```text
//! # contrib: allow(budget-unused) -- approved at 4x for growth
//! ```
//!
//! On its own line before a contributor or field, a suppression covers that
//! contributor or field (one left at the end of a block covers nothing);
//! after a field on the same line, that field; above the `plugin` line, the
//! whole file. Each names one or more rules and gives
//! a reason after `--`. A suppression without a reason, or that suppresses
//! nothing, is itself reported (`unused-suppression`, like ruff's RUF100),
//! so suppressions cannot outlive what they were written for.

use std::cell::Cell;
use std::collections::HashMap;

use crate::diagnostic::{Applicability, Diagnostic, Fix, Rule};
use crate::source::{SourceFile, Span};
use crate::suggest;
use crate::syntax::tree::{File, Item};

pub use crate::codes::UNUSED_SUPPRESSION;

const DIRECTIVE: &str = "contrib:";

/// One rule named in a suppression.
struct Named {
    name: String,
    span: Span,
    rule: Option<&'static Rule>,
    used: Cell<bool>,
}

struct Suppression {
    comment: Span,
    rules: Vec<Named>,
    has_reason: bool,
    /// The reason after `--`, trimmed; empty when none is given.
    reason: String,
    /// What it covers; `None` for the whole file.
    scope: Option<Span>,
}

/// A diagnostic a suppression silenced: which rule, what the suppression
/// covers (`None`: the whole file) and the reason it gives. A bundle
/// records these so an installer sees what its author chose not to be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waived {
    pub rule: &'static Rule,
    pub scope: Option<Span>,
    pub reason: String,
}

/// Applies the manifest's suppressions to `diagnostics` and reports the
/// suppressions themselves when they are malformed, give no reason or
/// suppress nothing.
///
/// `checked_whole` says whether every contributor reached the checker: when
/// some did not (a language error dropped them), a suppression may look
/// unused only because what it covers was never checked, so it is not
/// reported as unused (and its removal is not offered as a safe fix).
///
/// Returns what the suppressions silenced, one entry per rule named and
/// used.
pub fn apply(
    tree: &File<'_>,
    source: &SourceFile,
    diagnostics: &mut Vec<Diagnostic>,
    checked_whole: bool,
) -> Vec<Waived> {
    let mut problems = Vec::new();
    let items = Items::new(tree);
    let suppressions = parse(&items, source, tree, &mut problems);
    if suppressions.is_empty() && problems.is_empty() {
        return Vec::new();
    }
    let index = Index::new(&suppressions);
    diagnostics.retain(|diagnostic| !suppressed(&suppressions, &index, &items, diagnostic));
    for suppression in &suppressions {
        report(suppression, &source.text, checked_whole, &mut problems);
    }
    diagnostics.extend(problems);
    waived(&suppressions)
}

/// The rules each suppression actually silenced.
fn waived(suppressions: &[Suppression]) -> Vec<Waived> {
    suppressions
        .iter()
        .flat_map(|suppression| {
            suppression
                .rules
                .iter()
                .filter(|named| named.used.get())
                .filter_map(|named| named.rule)
                .map(|rule| Waived {
                    rule,
                    scope: suppression.scope,
                    reason: suppression.reason.clone(),
                })
        })
        .collect()
}

/// The suppressions by what they cover, so that each diagnostic looks only
/// at those that could cover it: checking every diagnostic against every
/// suppression was quadratic in a file with many of both.
struct Index {
    whole_file: Vec<usize>,
    by_scope: HashMap<Span, Vec<usize>>,
}

impl Index {
    fn new(suppressions: &[Suppression]) -> Self {
        let mut index = Index {
            whole_file: Vec::new(),
            by_scope: HashMap::new(),
        };
        for (at, suppression) in suppressions.iter().enumerate() {
            match suppression.scope {
                None => index.whole_file.push(at),
                Some(scope) => index.by_scope.entry(scope).or_default().push(at),
            }
        }
        index
    }
}

fn suppressed(
    suppressions: &[Suppression],
    index: &Index,
    items: &Items,
    diagnostic: &Diagnostic,
) -> bool {
    if !diagnostic.rule.is_configurable() || diagnostic.rule == &UNUSED_SUPPRESSION {
        return false;
    }
    let at = diagnostic.span().start;
    // A suppression covers `at` when its scope holds it or starts there:
    // the items around `at`, innermost first (a handful however large the
    // file), and the point scopes of suppressions that cover nothing,
    // which start at `usize::MAX`.
    let scopes = items
        .around(at, |span| span.contains(at) || span.start == at)
        .chain((at == usize::MAX).then_some(Span::point(usize::MAX)));
    let candidates = index.whole_file.iter().chain(
        scopes
            .filter_map(|scope| index.by_scope.get(&scope))
            .flatten(),
    );
    let mut hit = false;
    for &candidate in candidates {
        for named in &suppressions[candidate].rules {
            if named.rule == Some(diagnostic.rule) {
                named.used.set(true);
                hit = true;
            }
        }
    }
    hit
}

fn report(
    suppression: &Suppression,
    text: &str,
    checked_whole: bool,
    problems: &mut Vec<Diagnostic>,
) {
    // A suppression that still suppresses something (or names what cannot
    // be judged unused) keeps its comment: only the unused names go.
    let keeps_comment = suppression
        .rules
        .iter()
        .any(|named| named.used.get() || !named.rule.is_some_and(|rule| rule.is_configurable()));
    for (index, named) in suppression.rules.iter().enumerate() {
        match named.rule {
            None => {
                let names = crate::codes::all()
                    .iter()
                    .filter(|rule| rule.is_configurable())
                    .map(|rule| rule.name);
                let diagnostic = Diagnostic::new(
                    &UNUSED_SUPPRESSION,
                    format!("no rule is named `{}`", named.name),
                )
                .primary(named.span, "not a rule");
                problems.push(match suggest::closest(&named.name, names) {
                    Some(suggestion) => diagnostic.suggest(named.span, suggestion),
                    None => diagnostic.help("`contrib rules` lists every rule"),
                });
            }
            Some(rule) if !rule.is_configurable() => {
                let configurable_left = suppression
                    .rules
                    .iter()
                    .any(|other| other.rule.is_some_and(|other| other.is_configurable()));
                let fix = if configurable_left {
                    Fix::replace(
                        format!("Remove `{}` from the suppression", rule.name),
                        Applicability::Safe,
                        name_removal(&suppression.rules, index),
                        "",
                    )
                } else {
                    Fix::replace(
                        "Remove the suppression",
                        Applicability::Safe,
                        comment_removal(text, suppression.comment),
                        "",
                    )
                };
                problems.push(
                    Diagnostic::new(
                        &UNUSED_SUPPRESSION,
                        format!(
                            "`{}` cannot be suppressed: it is a {} rule",
                            rule.name,
                            rule.kind.as_str()
                        ),
                    )
                    .primary(named.span, format!("a {} rule", rule.kind.as_str()))
                    .help(format!(
                        "fix what it reports instead; whether it applies is decided by {}",
                        rule.kind.decided_by()
                    ))
                    .fix(fix),
                );
            }
            Some(rule) if !named.used.get() && checked_whole => {
                let fix = if keeps_comment {
                    Fix::replace(
                        format!("Remove `{}` from the suppression", rule.name),
                        Applicability::Safe,
                        name_removal(&suppression.rules, index),
                        "",
                    )
                } else {
                    Fix::replace(
                        "Remove the suppression",
                        Applicability::Safe,
                        comment_removal(text, suppression.comment),
                        "",
                    )
                };
                problems.push(
                    Diagnostic::new(&UNUSED_SUPPRESSION, format!("this suppression of `{}` suppresses nothing", rule.name))
                        .primary(named.span, "nothing to suppress here")
                        .help("remove it if the problem it was written for is gone, or move it to the line before the contributor or field it is for")
                        .fix(fix),
                );
            }
            Some(_) => {}
        }
    }
    if !suppression.has_reason && !suppression.rules.is_empty() {
        problems.push(
            Diagnostic::new(&UNUSED_SUPPRESSION, "this suppression gives no reason")
                .primary(suppression.comment, "no `-- reason`")
                .help("say why the rule does not apply here, after `--`: `# contrib: allow(rule) -- reason`"),
        );
    }
}

/// What to delete to remove the `index`th name of a list and one comma
/// beside it.
fn name_removal(rules: &[Named], index: usize) -> Span {
    let this = rules[index].span;
    match (
        rules.get(index + 1),
        index.checked_sub(1).map(|before| &rules[before]),
    ) {
        (Some(next), _) => Span::new(this.start, next.span.start),
        (None, Some(previous)) => Span::new(previous.span.end, this.end),
        (None, None) => this,
    }
}

/// What to delete to remove a comment without leaving blank space behind:
/// its whole line when it stands alone on it, or the spaces before it when
/// it follows a field.
fn comment_removal(text: &str, comment: Span) -> Span {
    let before = &text[..comment.start];
    let line_start = before.rfind(['\n', '\r']).map_or(0, |at| at + 1);
    let spaces_start = before.trim_end_matches([' ', '\t']).len();
    if spaces_start > line_start {
        return Span::new(spaces_start, comment.end);
    }
    let after = &text[comment.end..];
    let line_break = if after.starts_with("\r\n") {
        2
    } else {
        usize::from(after.starts_with(['\n', '\r']))
    };
    Span::new(line_start, comment.end + line_break)
}

fn parse(
    items: &Items,
    source: &SourceFile,
    tree: &File<'_>,
    problems: &mut Vec<Diagnostic>,
) -> Vec<Suppression> {
    let first_item = items.spans.first().map_or(usize::MAX, |span| span.start);
    let lines = source.line_index();
    let mut suppressions = Vec::new();
    for comment in &tree.comments {
        let body = comment.text.trim_start_matches('#').trim_start();
        let Some(directive) = body.strip_prefix(DIRECTIVE) else {
            continue;
        };
        let directive_start =
            comment.span.start + (comment.text.len() - body.len()) + DIRECTIVE.len();
        let Some((rules, reason)) = parse_directive(directive, directive_start) else {
            problems.push(
                Diagnostic::new(
                    &UNUSED_SUPPRESSION,
                    "this `contrib:` comment is not a suppression",
                )
                .primary(comment.span, "not `allow(rule) -- reason`")
                .help("write `# contrib: allow(rule-name) -- reason`"),
            );
            continue;
        };
        let line = lines.line_of(comment.span.start);
        let own_line = lines
            .line_start(line)
            .is_some_and(|start| source.text[start..comment.span.start].trim().is_empty());
        let scope = if own_line && comment.span.start < first_item {
            None
        } else if own_line {
            // The next contributor or field in the same block: a comment
            // left at the end of a block covers nothing after the block.
            let at = comment.span.start;
            let block_end = items
                .around(at, |span| span.start < at && at < span.end)
                .next()
                .map_or(usize::MAX, |block| block.end);
            items
                .first_starting_at_or_after(comment.span.end)
                .filter(|span| span.start < block_end)
                .or(Some(Span::point(usize::MAX)))
        } else {
            items
                .last_starting_before(comment.span.start)
                .filter(|span| lines.line_of(span.start) == line)
                .or(Some(Span::point(usize::MAX)))
        };
        suppressions.push(Suppression {
            comment: comment.span,
            rules,
            has_reason: !reason.is_empty(),
            reason,
            scope,
        });
    }
    suppressions
}

/// The file's contributors and fields: spans that nest or are apart, in
/// order of start (outer before inner), each with the one around it, so
/// that the items around an offset are found in logarithmic time.
struct Items {
    spans: Vec<Span>,
    parents: Vec<Option<usize>>,
}

impl Items {
    fn new(tree: &File<'_>) -> Self {
        let mut spans = Vec::new();
        collect_items(&tree.items, &mut spans);
        spans.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        let mut parents = Vec::with_capacity(spans.len());
        let mut open: Vec<usize> = Vec::new();
        for (index, span) in spans.iter().enumerate() {
            while open
                .last()
                .is_some_and(|&outer| spans[outer].end <= span.start)
            {
                open.pop();
            }
            parents.push(open.last().copied());
            open.push(index);
        }
        Items { spans, parents }
    }

    /// The items around `at` that `holds` accepts, innermost first. An
    /// item that holds `at` is the last one starting at or before it, or
    /// one around that one.
    fn around<'a>(
        &'a self,
        at: usize,
        holds: impl Fn(Span) -> bool + 'a,
    ) -> impl Iterator<Item = Span> + 'a {
        let mut next = self
            .spans
            .partition_point(|span| span.start <= at)
            .checked_sub(1);
        std::iter::from_fn(move || {
            while let Some(index) = next {
                next = self.parents[index];
                if holds(self.spans[index]) {
                    return Some(self.spans[index]);
                }
            }
            None
        })
    }

    fn first_starting_at_or_after(&self, at: usize) -> Option<Span> {
        let index = self.spans.partition_point(|span| span.start < at);
        self.spans.get(index).copied()
    }

    fn last_starting_before(&self, at: usize) -> Option<Span> {
        let index = self.spans.partition_point(|span| span.start < at);
        index.checked_sub(1).map(|index| self.spans[index])
    }
}

/// `allow(a, b) -- reason` → the named rules and the reason (empty when
/// none follows).
fn parse_directive(text: &str, start: usize) -> Option<(Vec<Named>, String)> {
    let trimmed = text.trim_start();
    let offset = start + (text.len() - trimmed.len());
    let inner = trimmed.strip_prefix("allow(")?;
    let close = inner.find(')')?;
    let mut rules = Vec::new();
    let mut at = offset + "allow(".len();
    for part in inner[..close].split(',') {
        let name = part.trim();
        let lead = part.len() - part.trim_start().len();
        if !name.is_empty() {
            rules.push(Named {
                name: name.to_string(),
                span: Span::new(at + lead, at + lead + name.len()),
                rule: crate::codes::find(name),
                used: Cell::new(false),
            });
        }
        at += part.len() + 1;
    }
    if rules.is_empty() {
        return None;
    }
    let rest = inner[close + 1..].trim();
    let reason = rest
        .strip_prefix("--")
        .map(|reason| reason.trim().to_string())
        .unwrap_or_default();
    Some((rules, reason))
}

fn collect_items(items: &[Item<'_>], out: &mut Vec<Span>) {
    for item in items {
        out.push(item.span());
        if let Item::Block(block) = item {
            collect_items(&block.items, out);
        }
    }
}

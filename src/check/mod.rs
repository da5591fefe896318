//! The checker: semantic rules over a lowered plugin.
//!
//! Each rule lives in a file of its own under `rules/`, declaring its code,
//! name, default level, explanation and the function that checks; the
//! registry in `rules/mod.rs` lists them, one line each. Rules read a
//! shared [`Context`] so that what several need (a contributor's measured
//! tokens, its variance) is computed once.

pub mod bounds;
mod measure;
pub mod rules;
pub mod suppress;

pub use contrib_core::policy::{url, Measure};
pub use measure::{arguments_of, measure};

use std::cell::OnceCell;

use crate::config::Config;
use crate::diagnostic::{Diagnostic, Level, Rule, RuleKind};
use crate::ir::{Contributor, Plugin};
use crate::source::SourceFile;

/// A semantic rule and the function that applies it.
pub struct CheckRule {
    pub rule: &'static Rule,
    pub check: fn(&Context<'_>, &mut Vec<Diagnostic>),
}

/// A rule over a manifest's text, and the function that applies it.
pub struct TextRule {
    pub rule: &'static Rule,
    pub check: fn(&SourceFile, &crate::syntax::tree::File<'_>, &mut Vec<Diagnostic>),
}

/// Every checker rule.
pub fn registry() -> &'static [CheckRule] {
    rules::REGISTRY
}

/// Every rule over a manifest's text.
pub fn text_registry() -> &'static [TextRule] {
    rules::TEXT_REGISTRY
}

/// Runs every text rule not allowed by `[lints]` on a file and its tree.
pub fn check_text(
    source: &SourceFile,
    tree: &crate::syntax::tree::File<'_>,
    config: &Config,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for entry in text_registry() {
        if config.level(entry.rule) != Level::Allow {
            (entry.check)(source, tree, &mut diagnostics);
        }
    }
    diagnostics
}

/// A contributor's tool call, as the manifest writes it and as the policy
/// judges it ([`CallSite::judged`]).
pub struct CallSite<'a> {
    pub contributor: &'a Contributor,
    pub call: &'a crate::ir::Call,
    arguments: Vec<(&'a str, &'a crate::ir::Value)>,
}

impl CallSite<'_> {
    /// The call in the policy's terms.
    pub fn judged(&self) -> contrib_core::policy::call::Call<'_> {
        contrib_core::policy::call::Call {
            contributor: &self.contributor.id.value,
            tool: &self.call.tool.value,
            arguments: &self.arguments,
        }
    }

    /// Where argument `name` is written, or the tool's name when it is not.
    pub fn argument_span(&self, name: &str) -> crate::source::Span {
        self.call
            .arguments
            .get(name)
            .map_or(self.call.tool.span, |argument| argument.value.span)
    }
}

/// What the rules read: the plugin, the workspace, and measurements made
/// at most once per contributor.
pub struct Context<'a> {
    pub plugin: &'a Plugin,
    pub config: &'a Config,
    measures: Vec<OnceCell<Measure>>,
}

impl<'a> Context<'a> {
    pub fn new(plugin: &'a Plugin, config: &'a Config) -> Self {
        Context {
            plugin,
            config,
            measures: plugin
                .contributors
                .iter()
                .map(|_| OnceCell::new())
                .collect(),
        }
    }

    /// The contributors with their index, for [`Context::measure`].
    pub fn contributors(&self) -> impl Iterator<Item = (usize, &'a Contributor)> {
        self.plugin.contributors.iter().enumerate()
    }

    /// Every tool call a contributor makes, with its contributor.
    pub fn calls(&self) -> impl Iterator<Item = CallSite<'a>> {
        self.plugin.contributors.iter().filter_map(|contributor| {
            contributor.call().map(|call| CallSite {
                contributor,
                call,
                arguments: arguments_of(call),
            })
        })
    }

    /// Every skill a contributor names: eager-loaded skills and the skills
    /// of `skill-updated` conditions.
    pub fn skill_uses(&self) -> impl Iterator<Item = &'a crate::source::Spanned<String>> {
        self.plugin
            .contributors
            .iter()
            .filter_map(|contributor| match &contributor.body {
                crate::ir::ContributorBody::EagerLoad {
                    skill: Some(load), ..
                } => Some(&load.skill),
                crate::ir::ContributorBody::SystemMessage { condition, .. } => {
                    condition.skill.as_ref()
                }
                _ => None,
            })
    }

    /// What contributor `index` adds, measured once however many rules ask.
    pub fn measure(&self, index: usize) -> &Measure {
        let contributor = &self.plugin.contributors[index];
        self.measures[index].get_or_init(|| measure(self.plugin, contributor, self.config))
    }
}

/// Runs every rule not allowed by `[lints]` and gives each diagnostic the
/// level the workspace sets for its rule.
pub fn check(plugin: &Plugin, config: &Config) -> Vec<Diagnostic> {
    let context = Context::new(plugin, config);
    let mut diagnostics = Vec::new();
    for entry in registry() {
        if config.level(entry.rule) == Level::Allow {
            continue;
        }
        (entry.check)(&context, &mut diagnostics);
    }
    diagnostics
}

/// Applies `[lints]` levels: drops allowed diagnostics and, where the
/// workspace sets a level explicitly, uses it. Otherwise a diagnostic keeps
/// the severity its rule gave it (some rules decide per case, such as
/// `override-attempt`, an error below agent priority and a warning above).
///
/// A source format's rule (`invalid-hook`, `broken-link`, …) is only ever
/// raised: each finding keeps the class its format's loader gives it (an
/// error where the plugin is refused, a warning where only a part is
/// skipped) unless the workspace asks for more, and an opt-in one (off by
/// default) is reported once the workspace names a level for it.
pub fn apply_levels(diagnostics: &mut Vec<Diagnostic>, config: &Config) {
    diagnostics.retain_mut(|diagnostic| {
        let level = config.level(diagnostic.rule);
        if config.sets_level(diagnostic.rule) {
            if let Some(severity) = level.severity() {
                diagnostic.severity = match diagnostic.rule.kind {
                    RuleKind::Source => diagnostic.severity.max(severity),
                    _ => severity,
                };
            }
        }
        level != Level::Allow
    });
}

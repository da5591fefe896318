//! The one diagnostic type shared by every stage and every output.
//!
//! A diagnostic names the [`Rule`] it comes from (a stable code and a
//! kebab-case name), carries its message in the manifest's own words, labels
//! byte spans, says how to fix it, and may carry machine-applicable fixes.
//! Stages build diagnostics with the small builder methods below; `report`
//! renders them for people (miette) and machines (JSON and friends).

mod rule;

pub use rule::{Level, Rule, RuleKind};

use crate::source::Span;

/// How bad a diagnostic is, after `[lints]` levels are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A span with what it means to the reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
    /// The primary label is where the problem is; secondary labels explain it.
    pub primary: bool,
}

/// Whether a fix may be applied without a person looking at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Keeps the manifest's meaning as its author intended (a misspelling).
    Safe,
    /// Changes what a person approves (a larger budget, a narrower placement).
    Unsafe,
}

/// One replacement of source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
}

/// A titled set of edits that resolves a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
}

impl Fix {
    pub fn replace(
        title: impl Into<String>,
        applicability: Applicability,
        span: Span,
        replacement: impl Into<String>,
    ) -> Self {
        Fix {
            title: title.into(),
            applicability,
            edits: vec![Edit {
                span,
                replacement: replacement.into(),
            }],
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub rule: &'static Rule,
    pub severity: Severity,
    pub message: String,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    pub fixes: Vec<Fix>,
}

impl Diagnostic {
    /// A diagnostic at the rule's default severity.
    pub fn new(rule: &'static Rule, message: impl Into<String>) -> Self {
        Diagnostic {
            rule,
            severity: rule.default_level.severity().unwrap_or(Severity::Warning),
            message: message.into(),
            labels: Vec::new(),
            help: None,
            fixes: Vec::new(),
        }
    }

    /// Where the problem is.
    pub fn primary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: true,
        });
        self
    }

    /// Another place that explains the problem.
    pub fn secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn fix(mut self, fix: Fix) -> Self {
        self.fixes.push(fix);
        self
    }

    /// "Did you mean `x`?", with a safe fix replacing `span` by it: the help
    /// every misspelling gets.
    pub fn suggest(self, span: Span, suggestion: &str) -> Self {
        self.help(format!("did you mean `{suggestion}`?"))
            .fix(Fix::replace(
                format!("Replace with `{suggestion}`"),
                Applicability::Safe,
                span,
                suggestion,
            ))
    }

    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// The span of the primary label, or of the first label.
    pub fn span(&self) -> Span {
        self.labels
            .iter()
            .find(|label| label.primary)
            .or(self.labels.first())
            .map(|label| label.span)
            .unwrap_or_default()
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Sorts diagnostics by position, then code, so output is deterministic
/// whatever order the stages found them in.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (a.span().start, a.span().end, a.rule.code).cmp(&(
            b.span().start,
            b.span().end,
            b.rule.code,
        ))
    });
}

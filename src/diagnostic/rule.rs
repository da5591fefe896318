use super::Severity;

/// What a rule does when it fires, as set by its default or by `[lints]`,
/// with the meanings clippy gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Allow,
    Warn,
    Deny,
}

impl Level {
    /// The severity of a diagnostic at this level; `None` when allowed.
    pub fn severity(self) -> Option<Severity> {
        match self {
            Level::Allow => None,
            Level::Warn => Some(Severity::Warning),
            Level::Deny => Some(Severity::Error),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }
}

/// Which stage a rule belongs to. Language rules describe text that cannot
/// be understood at all, so `[lints]` cannot lower them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleGroup {
    /// Syntax and lowering: the manifest cannot be read as written.
    Language,
    /// The checker's semantic rules.
    Check,
    /// The workspace configuration, `contrib.toml`.
    Config,
    /// Bundles and catalogs.
    Bundle,
}

/// A diagnostic's identity and documentation, declared once.
///
/// `explanation` is Markdown with `## What it does`, `## Why is this bad?`
/// and `## Example` sections; `contrib explain` prints it and the language
/// server shows it on hover.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub group: RuleGroup,
    pub default_level: Level,
    /// One line, lowercase, no trailing period.
    pub summary: &'static str,
    pub explanation: &'static str,
}

impl Rule {
    /// Whether `[lints]` may change this rule's level.
    pub fn is_configurable(&self) -> bool {
        self.group != RuleGroup::Language
    }
}

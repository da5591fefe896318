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

/// Who decides whether a rule applies, which is what `[lints]` and
/// suppression comments may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleKind {
    /// The language: the manifest cannot be read, or says something that
    /// means nothing. Always an error.
    Language,
    /// The workspace's policy: its tools, skills, egress and budgets decide,
    /// and at install the installer's. Never a matter of `[lints]`.
    Policy,
    /// A judgment call the author may make, in `[lints]` or with a
    /// suppression comment that gives the reason.
    Lint,
    /// The workspace configuration, `contrib.toml`.
    Config,
    /// Bundles and catalogs.
    Bundle,
    /// Another tool's source format (Agent Skills, Agent Plugins, Claude
    /// Code and Copilot plugins, MCP configurations), read in place.
    Source,
}

impl RuleKind {
    /// How the kind is named in messages and `contrib explain`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Language => "language",
            RuleKind::Policy => "policy",
            RuleKind::Lint => "lint",
            RuleKind::Config => "config",
            RuleKind::Bundle => "bundle",
            RuleKind::Source => "source",
        }
    }

    /// Who decides, for `contrib explain` and the `[lints]` diagnostic.
    pub fn decided_by(self) -> &'static str {
        match self {
            RuleKind::Language => "the language: what it reports cannot be written, so it is always an error",
            RuleKind::Policy => "the workspace's configuration (its tools, skills, egress and budgets), and at install the installer's; `[lints]` and suppression comments cannot change it",
            RuleKind::Lint => "the author's judgment: `[lints]` sets its level, and a suppression comment with a reason silences one case",
            RuleKind::Config => "the configuration's own reader: a configuration half understood would make every other rule wrong",
            RuleKind::Bundle => "the bundle format and the catalog: what it reports would change what a person approved",
            RuleKind::Source => "the source format's own specification, and what its loaders do with the file: it is reported where the file is, whatever `[lints]` says",
        }
    }
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
    pub kind: RuleKind,
    pub default_level: Level,
    /// One line, lowercase, no trailing period.
    pub summary: &'static str,
    pub explanation: &'static str,
}

impl Rule {
    /// Whether `[lints]` and suppression comments may change this rule:
    /// only judgment calls can.
    pub fn is_configurable(&self) -> bool {
        self.kind == RuleKind::Lint
    }

    /// Whether `[lints]` may raise this rule (to `warn` or `deny`) without
    /// lowering it: a source format's rules, whose findings keep the class
    /// their format's loader gives them, and whose opt-in ones are off
    /// until a workspace names a level.
    pub fn is_raisable(&self) -> bool {
        self.kind == RuleKind::Source
    }
}

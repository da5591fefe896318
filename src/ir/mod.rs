//! The typed, resolved manifest: what lowering produces and every later
//! stage (checker, bundle, language server) reads.
//!
//! Defaults are already applied here (a contributor's owner, placement,
//! priority and reach), but each [`Setting`] remembers whether it was
//! written, so diagnostics can point at the author's words or, for a
//! default, at the contributor that took it.

pub mod read;
pub mod reference;
mod template;
pub mod variance;

pub use contrib_core::vocabulary::{
    facts, framing_for, kinds, names, on_request_listing, origin, variables, ActivationKind,
    ConditionKind, Delivery, Duration, FactSection, Kind, KindSpec, Owner, Placement, Priority,
    Reach, Source, Value, Variance, Vocabulary,
};
pub use template::{Template, TemplatePart, VariableUse};

use indexmap::IndexMap;

use crate::source::{Span, Spanned};

/// The framing that precedes `contributor`'s contribution, or `None` at
/// agent priority and above ([`framing_for`]).
pub fn framing(plugin: &PluginName, contributor: &Contributor) -> Option<String> {
    framing_for(plugin, contributor.priority.value)
}

/// A plugin: who publishes it and what it contributes.
#[derive(Debug, Clone, PartialEq)]
pub struct Plugin {
    pub name: Spanned<PluginName>,
    pub version: Spanned<semver::Version>,
    pub owner: Spanned<Owner>,
    pub summary: Option<Spanned<String>>,
    pub requires: Vec<Requirement>,
    pub contributors: Vec<Contributor>,
    /// The whole `plugin … { … }` block.
    pub span: Span,
}

impl Plugin {
    pub fn requirement(&self, skill: &str) -> Option<&Requirement> {
        self.requires
            .iter()
            .find(|requirement| requirement.skill.value == skill)
    }
}

/// `scope/name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PluginName {
    pub scope: String,
    pub name: String,
}

impl std::fmt::Display for PluginName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.scope, self.name)
    }
}

/// `requires skill NAME "REQ"`.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirement {
    pub skill: Spanned<String>,
    pub version: Spanned<semver::VersionReq>,
    pub span: Span,
}

/// A value that may have been written or may come from a default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    /// Where the author wrote it; `None` for a default.
    pub written: Option<Span>,
}

impl<T> Setting<T> {
    pub fn written(value: T, span: Span) -> Self {
        Setting {
            value,
            written: Some(span),
        }
    }

    pub fn default(value: T) -> Self {
        Setting {
            value,
            written: None,
        }
    }

    /// Where to point when talking about this setting: where it was
    /// written, or else `fallback` (usually the contributor's header).
    pub fn span_or(&self, fallback: Span) -> Span {
        self.written.unwrap_or(fallback)
    }
}

/// One contributor: what it adds, where, with whose authority, to which
/// turns, when, within what budget.
///
/// Every contributor has every setting here, resolved: what its kind does
/// not let an author write (the placement of an `eager-run`, the priority
/// of a `fact`) is the value the kind's row in [`kinds`] fixes, never
/// written. Lowering guarantees that what is here is a combination the
/// table allows.
#[derive(Debug, Clone, PartialEq)]
pub struct Contributor {
    pub id: Spanned<String>,
    pub body: ContributorBody,
    pub owner: Setting<Owner>,
    pub placement: Setting<Placement>,
    pub priority: Setting<Priority>,
    pub reach: Setting<Reach>,
    pub activation: Setting<Activation>,
    /// The most tokens this contributor may add.
    pub budget: Spanned<u64>,
    /// `kind id {`, where diagnostics about the whole contributor point.
    pub header: Span,
    /// The whole block.
    pub span: Span,
}

impl Contributor {
    pub fn kind(&self) -> Kind {
        self.body.kind()
    }

    /// This contributor's row of the table of kinds.
    pub fn spec(&self) -> &'static KindSpec {
        self.kind().spec()
    }

    /// Where the runtime puts what it adds.
    pub fn delivery(&self) -> Delivery {
        self.spec()
            .delivery(self.placement.value, self.activation.value.is_always())
    }

    /// The template this contributor adds as text, if it has one.
    pub fn template(&self) -> Option<&Template> {
        match &self.body {
            ContributorBody::Text { body } | ContributorBody::SystemMessage { body, .. } => {
                Some(body)
            }
            _ => None,
        }
    }

    /// Every skill this contributor names: the skill it loads, the skill
    /// whose update its note reports, the skill whose invocation it waits
    /// for.
    pub fn skills(&self) -> impl Iterator<Item = &Spanned<String>> {
        let loaded = match &self.body {
            ContributorBody::EagerLoad {
                skill: Some(load), ..
            } => Some(&load.skill),
            ContributorBody::SystemMessage { condition, .. } => condition.skill.as_ref(),
            _ => None,
        };
        let invoked = match &self.activation.value {
            Activation::Skill(skill) => Some(skill),
            _ => None,
        };
        loaded.into_iter().chain(invoked)
    }

    /// The tool call this contributor makes, if any.
    pub fn call(&self) -> Option<&Call> {
        match &self.body {
            ContributorBody::EagerRun { call } | ContributorBody::Preface { call, .. } => {
                Some(call)
            }
            _ => None,
        }
    }
}

/// What each kind of contributor adds.
#[derive(Debug, Clone, PartialEq)]
pub enum ContributorBody {
    Text {
        body: Template,
    },
    EagerLoad {
        tools: Vec<Spanned<String>>,
        skill: Option<SkillLoad>,
        /// `choose from usage "FILE"`: `tools` and the skill's operations
        /// are candidates, and the bundle loads those usage favours.
        choose: Option<Choose>,
    },
    EagerRun {
        call: Call,
    },
    SystemMessage {
        condition: Condition,
        body: Template,
    },
    Preface {
        source: Spanned<Source>,
        origin: Spanned<String>,
        call: Call,
    },
    Fact {
        /// The section's heading, when written.
        heading: Option<Spanned<String>>,
        says: Vec<Spanned<FactSection>>,
    },
}

impl ContributorBody {
    pub fn kind(&self) -> Kind {
        match self {
            ContributorBody::Text { .. } => Kind::Text,
            ContributorBody::EagerLoad { .. } => Kind::EagerLoad,
            ContributorBody::EagerRun { .. } => Kind::EagerRun,
            ContributorBody::SystemMessage { .. } => Kind::SystemMessage,
            ContributorBody::Preface { .. } => Kind::Preface,
            ContributorBody::Fact { .. } => Kind::Fact,
        }
    }
}

/// When a contributor applies (`applies …`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Activation {
    /// On every conversation: `applies always`, or nothing written.
    #[default]
    Always,
    /// `applies on command NAME`: when a person invokes the command.
    Command(Spanned<String>),
    /// `applies on skill NAME`: when the skill is invoked.
    Skill(Spanned<String>),
    /// `applies on subagent NAME`: when the agent delegates to it.
    Subagent(Spanned<String>),
    /// `applies to files ["GLOB", …]`: when a file matching one is in play.
    Files(Vec<Spanned<String>>),
    /// `applies on request "DESCRIPTION"`: when the model asks for it.
    Request(Spanned<String>),
}

impl Activation {
    pub fn kind(&self) -> ActivationKind {
        match self {
            Activation::Always => ActivationKind::Always,
            Activation::Command(_) => ActivationKind::Command,
            Activation::Skill(_) => ActivationKind::Skill,
            Activation::Subagent(_) => ActivationKind::Subagent,
            Activation::Files(_) => ActivationKind::Files,
            Activation::Request(_) => ActivationKind::Request,
        }
    }

    pub fn is_always(&self) -> bool {
        matches!(self, Activation::Always)
    }
}

/// `skill NAME operations [a, b]`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillLoad {
    pub skill: Spanned<String>,
    pub operations: Vec<Spanned<String>>,
    pub span: Span,
}

/// `choose from usage "FILE"`: an eager load whose tools and operations
/// are candidates, chosen within its budget from the turns a usage file
/// records when the bundle is built, and frozen in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Choose {
    /// The usage file, relative to the manifest's folder.
    pub usage: Spanned<String>,
    pub span: Span,
}

/// `call TOOL { key: value, … }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub tool: Spanned<String>,
    pub arguments: IndexMap<String, Argument>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Argument {
    pub key: Span,
    pub value: Spanned<Value>,
}

/// `when …` of a system message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub kind: ConditionKind,
    /// For `idle > DURATION`: the threshold.
    pub idle_over: Option<Spanned<Duration>>,
    /// For `skill-updated NAME`: the skill.
    pub skill: Option<Spanned<String>>,
    pub span: Span,
}

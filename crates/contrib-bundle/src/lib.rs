//! `contrib-bundle`: a plugin version, frozen, and the workspace that
//! approves it.
//!
//! A bundle is what the runtime loads and a catalog publishes: canonical
//! JSON (RFC 8785: sorted keys, no insignificant white space) holding the
//! plugin's contributors in composition order, each with its measured
//! tokens, parsed template and rendered framing, and the `permissions` a
//! person approves. Its `digest` is `sha256:` and the hex of the canonical
//! bytes of the bundle without the digest, so "acme/code-review@1.4.0" names
//! exactly one content, on any machine. The schema is
//! `schema/bundle.schema.json`.
//!
//! Beside the format: catalogs, as folders ([`catalog`]) and in OCI
//! registries ([`oci`], the artifact format and the index, with no network
//! in sight); what changes between two versions ([`diff`]); signatures
//! ([`sign`], [`keys`]); and the [`workspace`] that approves bundles and
//! loads what it approved, judging each on the bundle itself. Building a
//! bundle from a manifest is the language's (`contrib::bundle::build`); a
//! host that only loads and composes needs none of it.

#![warn(unreachable_pub)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

/// `From<E> for String` for each typed error `E`: the command line, which
/// reports errors as text, takes them with `?` as the message they display.
/// Defined before the modules, so every module can invoke it.
macro_rules! into_text {
    ($($error:ty),*) => {$(
        impl From<$error> for String {
            fn from(error: $error) -> String {
                error.to_string()
            }
        }
    )*};
}

mod canonical;
pub mod catalog;
pub mod diff;
pub mod keys;
mod load;
pub mod oci;
mod permissions;

mod base64;
pub mod sign;
pub mod surface;
pub mod usage;
mod v1;
pub mod workspace;
mod write;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use canonical::{canonical_bytes, digest_of, NoCanonicalForm};
pub use load::is_plugin_name;
pub use load::LoadError;
pub use permissions::{Permissions, ToolRun};
pub use write::{bundle_path, write_bundle, WriteError, Written};

use contrib_core::config::{Config, Effect};
use contrib_core::diagnostic::Level;
use contrib_core::policy::budget::{kept_share, Share};
use contrib_core::policy::{Adds, Measure};
use contrib_core::tokenizer::TokenizerKind;
use contrib_core::vocabulary::{
    ActivationKind, ConditionKind, Delivery, FactSection, Kind, Owner, Placement, Priority, Reach,
    Source, Value,
};

/// The bundle format this build writes. It moves with the manifest
/// language: format 2 is language 2 (kinds with their own settings,
/// activation, authority requested rather than claimed). Format 1 bundles
/// still load, upgraded in memory (see `load`).
pub const FORMAT: u32 = 2;

/// A published plugin version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    pub format: u32,
    /// `scope/name`.
    pub plugin: String,
    pub version: semver::Version,
    /// The plugin's owner, as the author requests it: the authority its
    /// contributors get is decided when it is installed, never by this.
    pub requested_owner: Owner,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Skill name → version requirement.
    pub requires: BTreeMap<String, String>,
    pub tokenizer: TokenizerKind,
    /// In composition order: placement, then priority, then id.
    pub contributors: Vec<BundledContributor>,
    pub permissions: Permissions,
    /// What the author chose not to be told: suppression comments and
    /// `[lints]` levels in force when the bundle was built. Recorded so an
    /// installer sees them; never obeyed where trust changes hands.
    #[serde(default, skip_serializing_if = "AuthorWaivers::is_empty")]
    pub author_waivers: AuthorWaivers,
    /// `sha256:<hex>` of the canonical bytes without this field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

/// One contributor as the runtime needs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundledContributor {
    pub id: String,
    pub kind: Kind,
    pub owner: Owner,
    pub placement: Placement,
    pub priority: Priority,
    pub reach: Reach,
    /// When it applies; absent for `always`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activation: Option<BundledActivation>,
    /// Where the runtime puts it, from the table of kinds: recorded so that
    /// runtimes in other languages and the approval screen need not derive
    /// it, and checked against the table when loaded.
    pub delivery: Delivery,
    pub budget: u64,
    /// What the checker measured: the whole contribution for texts, system
    /// messages and eager loads; the known part (the call) for the others.
    pub measured_tokens: u64,
    /// The body: literal runs and variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<Vec<Segment>>,
    /// The sentence that precedes a contribution below agent priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framing: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operations: Option<SkillOperations>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<BundledCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<BundledCondition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// A fact section's heading, when written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub says: Vec<FactSection>,
    /// For an eager load chosen by usage: what was weighed and why, frozen
    /// with the usage file's digest. `tools` and `operations` hold what was
    /// chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<BundledChoice>,
}

/// How an eager load's tools and operations were chosen from usage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundledChoice {
    /// The usage file, as the manifest names it.
    pub usage: String,
    /// `sha256:<hex>` of its bytes when the bundle was built.
    pub usage_digest: String,
    /// Conversations and turns it records.
    pub conversations: u64,
    pub turns: u64,
    /// Every candidate, chosen or not, and why.
    pub candidates: Vec<usage::Considered>,
}

/// `applies …` of a contributor that does not apply always.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "on", rename_all = "kebab-case", deny_unknown_fields)]
pub enum BundledActivation {
    Command { name: String },
    Skill { name: String },
    Subagent { name: String },
    Files { globs: Vec<String> },
    Request { description: String },
}

impl BundledActivation {
    pub fn kind(&self) -> ActivationKind {
        match self {
            BundledActivation::Command { .. } => ActivationKind::Command,
            BundledActivation::Skill { .. } => ActivationKind::Skill,
            BundledActivation::Subagent { .. } => ActivationKind::Subagent,
            BundledActivation::Files { .. } => ActivationKind::Files,
            BundledActivation::Request { .. } => ActivationKind::Request,
        }
    }
}

/// Suppressions and lint levels the author applied when building.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthorWaivers {
    /// Each suppression comment that silenced a diagnostic.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suppressions: Vec<Waiver>,
    /// Levels the author's `contrib.toml` set in `[lints]`, by rule name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub lints: BTreeMap<String, Level>,
}

impl AuthorWaivers {
    pub fn is_empty(&self) -> bool {
        self.suppressions.is_empty() && self.lints.is_empty()
    }
}

/// One suppression comment: which rule, where, and the reason given.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Waiver {
    pub rule: String,
    /// The contributor it covered; `None` for the whole file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contributor: Option<String>,
    pub reason: String,
}

impl BundledContributor {
    /// The body with every variable filled by `value`.
    pub fn render(&self, mut value: impl FnMut(&str) -> String) -> String {
        let mut text = String::new();
        for segment in self.template.iter().flatten() {
            match segment {
                Segment::Text { text: literal } => text.push_str(literal),
                Segment::Variable { variable } => text.push_str(&value(variable)),
            }
        }
        text
    }
}

/// A run of a template: literal text or a variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Segment {
    Text { text: String },
    Variable { variable: String },
}

/// `skill NAME operations a, b` of an eager load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillOperations {
    pub skill: String,
    #[serde(default)]
    pub operations: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundledCall {
    pub tool: String,
    pub arguments: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundledCondition {
    pub kind: ConditionKind,
    /// For `idle`: the threshold in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_seconds: Option<u64>,
    /// For `skill-updated`: the skill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
}

impl Bundle {
    /// `scope/name@version`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.plugin, self.version)
    }

    /// A contributor's full name in records: `scope/name@version/id`.
    pub fn contributor_name(&self, contributor: &BundledContributor) -> String {
        format!("{}/{}", self.id(), contributor.id)
    }

    /// What this plugin puts before every conversation, in tokens: the
    /// budgets of what is kept in the system prompt and of eager loads, and
    /// the listing line of each text the model may ask for (counted with
    /// the bundle's tokenizer). What `system-prompt-over-budget` counts for
    /// one manifest, counted over bundles by a catalog and a workspace.
    pub fn kept_share(&self) -> u64 {
        self.contributors
            .iter()
            .filter_map(|contributor| {
                let name = self.contributor_name(contributor);
                let on_request = match &contributor.activation {
                    Some(BundledActivation::Request { description }) => Some(description.as_str()),
                    _ => None,
                };
                let share = Share {
                    delivery: contributor.delivery,
                    placement: contributor.placement,
                    budget: contributor.budget,
                    on_request,
                    name: &name,
                    framing: contributor.framing.as_deref(),
                };
                kept_share(&share, self.tokenizer).map(|(tokens, _)| tokens)
            })
            .sum()
    }

    /// The effect of a run's tool, as the permissions record it.
    pub fn run_effect(&self, tool: &str) -> Option<Effect> {
        self.permissions
            .tools_run
            .iter()
            .find(|run| run.tool == tool)
            .map(|run| run.effect)
    }
}

impl BundledContributor {
    /// What it adds, as the policy measures it: the body's literal runs
    /// and variables, its loads, its call or its sections' headings. What
    /// an eager load chose from usage is frozen in its tools and
    /// operations, so it is measured as what it loads.
    pub fn adds(&self) -> Adds<'_> {
        match self.kind {
            Kind::Text | Kind::SystemMessage => {
                let segments = self.template.iter().flatten();
                let mut literals = Vec::new();
                let mut variables = Vec::new();
                for segment in segments {
                    match segment {
                        Segment::Text { text } => literals.push(text.as_str()),
                        Segment::Variable { variable } => {
                            variables.extend(contrib_core::vocabulary::variables::find(variable))
                        }
                    }
                }
                Adds::Text {
                    literals,
                    variables,
                }
            }
            Kind::EagerLoad => Adds::Loads {
                tools: self.tools.iter().map(String::as_str).collect(),
                skill: self.operations.as_ref().map(|load| {
                    let operations = load.operations.iter().map(String::as_str);
                    (load.skill.as_str(), operations.collect())
                }),
                chosen: false,
            },
            Kind::EagerRun | Kind::Preface => match &self.call {
                Some(call) => Adds::Call {
                    tool: &call.tool,
                    arguments: call.arguments(),
                },
                None => Adds::Text {
                    literals: Vec::new(),
                    variables: Vec::new(),
                },
            },
            Kind::Fact => Adds::Facts {
                heading: self.heading.as_deref(),
                says: self.says.clone(),
            },
        }
    }

    /// What it adds, measured under `config` behind its framing.
    pub fn measure(&self, config: &Config) -> Measure {
        Measure::new(self.framing.clone(), self.adds(), config)
    }
}

impl BundledCall {
    /// Its arguments as the policy reads them, in name order.
    pub fn arguments(&self) -> Vec<(&str, &Value)> {
        self.arguments
            .iter()
            .map(|(name, value)| (name.as_str(), value))
            .collect()
    }
}

//! Bundles: a plugin version, frozen.
//!
//! A bundle is what the runtime loads and a catalog publishes: canonical
//! JSON (RFC 8785: sorted keys, no insignificant white space) holding the
//! plugin's contributors in composition order, each with its measured
//! tokens, parsed template and rendered framing, and the `permissions` a
//! person approves. Its `digest` is `sha256:` and the hex of the canonical
//! bytes of the bundle without the digest, so "acme/code-review@1.4.0" names
//! exactly one content, on any machine. The schema is
//! `schema/bundle.schema.json`.

mod build;
mod canonical;
pub mod catalog;
pub mod diff;
mod load;
mod permissions;
pub mod rules;
pub mod sign;
mod write;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use build::build;
pub use canonical::{canonical_bytes, digest_of};
pub(crate) use load::is_plugin_name;
pub use load::LoadError;
pub use permissions::{Permissions, ToolRun};
pub use write::{bundle_path, write_bundle, Written};

use crate::config::Effect;
use crate::ir::{
    ConditionKind, FactSection, Kind, Owner, Placement, Priority, Reach, Source, Value,
};
use crate::tokenizer::TokenizerKind;

/// The bundle format this build writes and reads.
pub const FORMAT: u32 = 1;

/// A published plugin version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    pub format: u32,
    /// `scope/name`.
    pub plugin: String,
    pub version: semver::Version,
    pub owner: Owner,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Skill name → version requirement.
    pub requires: BTreeMap<String, String>,
    pub tokenizer: TokenizerKind,
    /// In composition order: placement, then priority, then id.
    pub contributors: Vec<BundledContributor>,
    pub permissions: Permissions,
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub says: Vec<FactSection>,
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

    /// The effect of a run's tool, as the permissions record it.
    pub fn run_effect(&self, tool: &str) -> Option<Effect> {
        self.permissions
            .tools_run
            .iter()
            .find(|run| run.tool == tool)
            .map(|run| run.effect)
    }
}

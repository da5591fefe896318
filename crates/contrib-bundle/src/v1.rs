//! Bundles of format 1, written by the language's first version, read and
//! upgraded in memory.
//!
//! A published version is frozen: its digest names its bytes forever, so a
//! format-1 bundle cannot be rebuilt as format 2 under the same version.
//! It is read as it was written (the shape below is format 1's, frozen),
//! its digest is verified over those bytes, and it is upgraded to the
//! current model, keeping `format: 1` and its digest so that what it is
//! called does not change. What format 1 did not say gets the meaning its
//! runtime gave it: every contributor applies always, and is delivered
//! where the table of kinds puts its kind and placement.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{
    AuthorWaivers, BundledCall, BundledCondition, BundledContributor, Permissions, Segment,
    SkillOperations,
};
use contrib_core::tokenizer::TokenizerKind;
use contrib_core::vocabulary::{FactSection, Kind, Owner, Placement, Priority, Reach, Source};

/// A format-1 bundle, exactly as format 1 wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Bundle {
    pub format: u32,
    pub plugin: String,
    pub version: semver::Version,
    pub owner: Owner,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    pub requires: BTreeMap<String, String>,
    pub tokenizer: TokenizerKind,
    pub contributors: Vec<Contributor>,
    pub permissions: Permissions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

/// A format-1 contributor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Contributor {
    pub id: String,
    pub kind: Kind,
    pub owner: Owner,
    pub placement: Placement,
    pub priority: Priority,
    pub reach: Reach,
    pub budget: u64,
    pub measured_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<Vec<Segment>>,
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

impl Bundle {
    /// `sha256:<hex>` of the canonical bytes of the bundle as format 1
    /// wrote it, without its digest.
    pub(super) fn digest(&self) -> Result<String, super::NoCanonicalForm> {
        let unsigned = Bundle {
            digest: None,
            ..self.clone()
        };
        let bytes = super::canonical::canonical_value(
            &unsigned,
            &format!("{}@{}", self.plugin, self.version),
        )?;
        Ok(super::canonical::digest_of_bytes(&bytes))
    }

    /// The bundle in the current model, with its format and digest kept.
    pub(super) fn upgrade(self) -> super::Bundle {
        super::Bundle {
            format: self.format,
            plugin: self.plugin,
            version: self.version,
            requested_owner: self.owner,
            summary: self.summary,
            requires: self.requires,
            tokenizer: self.tokenizer,
            contributors: self
                .contributors
                .into_iter()
                .map(Contributor::upgrade)
                .collect(),
            permissions: self.permissions,
            author_waivers: AuthorWaivers::default(),
            digest: self.digest,
        }
    }
}

impl Contributor {
    fn upgrade(self) -> BundledContributor {
        // Format 1's runtime placed a kind with one placement there,
        // whatever was written, and eager loads before the first turn.
        let spec = self.kind.spec();
        let placement = spec.fixed_placement().unwrap_or(self.placement);
        BundledContributor {
            delivery: spec.delivery(placement, true),
            id: self.id,
            kind: self.kind,
            owner: self.owner,
            placement,
            priority: self.priority,
            reach: self.reach,
            activation: None,
            budget: self.budget,
            measured_tokens: self.measured_tokens,
            template: self.template,
            framing: self.framing,
            tools: self.tools,
            operations: self.operations,
            call: self.call,
            condition: self.condition,
            source: self.source,
            origin: self.origin,
            heading: None,
            says: self.says,
            choice: None,
        }
    }
}

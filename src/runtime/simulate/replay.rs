//! The simulator's requests as a provider double replays them: each
//! request's blocks (the hash of the request through the block, and its
//! tokens), its breakpoints, its clock, and what the simulated cache did
//! with it, so a test can send the same requests through the providers'
//! SDKs to a stand-in that applies the cache rules on its own and compare
//! the usage it reports, request by request (`tests/sdk/replay.py`).
//!
//! The token counts travel with the blocks: the double counts what each
//! block says it holds, so the two agree on tokens by construction and
//! differ only where they apply a cache rule differently.

use std::collections::BTreeMap;

use serde::Serialize;

use super::play::Sent;
use super::prompt_cache::Served;
use super::warm::HOST;
use super::LayoutName;
use crate::runtime::{Caching, Profile};

/// One request, in the order the simulated cache saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replayable {
    pub layout: &'static str,
    /// Unix seconds on the simulated clock.
    pub at: i64,
    pub model: String,
    /// A host's pre-warm request, not a conversation's.
    pub prewarm: bool,
    /// The profile's caching and the model's minimum cacheable prefix.
    pub caching: Caching,
    pub minimum: u64,
    /// Automatic caching: the lifetime prefixes are kept for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retention: Option<String>,
    /// `(hash through the block as 16 hex digits, tokens)`.
    pub blocks: Vec<(String, u64)>,
    /// `(block index, lifetime)`: a breakpoint after the block.
    pub marks: Vec<(usize, String)>,
    /// What the simulated cache did.
    pub expected: Expected,
}

/// The simulator's accounting of one request, in the providers' terms.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Expected {
    pub total: u64,
    pub read: u64,
    /// Tokens written, by lifetime.
    pub written: BTreeMap<String, u64>,
    pub uncached: u64,
}

impl Replayable {
    pub(super) fn of(
        layout: LayoutName,
        one: &Sent,
        served: &Served,
        profile: &Profile,
        minimum: u64,
    ) -> Replayable {
        let lifetime = |index: usize| {
            profile
                .lifetimes
                .get(index)
                .map_or_else(String::new, |lifetime| lifetime.name.clone())
        };
        let mut written = BTreeMap::new();
        for &(from, to, index) in &served.written {
            *written.entry(lifetime(index)).or_insert(0) += to - from;
        }
        Replayable {
            layout: layout.name(),
            at: one.request.at,
            model: one.model.clone(),
            prewarm: one.key.writer == HOST,
            caching: profile.caching,
            minimum,
            retention: (profile.caching == Caching::Automatic)
                .then(|| lifetime(one.request.retention)),
            blocks: one
                .request
                .blocks
                .iter()
                .map(|block| (format!("{:016x}", block.prefix), block.tokens))
                .collect(),
            marks: one
                .request
                .marks
                .iter()
                .map(|mark| (mark.after, lifetime(mark.lifetime)))
                .collect(),
            expected: Expected {
                total: served.total,
                read: served.read_tokens(),
                written,
                uncached: served.uncached_tokens(),
            },
        }
    }
}

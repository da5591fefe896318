//! The parts of a conversation's state that change together, each named
//! by what it is; [`super::Composer`] holds one of each beside what the
//! host gave it.

use std::collections::{BTreeMap, BTreeSet};

use super::{Audience, Entry};
use crate::facts::{Memory, Merged, Section};
use crate::log::Seen;
use crate::profiles::Placed;
use crate::record::{OpeningItem, SystemPrompt, TurnRecord, Withdrawal};
use crate::time::Timestamp;
use contrib_bundle::{Bundle, BundledCall};

/// What the conversation runs on: the versions kept since it started or
/// last recomposed, and the ones installed now.
pub(crate) struct Versions<'a> {
    /// The contributors the conversation runs on, in composition order.
    pub(crate) entries: Vec<Entry<'a>>,
    /// The versions those contributors come from.
    pub(crate) kept: Vec<&'a Bundle>,
    /// The bundles installed now: what the next recomposition uses.
    pub(crate) installed: Vec<&'a Bundle>,
}

impl<'a> Versions<'a> {
    pub(super) fn new(installed: Vec<&'a Bundle>) -> Versions<'a> {
        Versions {
            entries: Vec::new(),
            kept: Vec::new(),
            installed,
        }
    }
}

/// The kept prompt composed from the versions run on: what every request
/// starts with, where its cache breakpoints go, and the fact sections told
/// after it.
#[derive(Default)]
pub(crate) struct Prompt {
    pub(crate) system: SystemPrompt,
    /// What eager loads put before the first turn.
    pub(crate) preloaded: Vec<OpeningItem>,
    pub(crate) opening: Vec<OpeningItem>,
    pub(crate) placed: Placed,
    /// The fact sections, in Crucible's order, and facts merged into others.
    pub(crate) sections: Vec<Section>,
    pub(crate) merged: Vec<Merged>,
}

/// How the turns have gone: what changes from turn to turn.
pub(crate) struct State<'a> {
    /// How far the conversation has come.
    pub(crate) progress: Progress,
    /// What the model has been told since the last compaction.
    pub(crate) told: Told,
    /// Who the current turn reaches.
    pub(crate) audience: Audience,
    /// What waits for a later turn.
    pub(crate) held: Held<'a>,
    /// Runs, refusals and version changes not yet reported in a record.
    pub(crate) pending: TurnRecord,
}

impl State<'_> {
    pub(super) fn new<'a>(seen: Seen, started_at: Timestamp) -> State<'a> {
        State {
            progress: Progress::new(started_at),
            told: Told::new(seen),
            audience: Audience {
                person_present: true,
                replying: true,
            },
            held: Held::default(),
            pending: TurnRecord::default(),
        }
    }
}

/// How far the conversation has come: what the log numbers and the clock
/// the next turn is measured from.
pub(crate) struct Progress {
    pub(crate) compositions: u32,
    pub(crate) turns: u32,
    /// Requests made in the current turn.
    pub(crate) requests: u32,
    pub(crate) last_at: Timestamp,
}

impl Progress {
    pub(super) fn new(started_at: Timestamp) -> Progress {
        Progress {
            compositions: 0,
            turns: 0,
            requests: 0,
            last_at: started_at,
        }
    }
}

/// What the model has been told since the conversation last compacted,
/// and the session as it last saw it: what the session log keeps of a
/// turn, so a resumed conversation tells nothing twice.
pub(crate) struct Told {
    /// Conditional texts told in this conversation since it last compacted.
    pub(crate) applied: BTreeSet<String>,
    /// Conditional texts to tell again after a compaction.
    pub(crate) restate: BTreeSet<String>,
    /// What the model holds of each fact section, by heading.
    pub(crate) memory: BTreeMap<String, Memory>,
    /// Tokens each contributor's stored notes hold in the history since the
    /// last compaction, and the turn the first was told.
    pub(crate) history: BTreeMap<String, (u64, u32)>,
    /// The session as the last turn began: what system messages' conditions
    /// compare with.
    pub(crate) seen: Seen,
}

impl Told {
    pub(super) fn new(seen: Seen) -> Told {
        Told {
            applied: BTreeSet::new(),
            restate: BTreeSet::new(),
            memory: BTreeMap::new(),
            history: BTreeMap::new(),
            seen,
        }
    }
}

/// What waits for a later turn.
#[derive(Default)]
pub(crate) struct Held<'a> {
    /// A mode change made while a turn ran, for the next turn.
    pub(crate) mode: Option<String>,
    /// Messages sent during a turn that wait for turns of their own.
    pub(crate) waiting: u32,
    /// Eager runs waiting for a person's approval (see `awaiting`).
    pub(crate) awaiting: Vec<(Entry<'a>, &'a BundledCall)>,
    /// Plugin versions withdrawn since the last turn (see `withdrawal`).
    pub(crate) withdrawals: Vec<Withdrawal>,
}

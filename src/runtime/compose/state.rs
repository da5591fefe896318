//! The parts of a conversation's state that change together, each named
//! by what it is; [`super::Conversation`] holds one of each beside what the
//! host gave it.

use std::collections::{BTreeMap, BTreeSet};

use super::{Audience, Entry};
use crate::bundle::{Bundle, BundledCall};
use crate::runtime::facts::{Memory, Merged, Section};
use crate::runtime::log::Seen;
use crate::runtime::profiles::Placed;
use crate::runtime::record::{OpeningItem, SystemPrompt, TurnRecord, Withdrawal};
use crate::runtime::time::Timestamp;

/// What the conversation runs on: the versions kept since it started or
/// last recomposed, and the ones installed now.
pub(in crate::runtime) struct Versions<'a> {
    /// The contributors the conversation runs on, in composition order.
    pub(in crate::runtime) entries: Vec<Entry<'a>>,
    /// The versions those contributors come from.
    pub(in crate::runtime) kept: Vec<&'a Bundle>,
    /// The bundles installed now: what the next recomposition uses.
    pub(in crate::runtime) installed: Vec<&'a Bundle>,
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
pub(in crate::runtime) struct Prompt {
    pub(in crate::runtime) system: SystemPrompt,
    /// What eager loads put before the first turn.
    pub(in crate::runtime) preloaded: Vec<OpeningItem>,
    pub(in crate::runtime) opening: Vec<OpeningItem>,
    pub(in crate::runtime) placed: Placed,
    /// The fact sections, in Crucible's order, and facts merged into others.
    pub(in crate::runtime) sections: Vec<Section>,
    pub(in crate::runtime) merged: Vec<Merged>,
}

/// How the turns have gone: what changes from turn to turn.
pub(in crate::runtime) struct State<'a> {
    /// How far the conversation has come.
    pub(in crate::runtime) progress: Progress,
    /// What the model has been told since the last compaction.
    pub(in crate::runtime) told: Told,
    /// Who the current turn reaches.
    pub(in crate::runtime) audience: Audience,
    /// What waits for a later turn.
    pub(in crate::runtime) held: Held<'a>,
    /// Runs, refusals and version changes not yet reported in a record.
    pub(in crate::runtime) pending: TurnRecord,
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
pub(in crate::runtime) struct Progress {
    pub(in crate::runtime) compositions: u32,
    pub(in crate::runtime) turns: u32,
    /// Requests made in the current turn.
    pub(in crate::runtime) requests: u32,
    pub(in crate::runtime) last_at: Timestamp,
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
pub(in crate::runtime) struct Told {
    /// Conditional texts told in this conversation since it last compacted.
    pub(in crate::runtime) applied: BTreeSet<String>,
    /// Conditional texts to tell again after a compaction.
    pub(in crate::runtime) restate: BTreeSet<String>,
    /// What the model holds of each fact section, by heading.
    pub(in crate::runtime) memory: BTreeMap<String, Memory>,
    /// Tokens each contributor's stored notes hold in the history since the
    /// last compaction, and the turn the first was told.
    pub(in crate::runtime) history: BTreeMap<String, (u64, u32)>,
    /// The session as the last turn began: what system messages' conditions
    /// compare with.
    pub(in crate::runtime) seen: Seen,
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
pub(in crate::runtime) struct Held<'a> {
    /// A mode change made while a turn ran, for the next turn.
    pub(in crate::runtime) mode: Option<String>,
    /// Messages sent during a turn that wait for turns of their own.
    pub(in crate::runtime) waiting: u32,
    /// Eager runs waiting for a person's approval (see `awaiting`).
    pub(in crate::runtime) awaiting: Vec<(Entry<'a>, &'a BundledCall)>,
    /// Plugin versions withdrawn since the last turn (see `withdrawal`).
    pub(in crate::runtime) withdrawals: Vec<Withdrawal>,
}

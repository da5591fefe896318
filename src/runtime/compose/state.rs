//! The parts of a conversation's state that change together, each named
//! by what it is; [`super::Conversation`] holds one of each beside the
//! kept prompt and its opening.

use std::collections::{BTreeMap, BTreeSet};

use super::Entry;
use crate::bundle::BundledCall;
use crate::runtime::facts::Memory;
use crate::runtime::log::Seen;
use crate::runtime::record::Withdrawal;
use crate::runtime::time::Timestamp;

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

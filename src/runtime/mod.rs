//! The runtime: load verified bundles and compose, for each conversation
//! and each turn, exactly what the model is told.
//!
//! A host embedding this crate:
//!
//! 1. loads bundles with [`Bundle::load`](crate::bundle::Bundle::load),
//!    which refuses an unknown format, a shape the schema does not allow, or
//!    a digest that does not match the content;
//! 2. describes the conversation in a [`Session`] and implements a [`Gate`]
//!    for contributors' tool calls (or uses [`CliGate`]);
//! 3. starts a [`Conversation`] with a cache [`Profile`], which composes the
//!    kept system prompt and the opening once;
//! 4. calls [`Conversation::turn`] before each turn, and sends the notes it
//!    returns after the cached prefix, storing those marked `persisted`.
//!
//! Every turn returns a [`TurnRecord`]: which contributors at which plugin
//! versions and digests shaped it, which system messages fired and why,
//! which runs ran or were refused, and what was refused for its budget.
//!
//! [`simulate`] measures what this buys: how much of the request stays
//! identical, and so cached, across many conversations, against a naive
//! layout that puts everything in the system prompt every turn.
//!
//! ```
//! use contrib::runtime::{CliGate, Conversation, Profiles, Session, Timestamp, TurnInput};
//!
//! let session = Session::from_toml(r#"
//!     started_at = "2026-03-02T09:00:00+00:00"
//!     [agent]
//!     name = "Helper"
//!     [model]
//!     name = "claude-sonnet-4-5"
//! "#).unwrap();
//! let profiles = Profiles::builtin();
//! let anthropic = profiles.get("anthropic").unwrap();
//! let mut conversation = Conversation::start(&[], session, CliGate, anthropic);
//! let later = Timestamp::parse("2026-03-02T09:01:00+00:00").unwrap();
//! let turn = conversation.turn(TurnInput::reply_at(later));
//! assert!(turn.record.refusals.is_empty());
//! ```

mod cache;
mod compose;
mod facts;
mod gate;
pub mod installed;
pub mod layout;
mod profiles;
mod record;
mod render;
mod session;
pub mod simulate;
pub mod time;

pub use cache::CacheTotals;
pub use compose::{Conversation, REQUEST_TOKENIZER};
pub use facts::{MAX_ITEMS, MAX_ITEM_CHARS};
pub use gate::{CliGate, Gate, GateOutcome, GateRequest};
pub use profiles::{
    Boundary, Breakpoint, Caching, Lifetime, ModelEntry, Placed, Profile, Profiles, Rates, Skipped,
};
pub use record::ActivationRecord;
pub use record::{
    Approval, Contribution, Fired, Note, OpeningItem, OpeningKind, Refusal, RunRecord,
    SystemPrompt, Turn, TurnContributor, TurnInput, TurnRecord, Withdrawal,
};
pub use render::{defang, envelope};
pub use session::{Agent, Environment, Model, Person, Session};
pub use time::Timestamp;

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
//! 3. starts a [`Conversation`] with a cache [`Profile`] (and, through
//!    [`Conversation::builder`], its [`Options`] and a session log), which
//!    composes the kept system prompt and the opening once;
//! 4. calls [`Conversation::turn`] when a turn begins, and puts the notes
//!    it returns where their [`Position`] says, storing those marked
//!    `persisted`;
//! 5. calls [`Conversation::request`] before every request the turn makes,
//!    the first and each after a round of tool results, and appends the
//!    fact sections it returns, one user-role message each.
//!
//! Every turn returns a [`TurnRecord`]: every contributor of the versions
//! the conversation runs on, included or not and why, with its tokens; the
//! agent's skills and plugin versions, kept and installed; which system
//! messages fired, which runs ran or were refused, and what was refused.
//! Every request returns a [`RequestRecord`] saying how each fact section
//! was told or why not.
//!
//! `docs/runtime.md` describes the API a host calls per conversation, per
//! turn and per request, and the choices where the designs disagree.
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

mod compose;
mod envelope;
mod facts;
mod gate;
pub mod host;
mod input;
pub mod installed;
mod invocation;
pub mod layout;
mod log;
mod naive;
mod options;
mod profiles;
mod reader;
mod record;
mod render;
mod request;
mod session;
pub mod simulate;
pub mod time;
pub mod wire;

pub use compose::{Conversation, Start, REQUEST_TOKENIZER};
pub use envelope::{defang, envelope};
pub use facts::{Told, MAX_FACT_ITEMS as MAX_ITEMS, MAX_ITEM_CHARS};
pub use gate::{CliGate, Gate, GateOutcome, GateRequest, ScriptedGate};
pub use input::InputError;
pub use invocation::{MidTurn, PLATFORM_NOTE, READ_AHEAD_BYTES};
pub use log::{create_log_file, ResumeError};
pub use options::{FactsAt, ModelChange, Options, PersonPart, PrefacesAt};
pub use profiles::{
    Boundary, Breakpoint, Caching, Lifetime, ModelEntry, Placed, Prewarm, Profile, ProfileError,
    Profiles, Rates, Skipped, UnknownProfile, DEFAULT_PROFILE,
};
pub use reader::Reader;
pub use record::{
    ActivationRecord, Approval, Contribution, ContributorRecord, Fired, KeptSkill, Note, NoteKind,
    OpeningItem, OpeningKind, PluginVersion, Position, Refusal, Request, RequestInput,
    RequestRecord, Role, RunCall, RunRecord, SectionRecord, SkillPick, SkillRecord, StoredPick,
    SystemPrompt, Turn, TurnInput, TurnRecord, VersionRecord, Withdrawal,
};
pub use session::{
    Agent, Environment, Model, Permissions, Person, Session, Skill, DEFAULT_MAX_TOKENS,
};
pub use simulate::CacheTotals;
pub use time::Timestamp;

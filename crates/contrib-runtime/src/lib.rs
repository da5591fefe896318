//! # contrib-runtime
//!
//! What an agent host embeds to run `contrib` plugins: the prompt
//! contributors a workspace approved, composed into what the model is
//! told, and written as the request body the provider takes.
//!
//! A host does four things, and this crate does the rest:
//!
//! 1. **Per workspace**, [`Workspace::open`]: loads exactly what
//!    `contrib.lock` pins, each version's digest checked and re-checked
//!    under `contrib.toml` as it is now.
//! 2. **Per conversation**, [`Workspace::conversation`] with the
//!    [`Session`] (agent, person, model, tools, skills) and the host's
//!    [`Gate`], the one door contributors' tool calls go through; then
//!    [`Starting::start`] (or [`Starting::resume`] from a session log).
//!    The kept system prompt and the opening are composed once, here.
//! 3. **Per turn**, [`Conversation::turn`] with the person's message: the
//!    workspace's files are read again, system messages' conditions
//!    checked, prefaces retrieved.
//! 4. **Per request**, [`Conversation::request`] then
//!    [`Conversation::body`] for the provider's [`Wire`]: the JSON object
//!    its SDK sends. After the reply, [`Conversation::model_said`] and
//!    [`Conversation::tool_results`].
//!
//! What the host no longer writes: splitting the system prompt where the
//! shared prefixes end and placing cache breakpoints; turning eager runs
//! into tool calls with matching results; merging consecutive user
//! content; OpenAI's `prompt_cache_key` and retention; comparing the
//! session's facts before every request and telling only what changed.
//!
//! ```
//! use contrib_runtime::{CliGate, RequestInput, Session, Timestamp, TurnInput, Wire, Workspace};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A workspace with nothing installed yet: its policy, no lock.
//! let folder = tempfile::tempdir()?;
//! std::fs::write(folder.path().join("contrib.toml"), "[workspace]\ncontext_budget = 200000\n")?;
//! let workspace = Workspace::open(folder.path())?;
//!
//! let session = Session::from_toml(r#"
//!     started_at = "2026-03-02T09:00:00Z"
//!     tools = ["search_code"]
//!     [agent]
//!     name = "Helper"
//!     [model]
//!     name = "claude-sonnet-4-5"
//! "#)?;
//! let mut conversation = workspace.conversation(session, CliGate).start()?;
//!
//! let turn = conversation.turn(
//!     TurnInput::reply_at(Timestamp::parse("2026-03-02T09:01:00Z")?),
//!     Some("Where is the login handler?"),
//! );
//! let request = conversation.request(RequestInput::at(turn.at));
//! let body = conversation.body(Wire::Anthropic);
//! assert_eq!(body.json["model"], "claude-sonnet-4-5");
//! assert_eq!(body.json["messages"][0]["role"], "user");
//! assert!(request.record.refusals.is_empty());
//! # Ok(())
//! # }
//! ```
//!
//! `docs/host.md` in the repository is the long form of this guide.

#![warn(unreachable_pub)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod compose;
mod conversation;
mod envelope;
mod error;
mod facts;
mod gate;
mod input;
pub mod installed;
mod invocation;
pub mod layout;
mod log;
mod options;
mod profiles;
mod reader;
mod record;
mod render;
mod request;
mod session;
pub mod time;
pub mod unapproved;
pub mod wire;
mod workspace;

pub use compose::{Composer, Start, REQUEST_TOKENIZER};
pub use conversation::Conversation;
pub use envelope::{defang, envelope};
pub use error::{Error, OpenError};
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
pub use time::Timestamp;
pub use wire::{
    Body, BodyRecord, Marked, Said, Tokens, ToolCall, ToolDefinition, ToolResult, Transcript, Wire,
    EAGER_RUNS_NOTE, PREWARM_MESSAGE,
};
pub use workspace::{Starting, Workspace};

// The words of the layers below that a host writes or reads: a call's
// declared effect and its arguments' values.
pub use contrib_core::config::Effect;
pub use contrib_core::vocabulary::Value;

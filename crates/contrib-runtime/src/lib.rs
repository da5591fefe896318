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

mod conversation;
mod error;
pub mod unapproved;
mod workspace;

pub use conversation::Conversation;
pub use error::Error;
pub use workspace::{Starting, Workspace};

pub use contrib::runtime::host::OpenError;
pub use contrib::runtime::wire::{
    Body, BodyRecord, Marked, Said, Tokens, ToolCall, ToolDefinition, ToolResult, Transcript, Wire,
    EAGER_RUNS_NOTE, PREWARM_MESSAGE,
};
pub use contrib::runtime::{
    create_log_file, Agent, Approval, Boundary, Breakpoint, CliGate, Environment, FactsAt, Gate,
    GateOutcome, GateRequest, Model, ModelChange, Note, NoteKind, OpeningItem, OpeningKind,
    Options, Permissions, Person, PersonPart, Position, PrefacesAt, Reader, Refusal, Request,
    RequestInput, RequestRecord, ResumeError, Role, RunCall, ScriptedGate, Session, Skill,
    SkillPick, StoredPick, SystemPrompt, Timestamp, Turn, TurnInput, TurnRecord,
    DEFAULT_MAX_TOKENS,
};

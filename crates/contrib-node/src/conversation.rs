//! One conversation, owning the workspace it borrows.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;
use std::str::FromStr;

use contrib_runtime::{
    Options, RequestInput, Said, Session, Timestamp, ToolCall, ToolDefinition, ToolResult,
    TurnInput, Wire, Workspace,
};
use napi::bindgen_prelude::{Either, Function};
use napi::{Env, Result};
use napi_derive::napi;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::callbacks::{with_env, JsGate, JsReader, ReaderFunction};
use crate::failure::{self, invalid};
use crate::log::SessionLog;
use crate::workspace::NativeWorkspace;

type Running<'w> = contrib_runtime::Conversation<'w>;

self_cell::self_cell!(
    /// A conversation and the workspace it borrows, owned together.
    pub(crate) struct Held {
        owner: Rc<Workspace>,
        #[not_covariant]
        dependent: Running,
    }
);

/// How a conversation starts: its cache profile, the host's tool
/// definitions, the layout options, and the file its session log goes to.
#[napi(object)]
pub struct Setup {
    pub profile: Option<String>,
    pub tools: Option<Value>,
    pub options: Option<Value>,
    pub log_path: Option<String>,
}

/// What a resumed conversation continues from: the session log's text and
/// what was said, as `said()` returned it.
#[napi(object)]
pub struct Resume {
    pub log: String,
    pub said: Value,
}

/// `contrib_runtime::Conversation`, for the package's `Conversation`.
#[napi]
pub struct NativeConversation {
    held: Held,
    log: Rc<RefCell<Vec<u8>>>,
}

/// Starts (or, with `resume`, resumes) a conversation of `workspace` in
/// `session` (TOML text or an object of the same shape); a refusal comes
/// back as its description.
#[napi]
pub fn start_conversation(
    env: Env,
    workspace: &NativeWorkspace,
    session: Value,
    setup: Setup,
    gate: Option<Function<Value, Value>>,
    reader: Option<ReaderFunction<'_>>,
    resume: Option<Resume>,
) -> Result<Either<NativeConversation, Value>> {
    let session = match session {
        Value::String(text) => Session::from_toml(&text).map_err(|error| error.to_string()),
        value => serde_json::from_value(value).map_err(|error| error.to_string()),
    };
    let session = match session {
        Ok(session) => session,
        Err(reason) => {
            return Ok(Either::B(failure::failure(
                "session",
                "invalid-session",
                format!("the session is not valid: {reason}"),
            )))
        }
    };
    let tools: Vec<ToolDefinition> = optional(setup.tools, "tool definitions")?;
    let options: Options = match setup.options {
        Some(value) => parsed(value, "options")?,
        None => Options::default(),
    };
    let resume = match resume {
        Some(resume) => Some((resume.log, parsed::<Vec<Said>>(resume.said, "said")?)),
        None => None,
    };
    let earlier = resume.as_ref().map_or(&[][..], |(log, _)| log.as_bytes());
    let log_path = setup.log_path.as_deref().map(Path::new);
    let log = match SessionLog::new(earlier, log_path, resume.is_some()) {
        Ok(log) => log,
        Err(error) => {
            let path = setup.log_path.unwrap_or_default();
            return Ok(Either::B(
                if error.kind() == std::io::ErrorKind::AlreadyExists {
                    failure::failure("log", "log-exists", error.to_string())
                } else {
                    failure::failure(
                        "log",
                        "unwritable-log",
                        format!("cannot write the session log to `{path}`: {error}"),
                    )
                },
            ));
        }
    };
    let kept = log.kept.clone();
    let gate = JsGate(gate.map(|function| function.create_ref()).transpose()?);
    let reader = reader
        .map(|function| function.create_ref())
        .transpose()?
        .map(JsReader);
    let owner = workspace.inner.clone();
    let started = with_env(env, || {
        Held::try_new(owner, |workspace| {
            let mut starting = workspace
                .conversation(session, gate)
                .tools(tools)
                .options(options)
                .log(log);
            if let Some(profile) = setup.profile {
                starting = starting.profile(profile);
            }
            if let Some(reader) = reader {
                starting = starting.reader(reader);
            }
            match resume {
                None => starting.start(),
                Some((text, said)) => starting.resume(text.as_bytes(), said),
            }
        })
    })?;
    Ok(match started {
        Ok(held) => Either::A(NativeConversation { held, log: kept }),
        Err(error) => Either::B(failure::from_runtime(&error)),
    })
}

#[napi]
impl NativeConversation {
    /// A turn begins at `input` (a time, or a turn's input object), with the
    /// person's message; returns the turn's notes and record.
    #[napi]
    pub fn turn(&mut self, env: Env, input: Value, prompt: Option<String>) -> Result<Value> {
        let input = match input {
            Value::String(at) => TurnInput::reply_at(time(&at)?),
            value => parsed(value, "turn input")?,
        };
        let turn = with_env(env, || {
            self.held
                .with_dependent_mut(|_, running| running.turn(input, prompt.as_deref()))
        })?;
        to_value(&turn)
    }

    /// Before each request of a turn: the fact sections that changed, and
    /// the request's record.
    #[napi]
    pub fn request(&mut self, env: Env, input: Value) -> Result<Value> {
        let input = match input {
            Value::String(at) => RequestInput::at(time(&at)?),
            value => parsed(value, "request input")?,
        };
        let request = with_env(env, || {
            self.held
                .with_dependent_mut(|_, running| running.request(input))
        })?;
        to_value(&request)
    }

    /// The next request's body on `wire`, as the provider's SDK sends it.
    #[napi]
    pub fn body(&self, wire: String) -> Result<Value> {
        let wire = Wire::from_str(&wire).map_err(|error| invalid("wire", error))?;
        Ok(self
            .held
            .with_dependent(|_, running| running.body(wire).json))
    }

    /// What the next request's body on `wire` holds: breakpoints, tokens,
    /// tools, the cache key, warnings.
    #[napi]
    pub fn body_record(&self, wire: String) -> Result<Value> {
        let wire = Wire::from_str(&wire).map_err(|error| invalid("wire", error))?;
        let record = self
            .held
            .with_dependent(|_, running| running.body(wire).record);
        to_value(&record)
    }

    /// What the model replied: its words and the tools it called.
    #[napi]
    pub fn model_said(&mut self, text: String, calls: Option<Value>) -> Result<()> {
        let calls: Vec<ToolCall> = optional(calls, "tool calls")?;
        self.held
            .with_dependent_mut(|_, running| running.model_said(text, calls));
        Ok(())
    }

    /// What the host's tools returned for the model's calls.
    #[napi]
    pub fn tool_results(&mut self, results: Value) -> Result<()> {
        let results: Vec<ToolResult> = parsed(results, "tool results")?;
        self.held
            .with_dependent_mut(|_, running| running.tool_results(results));
        Ok(())
    }

    /// The host compacted the conversation: `kept` replaces what was said.
    #[napi]
    pub fn compact(&mut self, kept: Value) -> Result<()> {
        let kept: Vec<Said> = parsed(kept, "kept")?;
        self.held
            .with_dependent_mut(|_, running| running.compact(kept));
        Ok(())
    }

    /// A person approved `contributor`'s gated call.
    #[napi]
    pub fn approve(&self, contributor: String) {
        self.held
            .with_dependent(|_, running| running.approve(&contributor));
    }

    /// A person refused `contributor`'s gated call.
    #[napi]
    pub fn deny(&self, contributor: String) {
        self.held
            .with_dependent(|_, running| running.deny(&contributor));
    }

    /// What was said, for the host to store.
    #[napi]
    pub fn said(&self) -> Result<Value> {
        self.held
            .with_dependent(|_, running| to_value(running.transcript().said()))
    }

    /// The session log: what it resumed from, and what was written since.
    #[napi]
    pub fn session_log(&self) -> String {
        String::from_utf8_lossy(&self.log.borrow()).into_owned()
    }

    /// The kept system prompt.
    #[napi]
    pub fn system_prompt(&self) -> Result<Value> {
        self.held
            .with_dependent(|_, running| to_value(running.system_prompt()))
    }

    /// The opening: conversation texts and eager runs.
    #[napi]
    pub fn opening(&self) -> Result<Value> {
        self.held
            .with_dependent(|_, running| to_value(running.opening()))
    }

    /// The cache breakpoints placed for the kept prefix.
    #[napi]
    pub fn breakpoints(&self) -> Result<Value> {
        self.held
            .with_dependent(|_, running| to_value(running.breakpoints()))
    }

    /// What the composer warns about.
    #[napi]
    pub fn warnings(&self) -> Vec<String> {
        self.held
            .with_dependent(|_, running| running.warnings().to_vec())
    }

    /// Why writing the session log failed, if it did.
    #[napi]
    pub fn log_error(&self) -> Option<String> {
        self.held
            .with_dependent(|_, running| running.log_error().map(str::to_string))
    }
}

fn time(text: &str) -> Result<Timestamp> {
    Timestamp::parse(text).map_err(|error| invalid("time", error))
}

fn parsed<T: DeserializeOwned>(value: Value, what: &str) -> Result<T> {
    serde_json::from_value(value).map_err(|error| invalid(what, error))
}

fn optional<T: DeserializeOwned + Default>(value: Option<Value>, what: &str) -> Result<T> {
    match value {
        Some(Value::Null) | None => Ok(T::default()),
        Some(value) => parsed(value, what),
    }
}

fn to_value<T: serde::Serialize + ?Sized>(value: &T) -> Result<Value> {
    serde_json::to_value(value)
        .map_err(|error| napi::Error::new(napi::Status::GenericFailure, error.to_string()))
}

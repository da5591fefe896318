//! `Conversation`: per turn, per request, and what the model and the tools
//! said between them.

use std::sync::Arc;

use contrib_runtime::{RequestInput, Said, ToolCall, ToolResult, TurnInput, Wire};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{from_py, input, to_py};
use crate::errors::InputError;
use crate::host::Log;

type Dependent<'w> = contrib_runtime::Conversation<'w>;

self_cell::self_cell!(
    /// A conversation and the workspace it borrows, owned together.
    pub struct Cell {
        owner: Arc<contrib_runtime::Workspace>,
        #[not_covariant]
        dependent: Dependent,
    }
);

/// A conversation of a workspace. Not shared between threads: the
/// runtime's conversation holds the host's gate and reader, which are
/// Python callables, and state that is not `Send`.
#[pyclass(module = "contrib_runtime", unsendable)]
pub struct Conversation {
    cell: Cell,
    log: Log,
}

impl Conversation {
    pub fn new(cell: Cell, log: Log) -> Conversation {
        Conversation { cell, log }
    }
}

fn parse_wire(name: &str) -> PyResult<Wire> {
    name.parse::<Wire>()
        .map_err(|error| InputError::new_err(error.to_string()))
}

#[pymethods]
impl Conversation {
    /// A turn begins at `at`, with the person's message (`None` for a
    /// turn nobody asked for); keyword arguments are the turn's other
    /// circumstances (`replying`, `person_present`, `compaction`,
    /// `tools`, `model`, …). Returns the turn: its notes and record.
    #[pyo3(signature = (at, prompt = None, **fields))]
    fn turn(
        &mut self,
        py: Python<'_>,
        at: &Bound<'_, PyAny>,
        prompt: Option<&str>,
        fields: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyObject> {
        let turn_input: TurnInput = input(at, fields, "the turn")?;
        let turn = self
            .cell
            .with_dependent_mut(|_, conversation| conversation.turn(turn_input, prompt));
        to_py(py, &turn)
    }

    /// Before each request of a turn: the fact sections that changed are
    /// told. Keyword arguments are changes since the turn began. Returns
    /// the request: the sections told and its record.
    #[pyo3(signature = (at, **fields))]
    fn request(
        &mut self,
        py: Python<'_>,
        at: &Bound<'_, PyAny>,
        fields: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyObject> {
        let request_input: RequestInput = input(at, fields, "the request")?;
        let request = self
            .cell
            .with_dependent_mut(|_, conversation| conversation.request(request_input));
        to_py(py, &request)
    }

    /// The body of the next request on `wire` (`anthropic`,
    /// `openai-responses`, `openai-chat`): a dict the provider's SDK sends
    /// as it is (`client.messages.create(**body)`).
    fn body(&self, py: Python<'_>, wire: &str) -> PyResult<PyObject> {
        let wire = parse_wire(wire)?;
        let body = self
            .cell
            .with_dependent(|_, conversation| conversation.body(wire));
        to_py(py, &body.json)
    }

    /// What the body on `wire` holds: the breakpoints marked, the tools
    /// advertised, the cache key, the input tokens and how they were
    /// counted, warnings.
    fn body_record(&self, py: Python<'_>, wire: &str) -> PyResult<PyObject> {
        let wire = parse_wire(wire)?;
        let body = self
            .cell
            .with_dependent(|_, conversation| conversation.body(wire));
        to_py(py, &body.record)
    }

    /// What the model replied: its words and the tools it called
    /// (`[{"id", "name", "input"}]`).
    #[pyo3(signature = (text, calls = None))]
    fn model_said(&mut self, text: String, calls: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let calls: Vec<ToolCall> = match calls {
            Some(calls) => from_py(calls, "the model's tool calls")?,
            None => Vec::new(),
        };
        self.cell
            .with_dependent_mut(|_, conversation| conversation.model_said(text, calls));
        Ok(())
    }

    /// What the host's tools returned (`[{"id", "output", "is_error"?}]`).
    fn tool_results(&mut self, results: &Bound<'_, PyAny>) -> PyResult<()> {
        let results: Vec<ToolResult> = from_py(results, "the tool results")?;
        self.cell
            .with_dependent_mut(|_, conversation| conversation.tool_results(results));
        Ok(())
    }

    /// The host compacted the conversation: `kept` (said items: a recap,
    /// the turns kept whole) replaces what was said. Take the next turn
    /// with `compaction=True`.
    fn compact(&mut self, kept: &Bound<'_, PyAny>) -> PyResult<()> {
        let kept: Vec<Said> = from_py(kept, "what is kept")?;
        self.cell
            .with_dependent_mut(|_, conversation| conversation.compact(kept));
        Ok(())
    }

    /// A person approved `contributor`'s gated call; it runs at the next
    /// turn.
    fn approve(&self, contributor: &str) {
        self.cell
            .with_dependent(|_, conversation| conversation.approve(contributor));
    }

    /// A person refused `contributor`'s gated call.
    fn deny(&self, contributor: &str) {
        self.cell
            .with_dependent(|_, conversation| conversation.deny(contributor));
    }

    /// What was said, for the host to store and resume with.
    #[getter]
    fn said(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.cell
            .with_dependent(|_, conversation| to_py(py, conversation.transcript().said()))
    }

    /// The session log, whole: a resumed conversation's begins with the
    /// log it resumed.
    #[getter]
    fn log(&self) -> String {
        String::from_utf8_lossy(&self.log.text.borrow()).into_owned()
    }

    /// The kept system prompt.
    #[getter]
    fn system_prompt(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.cell
            .with_dependent(|_, conversation| to_py(py, conversation.system_prompt()))
    }

    /// The opening: conversation texts and eager runs.
    #[getter]
    fn opening(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.cell
            .with_dependent(|_, conversation| to_py(py, conversation.opening()))
    }

    /// The cache breakpoints placed for the kept prefix.
    #[getter]
    fn breakpoints(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.cell
            .with_dependent(|_, conversation| to_py(py, conversation.breakpoints()))
    }

    /// What the composer warns about.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.cell
            .with_dependent(|_, conversation| conversation.warnings().to_vec())
    }

    /// Why writing the session log failed, if it did.
    #[getter]
    fn log_error(&self) -> Option<String> {
        self.cell
            .with_dependent(|_, conversation| conversation.log_error().map(str::to_string))
    }
}

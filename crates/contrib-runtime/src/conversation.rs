//! One conversation as a host runs it: per turn, per request, and what the
//! model and the tools said between them.

use crate::compose::Composer;
use crate::{
    Body, Breakpoint, Gate, OpeningItem, Request, RequestInput, Said, SystemPrompt, ToolCall,
    ToolDefinition, ToolResult, Transcript, Turn, TurnInput, Wire, Workspace,
};

/// A conversation: the kept system prompt and opening, composed once, and
/// everything said since.
///
/// Per turn call [`Conversation::turn`]; before every request the turn
/// makes, [`Conversation::request`] then [`Conversation::body`]; after
/// each reply, [`Conversation::model_said`] and, when it called tools,
/// [`Conversation::tool_results`]. Store [`Conversation::transcript`]'s
/// [`Transcript::said`] and the session log to resume later.
pub struct Conversation<'w> {
    workspace: Option<&'w Workspace>,
    inner: Composer<'w, Box<dyn Gate + 'w>>,
    transcript: Transcript,
    tools: Vec<ToolDefinition>,
}

impl<'w> Conversation<'w> {
    pub(crate) fn new(
        workspace: Option<&'w Workspace>,
        mut inner: Composer<'w, Box<dyn Gate + 'w>>,
        transcript: Transcript,
        tools: Vec<ToolDefinition>,
    ) -> Conversation<'w> {
        if let Some(workspace) = workspace {
            workspace.admit(&mut inner);
        }
        Conversation {
            workspace,
            inner,
            transcript,
            tools,
        }
    }

    /// A turn begins, with the person's message (`None` for a turn nobody
    /// asked for): the workspace's files are read again first, so the
    /// gate decides with the policy as it is now and a version yanked or
    /// uninstalled since is withdrawn. Returns the turn's notes and record.
    pub fn turn(&mut self, input: TurnInput, prompt: Option<&str>) -> Turn {
        if let Some(workspace) = self.workspace {
            workspace.before_turn(&mut self.inner);
        }
        let turn = self.inner.turn(input);
        self.transcript.begin(&turn, prompt);
        turn
    }

    /// Before each request of a turn, the first and each after a round of
    /// tool results: the fact sections that changed are told, and kept in
    /// the transcript. Returns them and the request's record.
    pub fn request(&mut self, input: RequestInput) -> Request {
        let request = self.inner.request(input);
        self.transcript.request(&request);
        request
    }

    /// The body of the next request on `wire`, exactly as the provider's
    /// SDK sends it, and its record.
    pub fn body(&self, wire: Wire) -> Body {
        crate::wire::body(wire, &self.inner, &self.transcript, &self.tools)
    }

    /// The body of a pre-warm request for this conversation's agent
    /// prefix on `wire`: the agent prefix byte for byte, a one-line
    /// message, and no output asked for (Anthropic's `max_tokens: 0`,
    /// OpenAI's `prompt_cache_options.prewarm` from GPT-5.6 on). Send it
    /// when a composition makes an agent prefix not sent before, and
    /// shortly before its cache entry would expire while the agent is in
    /// use; `None` where the model or wire takes no such request.
    pub fn prewarm_body(&self, wire: Wire) -> Option<Body> {
        crate::wire::prewarm_body(wire, &self.inner, &self.tools)
    }

    /// What the model replied: its words and the tools it called.
    pub fn model_said(&mut self, text: impl Into<String>, calls: Vec<ToolCall>) {
        self.transcript.model(text, calls);
    }

    /// What the host's tools returned for the model's calls.
    pub fn tool_results(&mut self, results: Vec<ToolResult>) {
        self.transcript.results(results);
    }

    /// The host compacted the conversation: `kept` (a recap, the turns
    /// kept whole) replaces what was said. Take the next turn with
    /// `compaction: true`, so the system prompt is composed again and
    /// every fact restated.
    pub fn compact(&mut self, kept: Vec<Said>) {
        self.transcript.compact(kept);
    }

    /// A person approved `contributor`'s gated call
    /// (`scope/name@version/id`); it runs at the next turn.
    pub fn approve(&self, contributor: &str) {
        if let Some(workspace) = self.workspace {
            workspace.approve(contributor);
        }
    }

    /// A person refused `contributor`'s gated call.
    pub fn deny(&self, contributor: &str) {
        if let Some(workspace) = self.workspace {
            workspace.deny(contributor);
        }
    }

    /// What was said, for the host to store.
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// The kept system prompt.
    pub fn system_prompt(&self) -> &SystemPrompt {
        self.inner.system_prompt()
    }

    /// The opening: conversation texts and eager runs, before the first
    /// prompt.
    pub fn opening(&self) -> &[OpeningItem] {
        self.inner.opening()
    }

    /// The cache breakpoints placed for the kept prefix.
    pub fn breakpoints(&self) -> &[Breakpoint] {
        self.inner.breakpoints()
    }

    /// What the composer warns about: a shared prefix too short to cache,
    /// envelopes without the instruction that explains them.
    pub fn warnings(&self) -> &[String] {
        self.inner.warnings()
    }

    /// Why writing the session log failed, if it did: the conversation
    /// goes on, but cannot be resumed from the log.
    pub fn log_error(&self) -> Option<&str> {
        self.inner.log_error()
    }
}

//! A workspace opened for hosting, and how its conversations start.

use std::io::Write;
use std::path::Path;

use contrib::runtime::{host, Gate, Options, Profile, Profiles, Reader, Session, UnknownProfile};

use crate::conversation::Conversation;
use crate::{Error, ToolDefinition};

/// A workspace's approved plugins, loaded for hosting.
///
/// Only what `contrib.lock` pins is loaded, each version's digest checked
/// and re-checked under `contrib.toml` as it is now; a version that fails
/// is left out and named in [`Workspace::refused_at_load`]. Before every
/// turn its conversations read both files again.
pub struct Workspace {
    inner: host::Workspace,
    profiles: Profiles,
}

impl Workspace {
    /// Opens the workspace in `folder` (holding `contrib.toml` and, once
    /// something is installed, `contrib.lock`), with the shipped cache
    /// profiles.
    pub fn open(folder: impl AsRef<Path>) -> Result<Workspace, Error> {
        Ok(Workspace {
            inner: host::Workspace::open(folder.as_ref())?,
            profiles: Profiles::builtin(),
        })
    }

    /// Replaces the shipped cache profiles with those in `path` (the shape
    /// of the shipped `profiles.toml`).
    pub fn with_profiles(mut self, path: impl AsRef<Path>) -> Result<Workspace, Error> {
        let path = path.as_ref();
        self.profiles = Profiles::load(path).map_err(|reason| Error::Profiles {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        })?;
        Ok(self)
    }

    /// The folder it was opened from.
    pub fn folder(&self) -> &Path {
        self.inner.folder()
    }

    /// The pinned versions loading refused, each with its reason.
    pub fn refused_at_load(&self) -> &[String] {
        self.inner.refused_at_load()
    }

    /// The plugin versions it composes, as `scope/name@version`.
    pub fn plugins(&self) -> Vec<String> {
        self.inner
            .bundles()
            .iter()
            .map(|bundle| bundle.id())
            .collect()
    }

    /// A conversation in `session`, whose contributors' tool calls go
    /// through `gate` once the workspace's policy allows them.
    pub fn conversation<G: Gate + 'static>(&self, session: Session, gate: G) -> Starting<'_, G> {
        Starting {
            workspace: self,
            session,
            gate,
            profile: None,
            options: Options::default(),
            tools: Vec::new(),
            reader: None,
            log: None,
        }
    }

    pub(crate) fn host(&self) -> &host::Workspace {
        &self.inner
    }

    /// The profile `name`, or the default one.
    fn profile(&self, name: Option<&str>) -> Result<&Profile, Error> {
        self.profiles
            .named(name)
            .map_err(|UnknownProfile { name, known }| Error::UnknownProfile { name, known })
    }
}

/// A conversation about to start or resume: its options, tools, reader
/// and session log.
pub struct Starting<'w, G: Gate> {
    workspace: &'w Workspace,
    session: Session,
    gate: G,
    profile: Option<String>,
    options: Options,
    tools: Vec<ToolDefinition>,
    reader: Option<Box<dyn Reader + 'w>>,
    log: Option<Box<dyn Write + 'w>>,
}

impl<'w, G: Gate + 'static> Starting<'w, G> {
    /// The cache profile breakpoints are placed under (`anthropic`,
    /// `openai`, `none`, or one from [`Workspace::with_profiles`]);
    /// `anthropic` when not given.
    pub fn profile(mut self, name: impl Into<String>) -> Self {
        self.profile = Some(name.into());
        self
    }

    /// Where the designs disagree, the host's choices.
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// The host's tool definitions: those the session lists are advertised
    /// on every request, deferred ones once an eager load loads them.
    pub fn tools(mut self, tools: Vec<ToolDefinition>) -> Self {
        self.tools = tools;
        self
    }

    /// Reads what eager loads load, so their real text goes into the
    /// prompt and is counted.
    pub fn reader(mut self, reader: impl Reader + 'w) -> Self {
        self.reader = Some(Box::new(reader));
        self
    }

    /// Writes the session log to `log` as the conversation goes.
    pub fn log(mut self, log: impl Write + 'w) -> Self {
        self.log = Some(Box::new(log));
        self
    }

    /// Starts it: composes the kept system prompt and the opening once.
    pub fn start(self) -> Result<Conversation<'w>, Error> {
        self.begin(None)
    }

    /// Continues the conversation a session log records, with what was
    /// said in it as the host stored it ([`crate::Transcript::said`]).
    pub fn resume(self, log: &[u8], said: Vec<crate::Said>) -> Result<Conversation<'w>, Error> {
        self.begin(Some((log, said)))
    }

    fn begin(self, resume: Option<(&[u8], Vec<crate::Said>)>) -> Result<Conversation<'w>, Error> {
        let workspace = self.workspace;
        let profile = workspace.profile(self.profile.as_deref())?;
        let mut start = workspace
            .host()
            .builder(self.session, profile, self.gate)
            .boxed()
            .options(self.options);
        if let Some(reader) = self.reader {
            start = start.reader(reader);
        }
        if let Some(log) = self.log {
            start = start.log(log);
        }
        let (inner, transcript) = match resume {
            None => (start.start(), crate::Transcript::new()),
            Some((log, said)) => (start.resume(log)?, crate::Transcript::from_said(said)),
        };
        Ok(Conversation::new(
            Some(workspace.host()),
            inner,
            transcript,
            self.tools,
        ))
    }
}

//! A workspace opened for hosting: what its lock pins, verified and
//! re-checked, what a host does around every turn with it, and how its
//! conversations start.
//!
//! This is the one route from bundles to a conversation that a platform
//! should take: [`Workspace::open`] loads only what `contrib.lock`
//! approves, each version judged on its bundle (digest, then the policy
//! as it is now), never re-parsed; its conversations call tools through
//! an [`InstalledGate`] that decides from the workspace's policy; and
//! before each turn `contrib.toml` and `contrib.lock` are read again, so
//! a tightened policy reaches a running conversation at once and a
//! version yanked or uninstalled since is withdrawn from it. A plugin the
//! workspace requires (`[trust] required`, or installed as `operator`)
//! that is refused at load stops it from opening at all: no conversation
//! composes without it. `contrib compose --workspace` and `contrib
//! simulate --workspace` run on it, as any host does.

use std::io::Write;
use std::path::{Path, PathBuf};

use contrib_bundle::workspace::Workspace as Files;
use contrib_bundle::Bundle;
use contrib_core::diagnostic::Diagnostic;

use crate::compose::{Composer, Start};
use crate::conversation::Conversation;
use crate::installed::{Installation, InstalledGate, Live};
use crate::{
    Error, Gate, OpenError, Options, Profile, Profiles, Reader, Session, ToolDefinition,
    UnknownProfile,
};

/// A workspace's approved plugins, loaded for hosting.
///
/// Only what `contrib.lock` pins is loaded, each version's digest checked
/// and re-checked under `contrib.toml` as it is now; a version that fails
/// is left out and named in [`Workspace::refused_at_load`]. Before every
/// turn its conversations read both files again.
pub struct Workspace {
    folder: PathBuf,
    installation: Installation,
    live: Live,
    kept_tokens: u64,
    refused: Vec<String>,
    profiles: Profiles,
}

impl Workspace {
    /// Opens the workspace in `folder` (holding `contrib.toml` and, once
    /// something is installed, `contrib.lock`), with the shipped cache
    /// profiles.
    ///
    /// Each pinned version is loaded (digest checked, re-checked under the
    /// policy as it is now) and kept if it passes; the others are in
    /// [`Workspace::refused_at_load`].
    pub fn open(folder: impl AsRef<Path>) -> Result<Workspace, Error> {
        Ok(Workspace::open_folder(folder.as_ref())?)
    }

    fn open_folder(folder: &Path) -> Result<Workspace, OpenError> {
        if !folder.join(contrib_core::config::FILE_NAME).is_file() {
            return Err(OpenError::NotAWorkspace {
                folder: folder.to_path_buf(),
            });
        }
        let files = Files::open(folder).map_err(|reason| OpenError::Unreadable {
            folder: folder.to_path_buf(),
            reason: reason.to_string(),
        })?;
        let errors: Vec<Diagnostic> = files
            .config_diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.is_error())
            .cloned()
            .collect();
        if !errors.is_empty() {
            return Err(OpenError::InvalidPolicy {
                path: folder.join(contrib_core::config::FILE_NAME),
                diagnostics: errors,
            });
        }
        let loaded = files.load();
        if let Some(refused) = loaded
            .refused
            .iter()
            .find(|refused| required(&files, refused))
        {
            return Err(OpenError::RequiredRefused {
                plugin: refused.plugin.clone(),
                reason: format!("[{}] {}", refused.rule.name, refused.reason),
            });
        }
        let lock = folder.join(contrib_bundle::workspace::LOCK_FILE);
        Ok(Workspace {
            folder: folder.to_path_buf(),
            installation: Installation::new(&loaded.approved, &lock.display().to_string()),
            live: Live::new(files.policy()),
            kept_tokens: files.config.system_prompt_budget(),
            refused: loaded.refused.iter().map(ToString::to_string).collect(),
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
        &self.folder
    }

    /// The pinned versions loading refused, each with its reason.
    pub fn refused_at_load(&self) -> &[String] {
        &self.refused
    }

    /// The approved versions it composes.
    pub fn bundles(&self) -> &[Bundle] {
        self.installation.bundles()
    }

    /// The plugin versions it composes, as `scope/name@version`.
    pub fn plugins(&self) -> Vec<String> {
        self.bundles().iter().map(|bundle| bundle.id()).collect()
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

    /// The composer on the approved versions, for a host (or the command
    /// line) that drives the stages itself: contributors' calls go through
    /// `gate` only after the workspace's policy allows them. Call
    /// [`Workspace::admit`] once it is started or resumed, and
    /// [`Workspace::before_turn`] before each turn.
    pub fn builder<'a, G: Gate>(
        &'a self,
        session: Session,
        profile: &'a Profile,
        gate: G,
    ) -> Start<'a, InstalledGate<G>> {
        let gate = InstalledGate::new(gate, self.live.clone());
        Composer::builder(self.bundles(), session, gate, profile)
    }

    /// Holds a composer to what the workspace allows: its kept part within
    /// the agent's context budget.
    pub fn admit<G: Gate>(&self, composer: &mut Composer<'_, G>) {
        self.installation.admit(composer, self.kept_tokens);
    }

    /// Before a turn: the workspace's files read again. The gate decides
    /// with the policy as it is now (one that cannot be read refuses every
    /// call), and a version yanked or uninstalled since is withdrawn from
    /// the conversation.
    pub fn before_turn<G: Gate>(&self, composer: &mut Composer<'_, G>) {
        match Files::open(&self.folder) {
            Ok(files) => {
                for (plugin, why) in files.withdrawn(&composer.plugins()) {
                    composer.withdraw(&plugin, why);
                }
                self.live.set_policy(Ok(files.policy()));
            }
            Err(why) => self.live.set_policy(Err(why.to_string())),
        }
    }

    /// A person approved `contributor`'s gated call (`scope/name@version/id`).
    pub fn approve(&self, contributor: &str) {
        self.live.approve(contributor);
    }

    /// A person refused `contributor`'s gated call.
    pub fn deny(&self, contributor: &str) {
        self.live.deny(contributor);
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
            Some(workspace),
            inner,
            transcript,
            self.tools,
        ))
    }
}

/// Whether the workspace requires the plugin loading refused: listed under
/// `[trust] required`, or installed as `operator` and not listed as
/// optional.
fn required(files: &Files, refused: &contrib_bundle::workspace::Refused) -> bool {
    let name = refused.plugin.split('@').next().unwrap_or_default();
    let granted = files
        .lock
        .get(name)
        .map_or(contrib_core::vocabulary::Owner::Person, |entry| {
            entry.granted_owner
        });
    files.config.trust.requires(name, granted)
}

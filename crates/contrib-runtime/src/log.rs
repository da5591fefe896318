//! The session log: what the model was told, written as it is told, so a
//! conversation can be picked up where it stopped.
//!
//! A log is UTF-8 text, one entry per line, appended to and never
//! rewritten:
//!
//! ```text
//! contrib-session-log 2
//! compose {"why":"the conversation started", … the kept system prompt, opening, versions}
//! turn {"number":1, "at":"…", … what the conversation's notes depend on}
//! told {"section":"What you have","told":"full","turn":1,"request":1}
//! > ## What you have
//! > - read_object
//! state {"section":"What you have","state":{"tools":{"list":{"read_object":null}}}}
//! ```
//!
//! Each section told is written as the words sent (`told`, then every line
//! of the message behind `> `), and only then the state behind them
//! (`state`). A process that stops in between leaves words with no state:
//!
//! - the first time a section was told (nothing recorded for it since the
//!   last compaction), resuming restates it whole, opening with a line
//!   that supersedes every earlier version;
//! - a change told later whose state was never written is compared against
//!   the state recorded before it.
//!
//! A line cut short is ignored: a `told` line that does not parse means no
//! words followed it, a `state` line that does not parse is no state. A log
//! written before states were recorded (`contrib-session-log 1`, words
//! only) restates every section in full. When writing resumes after a line
//! cut short, a line break comes first, so the fragment stays a line of its
//! own and reads the same way again.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::facts::{Memory, SectionState, Told};
use super::record::{OpeningItem, SystemPrompt};
use super::session::{Permissions, Session};
use super::time::Timestamp;

/// Opens the file a new conversation's log goes to. It must not exist: a
/// file already there is another conversation's log, and truncating it
/// would lose that conversation (the error is
/// [`io::ErrorKind::AlreadyExists`]; resume it, or choose another file).
/// Every front end (the command line, the Python and Node modules) opens
/// its logs here, so none of them overwrites one.
pub fn create_log_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|error| match error.kind() {
            io::ErrorKind::AlreadyExists => io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "`{}` already exists: it is another conversation's log; resume it, or choose another file",
                    path.display()
                ),
            ),
            _ => error,
        })
}

/// The first line of a log this runtime writes.
const HEADER: &str = "contrib-session-log 2";
/// The first line of a log from before states were recorded.
const HEADER_WORDS_ONLY: &str = "contrib-session-log 1";

/// A plugin version a composition used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KeptVersion {
    pub plugin: String,
    pub version: semver::Version,
    pub digest: String,
}

/// A composition: what the conversation keeps until it next recomposes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ComposeEntry {
    pub why: String,
    pub at: Timestamp,
    pub compositions: u32,
    pub kept: Vec<KeptVersion>,
    pub system_prompt: SystemPrompt,
    pub preloaded: Vec<OpeningItem>,
    pub opening: Vec<OpeningItem>,
}

/// The session as a turn began: what system messages compare with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Seen {
    pub model: String,
    pub tools: Vec<String>,
    pub permissions: Permissions,
    pub skills: BTreeMap<String, semver::Version>,
}

impl Seen {
    pub(super) fn of(session: &Session) -> Seen {
        Seen {
            model: session.model.name.clone(),
            tools: session.tools.clone(),
            permissions: session.permissions.clone(),
            skills: session
                .skills
                .iter()
                .map(|(slug, skill)| (slug.clone(), skill.version.clone()))
                .collect(),
        }
    }
}

/// A turn: what the conversation's later notes depend on.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TurnEntry {
    pub number: u32,
    pub at: Timestamp,
    pub compaction: bool,
    pub applied: BTreeSet<String>,
    pub restate: BTreeSet<String>,
    pub history: BTreeMap<String, (u64, u32)>,
    pub seen: Seen,
    /// Eager runs still waiting for a person's approval, by contributor:
    /// asked about again before each turn after a resume too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub awaiting: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct ToldEntry {
    section: String,
    told: Told,
    turn: u32,
    request: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct StateEntry {
    section: String,
    state: SectionState,
}

/// Why a log cannot be resumed from: matched on by a host, rendered into
/// words in one place ([`fmt::Display`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResumeError {
    /// The log is not UTF-8 text (a tail cut inside a character is not
    /// this: it is read up to the cut).
    NotUtf8 {
        /// The byte offset of the first byte that is not UTF-8.
        at: usize,
    },
    /// The log does not start with a session log's header.
    NotALog {
        /// The first characters of its first line (at most 40).
        starts: String,
    },
}

impl ResumeError {
    /// A stable code a host can log or match on across languages.
    pub fn code(&self) -> &'static str {
        match self {
            ResumeError::NotUtf8 { .. } => "log-not-utf8",
            ResumeError::NotALog { .. } => "not-a-session-log",
        }
    }
}

impl fmt::Display for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResumeError::NotUtf8 { at } => {
                write!(f, "the session log is not UTF-8 text (at byte {at})")
            }
            ResumeError::NotALog { starts } => write!(
                f,
                "this is not a session log: it starts `{starts}` rather than `{HEADER}`"
            ),
        }
    }
}

impl std::error::Error for ResumeError {}

/// What a log says about a conversation.
#[derive(Debug, Default)]
pub(crate) struct Restored {
    /// The last composition written whole.
    pub compose: Option<ComposeEntry>,
    /// The last turn written whole.
    pub turn: Option<TurnEntry>,
    /// What the model holds of each section since the last compaction.
    pub memory: BTreeMap<String, Memory>,
    /// Whether the log has its first line whole.
    pub has_header: bool,
    /// Whether the log ends inside a line.
    pub ends_mid_line: bool,
}

impl Restored {
    /// Reads a log, whatever point it was cut at.
    pub(super) fn read(log: &[u8]) -> Result<Restored, ResumeError> {
        let text = match std::str::from_utf8(log) {
            Ok(text) => text,
            // A write cut inside a character leaves a tail that is not
            // UTF-8; anything else is not a log.
            Err(error) if error.error_len().is_none() => {
                std::str::from_utf8(&log[..error.valid_up_to()]).unwrap_or_default()
            }
            Err(error) => {
                return Err(ResumeError::NotUtf8 {
                    at: error.valid_up_to(),
                })
            }
        };
        let mut restored = Restored {
            ends_mid_line: !log.is_empty() && !log.ends_with(b"\n"),
            ..Restored::default()
        };
        let mut lines = text.split('\n').peekable();
        // A first write cut short leaves a fragment of the header, which
        // resuming follows with a whole one.
        while let Some(line) = lines.peek() {
            if *line == HEADER || *line == HEADER_WORDS_ONLY {
                break;
            }
            if HEADER.starts_with(line) || HEADER_WORDS_ONLY.starts_with(line) {
                lines.next();
                continue;
            }
            return Err(ResumeError::NotALog {
                starts: line.chars().take(40).collect(),
            });
        }
        let Some(header) = lines.next() else {
            return Ok(restored);
        };
        restored.has_header = true;
        let states_recorded = header == HEADER;
        let mut telling: Option<String> = None;
        for line in lines {
            if line.starts_with('>') {
                continue;
            }
            let Some((kind, json)) = line.split_once(' ') else {
                continue;
            };
            match kind {
                "compose" => {
                    if let Ok(entry) = serde_json::from_str::<ComposeEntry>(json) {
                        restored.compose = Some(entry);
                    }
                }
                "turn" => {
                    if let Ok(entry) = serde_json::from_str::<TurnEntry>(json) {
                        if entry.compaction {
                            restored.memory.clear();
                        }
                        restored.turn = Some(entry);
                    }
                }
                "told" => {
                    telling = None;
                    if let Ok(entry) = serde_json::from_str::<ToldEntry>(json) {
                        // Words with no state yet: a first telling is
                        // torn until its state follows; a change keeps the
                        // state recorded before it.
                        if !matches!(restored.memory.get(&entry.section), Some(Memory::Known(_))) {
                            restored.memory.insert(entry.section.clone(), Memory::Torn);
                        }
                        telling = Some(entry.section);
                    }
                }
                "state" if states_recorded => {
                    if let Ok(entry) = serde_json::from_str::<StateEntry>(json) {
                        if telling.as_deref() == Some(entry.section.as_str()) {
                            restored
                                .memory
                                .insert(entry.section, Memory::Known(entry.state));
                        }
                    }
                    telling = None;
                }
                _ => {}
            }
        }
        if !states_recorded {
            // Words alone say nothing of the state behind them: every
            // section is told again in full.
            restored.memory.clear();
        }
        Ok(restored)
    }
}

/// Writes a session log, entry by entry, each flushed before the next.
pub(crate) struct LogWriter<'a> {
    sink: Box<dyn Write + 'a>,
    error: Option<String>,
}

impl<'a> LogWriter<'a> {
    pub(super) fn new(sink: Box<dyn Write + 'a>) -> Self {
        LogWriter { sink, error: None }
    }

    pub(super) fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    pub(super) fn header(&mut self) {
        self.write(&format!("{HEADER}\n"));
    }

    /// Makes a log read back from `restored` ready to be continued: a line
    /// break after a line cut short, and the header if it never was whole.
    pub(super) fn continue_after(&mut self, restored: &Restored) {
        if restored.ends_mid_line {
            self.write("\n");
        }
        if !restored.has_header {
            self.header();
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn compose(
        &mut self,
        why: &str,
        at: Timestamp,
        compositions: u32,
        kept: Vec<KeptVersion>,
        system_prompt: &SystemPrompt,
        preloaded: &[OpeningItem],
        opening: &[OpeningItem],
    ) {
        let entry = ComposeEntry {
            why: why.to_string(),
            at,
            compositions,
            kept,
            system_prompt: system_prompt.clone(),
            preloaded: preloaded.to_vec(),
            opening: opening.to_vec(),
        };
        self.entry("compose", &entry);
    }

    pub(super) fn turn(&mut self, entry: &TurnEntry) {
        self.entry("turn", entry);
    }

    /// The words sent for a section: written, and flushed, before its state.
    pub(super) fn told(&mut self, section: &str, told: Told, turn: u32, request: u32, words: &str) {
        let entry = ToldEntry {
            section: section.to_string(),
            told,
            turn,
            request,
        };
        let mut text = match serde_json::to_string(&entry) {
            Ok(json) => format!("told {json}\n"),
            Err(error) => return self.fail(error.to_string()),
        };
        for line in words.split('\n') {
            text.push_str("> ");
            text.push_str(line);
            text.push('\n');
        }
        self.write(&text);
    }

    /// The state behind the words just written.
    pub(super) fn state(&mut self, section: &str, state: &SectionState) {
        let entry = StateEntry {
            section: section.to_string(),
            state: state.clone(),
        };
        self.entry("state", &entry);
    }

    fn entry(&mut self, kind: &str, entry: &impl Serialize) {
        match serde_json::to_string(entry) {
            Ok(json) => self.write(&format!("{kind} {json}\n")),
            Err(error) => self.fail(error.to_string()),
        }
    }

    fn write(&mut self, text: &str) {
        if self.error.is_some() {
            return;
        }
        let written = self
            .sink
            .write_all(text.as_bytes())
            .and_then(|()| self.sink.flush());
        if let Err(error) = written {
            self.fail(error.to_string());
        }
    }

    fn fail(&mut self, error: String) {
        if self.error.is_none() {
            self.error = Some(format!("the session log could not be written: {error}"));
        }
    }
}

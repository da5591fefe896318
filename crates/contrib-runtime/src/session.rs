//! The session context: who is talking to which agent, on what model, with
//! which tools, skills and permissions, since when.
//!
//! This is everything a conversation's contributions may be filled with
//! that is not in a bundle. A host builds it from its own state; the CLI
//! reads it from a `session.toml` (see `examples/runtime/session.toml`):
//!
//! ```toml
//! started_at = "2026-03-02T09:00:00+00:00"   # RFC 3339, when the conversation began
//! tools = ["read_object", "search_code"]     # the tools the host offers
//!
//! [agent]
//! name = "Review Assistant"
//!
//! [person]                                   # leave out for a conversation with no person
//! id = "sam-okafor"
//! name = "Sam Okafor"
//! locale = "en-GB"
//! timezone = "Europe/London"                 # an IANA zone: dates follow its rules
//!
//! [model]
//! name = "claude-sonnet-4-5"
//! effort = "high"
//!
//! [environment]
//! os = "linux"
//! arch = "x86_64"
//! workspace_root = "/home/sam/acme"
//!
//! [skills]                                   # skill → installed version, or a table
//! code-review = "2.3.0"
//!
//! [skills.release-notes]                     # a skill with its instructions and files
//! version = "1.2.0"
//! name = "Release notes"                     # the name it is shown under
//! digest = "sha256:…"                        # the host's digest of this version
//! body = "Write release notes from the changelog in references/style.md."
//! files = { "references/style.md" = "…" }
//!
//! [permissions]
//! mode = "default"                           # the permission mode, in the host's words
//! allowed = ["Bash(git status)"]             # scopes allowed for the rest of the session
//!
//! [origins]                                  # what `{name}` in a preface's origin stands for
//! workspace = "acme"
//! session = "42"
//! ```
//!
//! The person's `timezone` is an IANA zone name (`Europe/London`), read
//! from the system's time zone database through `jiff`: each instant is
//! read in the offset the zone has then, so a conversation that crosses a
//! daylight-saving change moves with it. A session file written before
//! zones gives a fixed `utc_offset` (`"+01:00"`) as well; it is still
//! read, and then wins, so old files compose exactly as they did.
//!
//! ```
//! use contrib_runtime::{time::Timestamp, Session};
//! let session = Session::from_toml(r#"
//!     started_at = "2026-03-28T09:00:00Z"
//!     [agent]
//!     name = "Review Assistant"
//!     [person]
//!     id = "sam"
//!     name = "Sam"
//!     locale = "en-GB"
//!     timezone = "Europe/London"
//!     [model]
//!     name = "claude-sonnet-4-5"
//! "#).unwrap();
//! // London moves to summer time on 29 March 2026.
//! assert_eq!(session.offset_minutes(), 0);
//! let next_day = Timestamp::parse("2026-03-29T09:00:00Z").unwrap();
//! assert_eq!(session.local(next_day).to_string(), "2026-03-29T10:00:00+01:00");
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::input::InputError;
use super::time::Timestamp;

/// The reply length a request asks for when the session names none.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// What a conversation is composed with, besides bundles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// When the conversation began: what its eager runs see as "now".
    pub started_at: Timestamp,
    /// The tools the host offers, by name.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The agent the conversation is with.
    pub agent: Agent,
    /// The person, when there is one: a conversation between agents has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<Person>,
    /// The model that answers; a turn may change it.
    pub model: Model,
    /// The most the model may write in one reply (`max_tokens` on the
    /// Anthropic wire, `max_output_tokens` and `max_completion_tokens` on
    /// OpenAI's); [`DEFAULT_MAX_TOKENS`] when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Where the agent runs; each part unknown when left out.
    #[serde(default)]
    pub environment: Environment,
    /// The agent's skills, by slug.
    #[serde(default)]
    pub skills: BTreeMap<String, Skill>,
    /// The permission mode and what was allowed for the rest of the
    /// session: what `fact … says [permissions]` reports. The host's own
    /// rules are not here; its gate enforces them.
    #[serde(default)]
    pub permissions: Permissions,
    /// What `{name}` stands for in a preface's origin, as the host
    /// identifies things (`workspace`, `session`, `job`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub origins: BTreeMap<String, String>,
}

/// The permission mode and the scopes allowed for the rest of a session.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permissions {
    /// The mode, in the host's words (`default`, `plan`, `accept-edits`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Scopes a person allowed for the rest of this session ("Yes, and
    /// don't ask again this session").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<String>,
}

/// One of the agent's skills: its version and, when the host has them, its
/// instructions and files.
///
/// In a session file a skill is its version (`code-review = "2.3.0"`) or
/// a table with the fields below.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skill {
    /// The version the host has installed: what facts list and turn
    /// records compare with the one the kept system prompt holds.
    pub version: semver::Version,
    /// The name people see it under, and its `## {name}` heading in the
    /// system prompt; the slug when not given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The host's digest of this version, for turn records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Its instructions: composed into the system prompt under `## {name}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Its reference files, path → text.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
}

impl Skill {
    /// A skill known only by its version.
    pub fn at(version: semver::Version) -> Skill {
        Skill {
            version,
            name: None,
            digest: None,
            body: None,
            files: BTreeMap::new(),
        }
    }

    /// The name it is shown under: its own, or else `slug`.
    pub fn display_name<'s>(&'s self, slug: &'s str) -> &'s str {
        self.name.as_deref().unwrap_or(slug)
    }
}

impl From<semver::Version> for Skill {
    fn from(version: semver::Version) -> Skill {
        Skill::at(version)
    }
}

/// A skill's table in a session file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SkillTable {
    version: semver::Version,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    digest: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, String>,
}

impl<'de> Deserialize<'de> for Skill {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Skill, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Skill;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a version such as \"2.3.0\", or a table with `version`")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Skill, E> {
                semver::Version::parse(text)
                    .map(Skill::at)
                    .map_err(|error| E::custom(format!("`{text}` is not a version: {error}")))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Skill, A::Error> {
                let table =
                    SkillTable::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(Skill {
                    version: table.version,
                    name: table.name,
                    digest: table.digest,
                    body: table.body,
                    files: table.files,
                })
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// The agent a conversation is with, as its texts name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Agent {
    /// `{agent.name}`.
    pub name: String,
}

/// The person an agent talks to: what `{person.…}` variables are filled
/// with, and whose offset dates are read in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Person {
    /// The host's stable id for the person, for records.
    pub id: String,
    /// `{person.name}`.
    pub name: String,
    /// `{person.locale}`: a BCP 47 tag.
    pub locale: String,
    /// `{person.timezone}`: an IANA zone name, shown as written; dates
    /// follow its rules unless `utc_offset` is given.
    pub timezone: String,
    /// A fixed offset in minutes east of UTC, written `"+01:00"`: what
    /// session files said before zones were read. When given it wins.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "offset")]
    pub utc_offset: Option<i32>,
}

impl Person {
    /// The person's offset from UTC at `instant`, in minutes: the fixed
    /// `utc_offset` when given, else the zone's at that instant.
    pub fn offset_at(&self, instant: Timestamp) -> i32 {
        if let Some(fixed) = self.utc_offset {
            return fixed;
        }
        jiff::tz::TimeZone::get(&self.timezone)
            .ok()
            .zip(jiff::Timestamp::from_second(instant.unix_seconds).ok())
            .map_or(0, |(zone, at)| zone.to_offset(at).seconds() / 60)
    }

    /// Refuses a zone the time zone database does not know, unless a fixed
    /// offset stands in for it.
    fn validate(&self) -> Result<(), InputError> {
        if self.utc_offset.is_some() || jiff::tz::TimeZone::get(&self.timezone).is_ok() {
            return Ok(());
        }
        Err(InputError::UnknownTimezone(self.timezone.clone()))
    }
}

/// The model that answers, as the provider names it: what requests ask for
/// and what `fact … says model, effort` states.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// `{model.name}`.
    pub name: String,
    /// How hard the model is asked to think, in the host's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
}

/// Where the agent runs: what `fact … says os, arch, workspace-root` states.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// The operating system, in the host's words (`linux`); stated as
    /// `unknown` when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os: Option<String>,
    /// The processor architecture (`x86_64`); stated as `unknown` when
    /// `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// The folder the agent works in, as a path on the host
    /// (`/home/sam/acme`); stated as `unknown` when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_root: Option<String>,
}

impl Session {
    /// Reads a session from `session.toml` text.
    pub fn from_toml(text: &str) -> Result<Session, InputError> {
        let session: Session = toml::from_str(text)?;
        if let Some(person) = &session.person {
            person.validate()?;
        }
        Ok(session)
    }

    /// Reads the session file at `path`.
    pub fn load(path: &Path) -> Result<Session, InputError> {
        let text = contrib_core::fs::read_text(path, contrib_core::limits::files::RUNTIME_INPUT)?;
        Session::from_toml(&text).map_err(|error| error.in_file(path))
    }

    /// The offset local dates are computed in at `instant`: the person's,
    /// or else the one the conversation's start was written in.
    pub fn offset_at(&self, instant: Timestamp) -> i32 {
        self.person
            .as_ref()
            .map_or(self.started_at.offset_minutes, |person| {
                person.offset_at(instant)
            })
    }

    /// The offset in force when the conversation began.
    pub fn offset_minutes(&self) -> i32 {
        self.offset_at(self.started_at)
    }

    /// `instant` as the person reads it.
    pub fn local(&self, instant: Timestamp) -> Timestamp {
        instant.at_offset(self.offset_at(instant))
    }

    /// When the conversation began, in the person's offset.
    pub fn started_at_local(&self) -> Timestamp {
        self.local(self.started_at)
    }
}

/// `"+01:00"` ⇄ minutes east of UTC, when given.
pub(crate) mod offset {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::time::{format_offset, parse_offset};

    pub(crate) fn serialize<S: Serializer>(
        minutes: &Option<i32>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match minutes {
            Some(minutes) => serializer.serialize_str(&format_offset(*minutes)),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<i32>, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_offset(&text)
            .map(Some)
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_session_loads() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/runtime/session.toml");
        let session = Session::load(&path).unwrap();
        assert!(session.person.is_some());
        assert!(!session.tools.is_empty());
    }

    #[test]
    fn bad_offsets_and_times_are_errors_not_panics() {
        let error = Session::from_toml(
            "started_at = \"yesterday\"\n[agent]\nname = \"a\"\n[model]\nname = \"m\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("RFC 3339"), "{error}");
        let error = Session::from_toml(
            "started_at = \"2026-03-02T09:00:00Z\"\n[agent]\nname = \"a\"\n[model]\nname = \"m\"\n\
             [person]\nid = \"p\"\nname = \"P\"\nlocale = \"en\"\ntimezone = \"UTC\"\nutc_offset = \"+99:00\"\n",
        )
        .unwrap_err().to_string();
        assert!(error.contains("UTC offset"), "{error}");
    }

    const PERSON: &str = "started_at = \"2026-10-24T12:00:00Z\"\n[agent]\nname = \"a\"\n[model]\nname = \"m\"\n[person]\nid = \"p\"\nname = \"P\"\nlocale = \"en\"\n";

    #[test]
    fn a_zone_follows_its_daylight_saving_rules() {
        let session =
            Session::from_toml(&format!("{PERSON}timezone = \"America/New_York\"\n")).unwrap();
        // Summer time until 1 November 2026, then standard time.
        assert_eq!(session.offset_minutes(), -240);
        let after = Timestamp::parse("2026-11-02T12:00:00Z").unwrap();
        assert_eq!(session.offset_at(after), -300);
    }

    #[test]
    fn an_old_file_with_a_fixed_offset_reads_as_it_did() {
        let session = Session::from_toml(&format!(
            "{PERSON}timezone = \"America/New_York\"\nutc_offset = \"-04:00\"\n"
        ))
        .unwrap();
        let after = Timestamp::parse("2026-11-02T12:00:00Z").unwrap();
        assert_eq!(session.offset_at(after), -240);
        let labelled = Session::from_toml(&format!(
            "{PERSON}timezone = \"Sam's desk\"\nutc_offset = \"+01:00\"\n"
        ))
        .unwrap();
        assert_eq!(labelled.offset_minutes(), 60);
    }

    #[test]
    fn an_unknown_zone_without_an_offset_is_an_error() {
        let error = Session::from_toml(&format!("{PERSON}timezone = \"Mars/Olympus_Mons\"\n"))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("`Mars/Olympus_Mons` is not a time zone"),
            "{error}"
        );
    }
}

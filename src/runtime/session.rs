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
//! timezone = "Europe/London"                 # a label the model reads
//! utc_offset = "+00:00"                      # what dates are computed in
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
//! [skills]                                   # skill → installed version
//! code-review = "2.3.0"
//!
//! [permissions]                              # permission → level, as the host names them
//! write_files = "ask"
//! ```
//!
//! The person's time zone is only a label: dates are computed in the fixed
//! `utc_offset` (IANA rules are out of scope, see [`super::time`]).
//!
//! ```
//! let session = contrib::runtime::Session::from_toml(r#"
//!     started_at = "2026-03-02T09:00:00+01:00"
//!     [agent]
//!     name = "Review Assistant"
//!     [model]
//!     name = "claude-sonnet-4-5"
//! "#).unwrap();
//! assert!(session.person.is_none());
//! assert_eq!(session.offset_minutes(), 60);
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::time::Timestamp;

/// What a conversation is composed with, besides bundles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// When the conversation began: what its eager runs see as "now".
    pub started_at: Timestamp,
    /// The tools the host offers, by name.
    #[serde(default)]
    pub tools: Vec<String>,
    pub agent: Agent,
    /// The person, when there is one: a conversation between agents has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<Person>,
    pub model: Model,
    #[serde(default)]
    pub environment: Environment,
    /// Installed skills and their versions.
    #[serde(default)]
    pub skills: BTreeMap<String, semver::Version>,
    /// Permission → level (`"allow"`, `"ask"`, …), in the host's words.
    #[serde(default)]
    pub permissions: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Agent {
    /// `{agent.name}`.
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Person {
    /// The host's stable id for the person, for records.
    pub id: String,
    /// `{person.name}`.
    pub name: String,
    /// `{person.locale}`: a BCP 47 tag.
    pub locale: String,
    /// `{person.timezone}`: the zone's name, shown as written.
    pub timezone: String,
    /// The offset in force, in minutes east of UTC; written `"+01:00"`.
    #[serde(with = "offset")]
    pub utc_offset: i32,
}

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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_root: Option<String>,
}

impl Session {
    /// Reads a session from `session.toml` text.
    pub fn from_toml(text: &str) -> Result<Session, String> {
        toml::from_str(text).map_err(|error| error.message().to_string())
    }

    /// Reads the session file at `path`.
    pub fn load(path: &Path) -> Result<Session, String> {
        let text = crate::fs::read_text(path, crate::limits::files::RUNTIME_INPUT)?;
        Session::from_toml(&text).map_err(|error| format!("`{}`: {error}", path.display()))
    }

    /// The offset local dates are computed in: the person's, or else the
    /// one the conversation's start was written in.
    pub fn offset_minutes(&self) -> i32 {
        self.person
            .as_ref()
            .map_or(self.started_at.offset_minutes, |person| person.utc_offset)
    }

    /// When the conversation began, in the person's offset.
    pub fn started_at_local(&self) -> Timestamp {
        self.started_at.at_offset(self.offset_minutes())
    }
}

/// `"+01:00"` ⇄ minutes east of UTC.
pub(crate) mod offset {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::runtime::time::{format_offset, parse_offset};

    pub fn serialize<S: Serializer>(minutes: &i32, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format_offset(*minutes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i32, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_offset(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_session_loads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/runtime/session.toml");
        let session = Session::load(&path).unwrap();
        assert!(session.person.is_some());
        assert!(!session.tools.is_empty());
    }

    #[test]
    fn bad_offsets_and_times_are_errors_not_panics() {
        let error = Session::from_toml(
            "started_at = \"yesterday\"\n[agent]\nname = \"a\"\n[model]\nname = \"m\"\n",
        )
        .unwrap_err();
        assert!(error.contains("RFC 3339"), "{error}");
        let error = Session::from_toml(
            "started_at = \"2026-03-02T09:00:00Z\"\n[agent]\nname = \"a\"\n[model]\nname = \"m\"\n\
             [person]\nid = \"p\"\nname = \"P\"\nlocale = \"en\"\ntimezone = \"UTC\"\nutc_offset = \"+99:00\"\n",
        )
        .unwrap_err();
        assert!(error.contains("UTC offset"), "{error}");
    }
}

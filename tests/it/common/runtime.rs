//! The runtime's fixtures, shared by `runtime`, `runtime_turns` and
//! `runtime_requests`: the workspace the manifests are built against, a
//! person, and the session a host opens for them. A test that needs a
//! different session changes these with struct update syntax, so what it
//! changes is what it is about.

use std::collections::BTreeMap;

use contrib::bundle::Bundle;
use contrib::runtime::{Agent, Environment, Model, Permissions, Person, Session, Timestamp};

/// The workspace the runtime tests' manifests are checked against: the
/// platform's tools, plus a memory reader, a write tool opted in to eager
/// runs, and the code-review skill.
pub const CONFIG: &str = r#"
[tools.read_memory]
effect = "read"
params = { store = "string" }
schema_tokens = 70

[tools.deploy]
effect = "write"
eager = true
params = { target = "string" }
schema_tokens = 50

[skills.code-review]
version = "2.3.0"
manifest_tokens = 300
operations = { diff = { tokens = 400 } }
"#;

/// The bundle a manifest builds to under [`CONFIG`], failing on any error
/// diagnostic.
pub fn build(manifest: &str) -> Bundle {
    super::bundle_in(CONFIG, manifest)
}

/// The instant `text` (RFC 3339) names.
pub fn at(text: &str) -> Timestamp {
    Timestamp::parse(text).expect("an RFC 3339 time")
}

/// A person in London, `offset_minutes` from UTC.
pub fn person(id: &str, name: &str, offset_minutes: i32) -> Person {
    Person {
        id: id.into(),
        name: name.into(),
        locale: "en-GB".into(),
        timezone: "Europe/London".into(),
        utc_offset: Some(offset_minutes),
    }
}

/// Sam, at UTC.
pub fn sam() -> Person {
    person("sam", "Sam Okafor", 0)
}

/// The Review Assistant's session for `person`, started at nine: the
/// current time and the memory reader as tools, a model at medium effort.
pub fn session(person: Option<Person>) -> Session {
    Session {
        started_at: at("2026-03-02T09:00:00Z"),
        tools: vec!["get_current_time".into(), "read_memory".into()],
        agent: Agent {
            name: "Review Assistant".into(),
        },
        person,
        max_tokens: None,
        model: Model {
            name: "claude-sonnet-4-5".into(),
            effort: Some("medium".into()),
        },
        environment: Environment::default(),
        skills: BTreeMap::new(),
        permissions: Permissions::default(),
        origins: BTreeMap::new(),
    }
}

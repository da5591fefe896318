//! Deterministic catalogs of plugins, shaped like real contributors.
//!
//! Body lengths follow the distribution measured over the corpus
//! (`shared/corpus/README.md`): skills median 5,879 characters (p90 13,452),
//! rules median 2,550 (p90 7,104), always-loaded descriptions median 239
//! (p90 488); each is drawn from a log-normal with that median and p90.
//! Every contributor kind appears; about 5% of plugins carry a mistake the
//! checker reports. Each plugin is written three ways: as a `.contrib`
//! manifest, and as JSON and TOML documents holding the same content, so
//! that peers (`check-jsonschema`, `jsonschema-cli`, `taplo lint`) can
//! validate the equivalent.

#![allow(dead_code)]

use std::fmt::Write as _;

/// splitmix64: small, fast, and the same sequence on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A standard normal variate (Box–Muller).
    fn normal(&mut self) -> f64 {
        let u = self.unit().max(1e-12);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    /// A log-normal length with the given median and 90th percentile.
    pub fn length(&mut self, median: f64, p90: f64, max: f64) -> usize {
        let sigma = (p90 / median).ln() / 1.281_551_565_5;
        (median * (sigma * self.normal()).exp()).clamp(20.0, max) as usize
    }
}

const WORDS: &[&str] = &[
    "the",
    "review",
    "change",
    "should",
    "always",
    "check",
    "that",
    "tests",
    "cover",
    "new",
    "code",
    "before",
    "merging",
    "prefer",
    "small",
    "functions",
    "with",
    "clear",
    "names",
    "when",
    "a",
    "design",
    "is",
    "merely",
    "fine",
    "say",
    "so",
    "avoid",
    "global",
    "state",
    "and",
    "hidden",
    "side",
    "effects",
    "document",
    "why",
    "not",
    "what",
    "use",
    "the",
    "project's",
    "error",
    "types",
    "never",
    "panic",
    "on",
    "input",
    "from",
    "users",
    "keep",
    "diffs",
    "focused",
    "one",
    "concern",
    "per",
    "commit",
    "explain",
    "trade-offs",
    "in",
    "plain",
    "words",
    "ask",
    "for",
    "context",
    "if",
    "requirements",
    "are",
    "unclear",
    "run",
    "linters",
    "format",
    "files",
    "read",
    "existing",
    "patterns",
    "first",
    "match",
    "style",
    "of",
    "surrounding",
    "module",
    "list",
    "risks",
    "follow-ups",
    "separately",
    "person",
    "agent",
    "tool",
    "budget",
    "placement",
];

/// Roughly `chars` characters of sentence-like text.
pub fn prose(rng: &mut Rng, chars: usize) -> String {
    prose_of(rng, chars)
}

/// Prose whose length is drawn from a log-normal with this median and p90.
fn prose_like(rng: &mut Rng, median: f64, p90: f64, max: f64) -> String {
    let chars = rng.length(median, p90, max);
    prose_of(rng, chars)
}

fn prose_of(rng: &mut Rng, chars: usize) -> String {
    let mut text = String::with_capacity(chars + 16);
    let mut sentence = 0;
    while text.len() < chars {
        let word = WORDS[rng.below(WORDS.len())];
        if sentence == 0 {
            let mut first = word.chars();
            if let Some(c) = first.next() {
                text.extend(c.to_uppercase());
                text.push_str(first.as_str());
            }
        } else {
            text.push(' ');
            text.push_str(word);
        }
        sentence += 1;
        if sentence > 8 && rng.below(6) == 0 {
            text.push_str(if rng.below(5) == 0 { ".\n" } else { ". " });
            sentence = 0;
        }
    }
    text.push('.');
    text
}

/// One contributor of a generated plugin.
pub struct Part {
    pub kind: &'static str,
    pub id: String,
    pub placement: &'static str,
    pub budget: usize,
    /// `(field, value)` pairs written after placement and budget.
    pub fields: Vec<(&'static str, String)>,
    pub body: Option<String>,
}

pub struct Plugin {
    pub name: String,
    pub version: String,
    pub owner: &'static str,
    pub summary: String,
    pub parts: Vec<Part>,
    /// Whether a mistake was planted.
    pub broken: bool,
}

/// An honest budget for a body: a token is about four characters of this
/// prose; allow half as much again.
fn budget_for(body: &str) -> usize {
    body.len() * 3 / 8 + 4
}

pub fn plugin(rng: &mut Rng, index: usize) -> Plugin {
    let description = prose_like(rng, 239.0, 488.0, 1_068.0);
    let mut parts = vec![Part {
        kind: "text",
        id: "listing".into(),
        placement: "agent",
        budget: budget_for(&description),
        fields: vec![],
        body: Some(description),
    }];
    let rule = prose_like(rng, 2_550.0, 7_104.0, 39_444.0);
    parts.push(Part {
        kind: "text",
        id: "rules".into(),
        placement: "agent",
        budget: budget_for(&rule),
        fields: vec![],
        body: Some(rule),
    });
    if rng.below(3) == 0 {
        let skill = prose_like(rng, 5_879.0, 13_452.0, 72_142.0);
        parts.push(Part {
            kind: "text",
            id: "skill-body".into(),
            placement: "agent",
            budget: budget_for(&skill),
            fields: vec![],
            body: Some(skill),
        });
    }
    parts.push(Part {
        kind: "eager-load",
        id: "tools".into(),
        placement: "agent",
        budget: 400,
        fields: vec![("tools", "[read_object, search_code]".into())],
        body: None,
    });
    parts.push(Part {
        kind: "eager-run",
        id: "started-at".into(),
        placement: "conversation",
        budget: 50,
        fields: vec![("call", "get_current_time {}".into())],
        body: None,
    });
    parts.push(Part {
        kind: "system-message",
        id: "idle".into(),
        placement: "message",
        budget: 40,
        fields: vec![("when", format!("idle > {}h", 1 + rng.below(8)))],
        body: Some("It has been {idle} since your last turn.".into()),
    });
    parts.push(Part {
        kind: "preface",
        id: "memory".into(),
        placement: "message",
        budget: 800,
        fields: vec![
            ("source", "user-authored".into()),
            ("origin", "\"memory:workspace\"".into()),
            ("call", "read_memory { store: \"workspace\" }".into()),
        ],
        body: None,
    });
    parts.push(Part {
        kind: "fact",
        id: "environment".into(),
        placement: "message",
        budget: 60,
        fields: vec![("says", "[date, os, arch]".into())],
        body: None,
    });
    let broken = rng.below(20) == 0;
    if broken {
        match rng.below(3) {
            0 => parts[0].fields.push(("placment", "agent".into())),
            1 => parts[1].budget = 10,
            _ => {
                if let Some(body) = &mut parts[0].body {
                    body.push_str(PERSON_NAME);
                }
            }
        }
    }
    Plugin {
        name: format!("bench/plugin-{index:05}"),
        version: format!("1.{}.0", rng.below(20)),
        owner: "agent-author",
        summary: "A generated plugin shaped like real contributors".into(),
        parts,
        broken,
    }
}

/// A planted per-person variable in agent-placement text.
const PERSON_NAME: &str = " Call me PERSON-NAME.";

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('{', "{{")
        .replace('}', "}}")
        .replace("PERSON-NAME", "{person.name}")
}

/// Kinds whose placement the language fixes: a manifest does not write it
/// (`placement-not-for-kind`); the JSON and TOML forms keep it.
const PLACED_BY_KIND: [&str; 4] = ["eager-run", "system-message", "preface", "fact"];

/// The plugin as a `.contrib` manifest.
pub fn manifest(plugin: &Plugin) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Generated for benchmarks.\nplugin {} {} {{",
        plugin.name, plugin.version
    );
    let _ = writeln!(
        out,
        "    owner {}\n    summary \"{}\"",
        plugin.owner, plugin.summary
    );
    for part in &plugin.parts {
        let _ = writeln!(out, "\n    {} {} {{", part.kind, part.id);
        if !PLACED_BY_KIND.contains(&part.kind) {
            let _ = writeln!(out, "        placement {}", part.placement);
        }
        let _ = writeln!(out, "        budget {} tokens", part.budget);
        for (field, value) in &part.fields {
            let _ = writeln!(out, "        {field} {value}");
        }
        if let Some(body) = &part.body {
            let text = if part.kind == "system-message" {
                body.clone()
            } else {
                escape(body)
            };
            if text.contains('\n') {
                let _ = writeln!(out, "        body \"\"\"");
                for line in text.lines() {
                    let _ = writeln!(out, "            {line}");
                }
                let _ = writeln!(out, "            \"\"\"");
            } else {
                let _ = writeln!(out, "        body \"{text}\"");
            }
        }
        let _ = writeln!(out, "    }}");
    }
    out.push_str("}\n");
    out
}

fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The same content as a JSON document.
pub fn json(plugin: &Plugin) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "{{\"plugin\":{},\"version\":{},\"owner\":{},\"summary\":{},\"contributors\":[",
        json_string(&plugin.name),
        json_string(&plugin.version),
        json_string(plugin.owner),
        json_string(&plugin.summary)
    );
    for (index, part) in plugin.parts.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"kind\":{},\"id\":{},\"placement\":{},\"budget\":{}",
            json_string(part.kind),
            json_string(&part.id),
            json_string(part.placement),
            part.budget
        );
        for (field, value) in &part.fields {
            let _ = write!(out, ",{}:{}", json_string(field), json_string(value));
        }
        if let Some(body) = &part.body {
            let _ = write!(out, ",\"body\":{}", json_string(body));
        }
        out.push('}');
    }
    out.push_str("]}\n");
    out
}

/// The same content as a TOML document.
pub fn toml(plugin: &Plugin) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "plugin = {}\nversion = {}\nowner = {}\nsummary = {}",
        json_string(&plugin.name),
        json_string(&plugin.version),
        json_string(plugin.owner),
        json_string(&plugin.summary)
    );
    for part in &plugin.parts {
        let _ = writeln!(
            out,
            "\n[[contributors]]\nkind = {}\nid = {}\nplacement = {}\nbudget = {}",
            json_string(part.kind),
            json_string(&part.id),
            json_string(part.placement),
            part.budget
        );
        for (field, value) in &part.fields {
            let _ = writeln!(out, "{} = {}", json_string(field), json_string(value));
        }
        if let Some(body) = &part.body {
            let _ = writeln!(out, "body = {}", json_string(body));
        }
    }
    out
}

/// The JSON Schema the JSON documents follow: what a schema validator can
/// check (shapes and vocabularies), none of the semantics.
pub const JSON_SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["plugin", "version", "owner", "contributors"],
  "properties": {
    "plugin": { "type": "string", "pattern": "^[a-z][a-z0-9-]*/[a-z][a-z0-9-]*$" },
    "version": { "type": "string", "pattern": "^[0-9]+\\.[0-9]+\\.[0-9]+" },
    "owner": { "enum": ["operator", "workspace", "agent-author", "person"] },
    "summary": { "type": "string" },
    "contributors": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["kind", "id", "placement", "budget"],
        "properties": {
          "kind": { "enum": ["text", "eager-load", "eager-run", "system-message", "preface", "fact"] },
          "id": { "type": "string", "pattern": "^[a-z][a-z0-9-]*$" },
          "placement": { "enum": ["platform", "agent", "person", "conversation", "message"] },
          "budget": { "type": "integer", "minimum": 1 },
          "body": { "type": "string" },
          "tools": { "type": "string" },
          "call": { "type": "string" },
          "when": { "type": "string" },
          "source": { "enum": ["user-authored", "system-config", "external"] },
          "origin": { "type": "string" },
          "says": { "type": "string" }
        }
      }
    }
  }
}
"#;

/// The workspace the generated manifests are checked against.
pub const CONFIG: &str = r#"[egress]
allow = ["docs.acme.dev"]

[tools.search_code]
effect = "read"
params = { query = "string?" }
schema_tokens = 140

[tools.read_memory]
effect = "read"
params = { store = "string" }
schema_tokens = 70
"#;

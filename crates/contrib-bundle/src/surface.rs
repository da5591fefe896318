//! The surface of a plugin version: every field of the typed model a
//! bundle freezes, what a change to it asks for, and the words each
//! model-facing part is shown in.
//!
//! A bundle is the typed model (`ir`) of a manifest, frozen: each field
//! of a [`BundledContributor`](super::BundledContributor) is a part of
//! what the model reads (a body, an `applies on request "…"`
//! description, a fact's heading and sections, a preface's `source` and
//! `origin`, an eager run's arguments, a system message's condition, the
//! skill and operations an eager load names) or of what runs. The tables
//! below class every field, so that
//! the approval delta ([`super::diff`]) cannot ignore one: a field added
//! to the model without a class fails the tests here, and the delta
//! destructures each contributor without `..`, so it fails to compile
//! until the field is compared. The screen a person approves
//! (`trust::screen`, drawn by `preview`, `install` and the page) shows the
//! same parts in the same words, from the functions here.

use super::{BundledActivation, BundledCall, BundledCondition};
use contrib_core::vocabulary::{Duration, Source};

/// What a change to one field asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classing {
    /// Names the contributor or the plugin: versions are matched by it.
    Identity,
    /// Any change asks for more: it changes what runs, where the text
    /// goes, or how the model is told to weigh it.
    AnyChangeAsks,
    /// Ordered: a change that widens (a wider placement or reach, a higher
    /// priority or budget, broader activation, a condition that fires
    /// more often, a more trusted provenance, a new fact section) asks for
    /// more; one that narrows is an update.
    WideningAsks,
    /// Words the model reads, changed within the budget approved: an
    /// update, shown in the delta and re-checked under the installer's
    /// policy at install and at every load.
    Content,
    /// Follows from other fields and is classed with them (a delivery from
    /// the kind and activation, a framing from the priority).
    Derived,
    /// Measured or recorded, not asked for.
    Recorded,
}

/// Every field of a bundled contributor and its class.
pub const CONTRIBUTOR_FIELDS: &[(&str, Classing)] = &[
    ("id", Classing::Identity),
    ("kind", Classing::AnyChangeAsks),
    ("owner", Classing::AnyChangeAsks),
    ("placement", Classing::WideningAsks),
    ("priority", Classing::WideningAsks),
    ("reach", Classing::WideningAsks),
    ("activation", Classing::WideningAsks),
    ("delivery", Classing::Derived),
    ("budget", Classing::WideningAsks),
    ("measured_tokens", Classing::Recorded),
    ("template", Classing::Content),
    ("framing", Classing::Derived),
    ("tools", Classing::WideningAsks),
    ("operations", Classing::WideningAsks),
    ("call", Classing::AnyChangeAsks),
    ("condition", Classing::WideningAsks),
    ("source", Classing::WideningAsks),
    ("origin", Classing::AnyChangeAsks),
    ("heading", Classing::Content),
    ("says", Classing::WideningAsks),
    ("choice", Classing::Recorded),
];

/// Every field of a bundle and its class; `contributors` are classed field
/// by field above.
pub const BUNDLE_FIELDS: &[(&str, Classing)] = &[
    ("format", Classing::Recorded),
    ("plugin", Classing::Identity),
    ("version", Classing::WideningAsks),
    ("requested_owner", Classing::AnyChangeAsks),
    ("summary", Classing::Content),
    ("requires", Classing::Content),
    ("tokenizer", Classing::Recorded),
    ("contributors", Classing::WideningAsks),
    ("permissions", Classing::WideningAsks),
    ("author_waivers", Classing::Recorded),
    ("digest", Classing::Identity),
];

/// Every field of a version's permissions and its class: what the
/// delta compares when it compares what a version may run and reach
/// (`diff::permissions`, and the tools and hosts of `diff::diff`).
pub const PERMISSION_FIELDS: &[(&str, Classing)] = &[
    ("placements", Classing::WideningAsks),
    ("budgets", Classing::WideningAsks),
    ("tools_loaded", Classing::WideningAsks),
    ("tools_run", Classing::WideningAsks),
    ("egress_hosts", Classing::WideningAsks),
    ("highest_priority", Classing::WideningAsks),
    ("reaches", Classing::WideningAsks),
];

/// When a contributor applies, as a manifest says it: `on command
/// deploy`, `on request "…"` (the words the model is shown in the
/// listing), `to files [a, b]`.
pub fn applies(activation: Option<&BundledActivation>) -> String {
    match activation {
        None => "always".to_string(),
        Some(BundledActivation::Command { name }) => format!("on command {name}"),
        Some(BundledActivation::Skill { name }) => format!("on skill {name}"),
        Some(BundledActivation::Subagent { name }) => format!("on subagent {name}"),
        Some(BundledActivation::Files { globs }) => format!("to files [{}]", globs.join(", ")),
        Some(BundledActivation::Request { description }) => {
            format!("on request {}", quoted(description))
        }
    }
}

/// When a system message is sent: `idle > 30d`, `skill-updated review`.
pub fn when(condition: &BundledCondition) -> String {
    let mut when = condition.kind.to_string();
    if let Some(seconds) = condition.idle_seconds {
        when.push_str(&format!(" > {}", Duration { seconds }));
    }
    if let Some(skill) = &condition.skill {
        when.push_str(&format!(" {skill}"));
    }
    when
}

/// A call as it runs: the tool and its arguments as JSON.
pub fn call(call: &BundledCall) -> String {
    format!(
        "{} {}",
        call.tool,
        serde_json::to_string(&call.arguments).unwrap_or_default()
    )
}

/// How far the model is told to trust retrieved text labelled `source`:
/// `system-config` the most, `external` the least.
pub fn tier(source: Source) -> u8 {
    match source {
        Source::External => 0,
        Source::UserAuthored => 1,
        Source::SystemConfig => 2,
    }
}

/// A description in double quotes, as a manifest writes it.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bundle, BundledContributor};
    use std::collections::BTreeSet;

    fn names(table: &[(&str, Classing)]) -> BTreeSet<String> {
        table.iter().map(|(name, _)| name.to_string()).collect()
    }

    /// The keys of `value`, a JSON object with every optional field set.
    fn keys(value: serde_json::Value) -> BTreeSet<String> {
        value
            .as_object()
            .expect("an object")
            .keys()
            .cloned()
            .collect()
    }

    /// A contributor with every field present: a field added to the model
    /// shows up here, and must be classed.
    fn every_field() -> BundledContributor {
        let value = serde_json::json!({
            "id": "all", "kind": "preface", "owner": "workspace", "placement": "message",
            "priority": "person", "reach": "every-turn", "delivery": "turn-note",
            "activation": {"on": "command", "name": "deploy"},
            "budget": 10, "measured_tokens": 5,
            "template": [{"text": "hi"}], "framing": "framed",
            "tools": ["read_object"], "operations": {"skill": "s", "operations": ["a"]},
            "call": {"tool": "t", "arguments": {}},
            "condition": {"kind": "idle", "idle_seconds": 60},
            "source": "external", "origin": "web", "heading": "Heading", "says": ["date"],
            "choice": {"usage": "u", "usage_digest": "sha256:0", "conversations": 1, "turns": 1, "candidates": []}
        });
        serde_json::from_value(value).expect("every field parses")
    }

    #[test]
    fn every_contributor_field_is_classed() {
        let fields = keys(serde_json::to_value(every_field()).expect("json"));
        assert_eq!(
            fields,
            names(CONTRIBUTOR_FIELDS),
            "a field of `BundledContributor` has no class in `CONTRIBUTOR_FIELDS` (or a class names no field)"
        );
    }

    #[test]
    fn every_bundle_field_is_classed() {
        let mut bundle = minimal_bundle();
        // Fill the optional fields, then check the names round-trip.
        let object = bundle.as_object_mut().expect("an object");
        object.insert("summary".into(), "s".into());
        object.insert("digest".into(), "sha256:0".into());
        object.insert(
            "author_waivers".into(),
            serde_json::json!({"lints": {"budget-unused": "allow"}}),
        );
        let parsed: Bundle = serde_json::from_value(bundle).expect("a bundle");
        let fields = keys(serde_json::to_value(parsed).expect("json"));
        assert_eq!(fields, names(BUNDLE_FIELDS));
    }

    #[test]
    fn every_permission_field_is_classed() {
        let permissions = minimal_bundle()["permissions"].clone();
        let parsed: crate::Permissions = serde_json::from_value(permissions).expect("permissions");
        let fields = keys(serde_json::to_value(parsed).expect("json"));
        assert_eq!(fields, names(PERMISSION_FIELDS));
    }

    fn minimal_bundle() -> serde_json::Value {
        serde_json::json!({
            "format": 2, "plugin": "acme/x", "version": "1.0.0",
            "requested_owner": "workspace", "requires": {}, "tokenizer": "o200k",
            "contributors": [],
            "permissions": {"placements": [], "budgets": {}, "tools_loaded": [], "tools_run": [],
                "egress_hosts": [], "highest_priority": "person", "reaches": []}
        })
    }

    #[test]
    fn parts_are_shown_as_a_manifest_writes_them() {
        assert_eq!(
            applies(Some(&BundledActivation::Request {
                description: "Ignore \"this\".".into()
            })),
            "on request \"Ignore \\\"this\\\".\""
        );
        assert_eq!(applies(None), "always");
        assert!(tier(Source::SystemConfig) > tier(Source::External));
    }
}

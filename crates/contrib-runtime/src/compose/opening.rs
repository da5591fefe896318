//! What comes before the first turn: eager loads into the shared prefix,
//! then the opening (conversation-placed texts, then eager runs), and the
//! gate every contributor's tool call goes through.

use super::{count, Composer, Entry};
use crate::gate::{Gate, GateOutcome, GateRequest};
use crate::reader::{self, Reader};
use crate::record::{Named, OpeningItem, OpeningKind, RunCall, RunRecord};
use crate::render::{render, within_budget, Unrendered, Values};
use crate::time::Timestamp;
use contrib_bundle::BundledCall;
use contrib_core::config::Effect;
use contrib_core::vocabulary::{Delivery, Kind, Reach};

impl<'a, G: Gate> Composer<'a, G> {
    /// Loads, then the opening's texts and runs, for a new conversation.
    pub(crate) fn open(&mut self, at: Timestamp) {
        self.preload();
        for entry in self.versions.entries.clone() {
            if let Some(item) = self.opening_text(entry, at) {
                self.prompt.opening.push(item);
            }
        }
        for entry in self.versions.entries.clone() {
            if entry.kind() == Kind::EagerRun {
                if let Some(item) = self.eager_run(entry, at, "the time the conversation began") {
                    self.prompt.opening.push(item);
                }
            }
        }
    }

    /// The opening after a recomposition: loads done again from the
    /// versions and skills installed now; texts rendered again; runs kept
    /// where their contributor still makes the same call (they are
    /// snapshots of the conversation's start, and stay credited to the
    /// version that ran them, whichever version makes the call now),
    /// dropped where it is gone, and run now where it is new.
    pub(crate) fn refresh_opening(&mut self, at: Timestamp) {
        self.preload();
        let old = std::mem::take(&mut self.prompt.opening);
        let person: Vec<OpeningItem> = old
            .iter()
            .filter(|item| item.kind == OpeningKind::PersonPart)
            .cloned()
            .collect();
        self.prompt.opening = person;
        for entry in self.versions.entries.clone() {
            if let Some(item) = self.opening_text(entry, at) {
                self.prompt.opening.push(item);
            }
        }
        for entry in self.versions.entries.clone() {
            if entry.kind() != Kind::EagerRun {
                continue;
            }
            let same = old.iter().find(|item| {
                item.kind == OpeningKind::Run
                    && same_contributor(&item.contributor, &entry.name())
                    && entry
                        .contributor
                        .call
                        .as_ref()
                        .is_some_and(|call| item.text.starts_with(&call_text(call)))
            });
            match same {
                Some(item) => self.prompt.opening.push(item.clone()),
                None => {
                    if let Some(item) =
                        self.eager_run(entry, at, "the time the conversation was recomposed")
                    {
                        self.prompt.opening.push(item);
                    }
                }
            }
        }
    }

    /// Eager loads into the shared prefix.
    fn preload(&mut self) {
        self.prompt.preloaded.clear();
        for entry in self.versions.entries.clone() {
            if entry.kind() == Kind::EagerLoad {
                self.eager_load(entry);
            }
        }
    }

    /// A conversation-placed text, rendered for the opening.
    fn opening_text(&mut self, entry: Entry<'a>, at: Timestamp) -> Option<OpeningItem> {
        let contributor = entry.contributor;
        let kept_text = contributor.kind == Kind::Text
            && contributor.activation.is_none()
            && contributor.delivery == Delivery::Opening;
        if !kept_text || (contributor.reach != Reach::EveryTurn && self.session.person.is_none()) {
            return None;
        }
        match render(entry.bundle, contributor, &Values::at(&self.session, at)) {
            Ok(rendered) => {
                self.state.pending.withheld(&entry, rendered.withheld);
                Some(OpeningItem {
                    contributor: entry.name(),
                    kind: OpeningKind::Text,
                    tokens: count(&rendered.text),
                    text: rendered.text,
                    label: None,
                    call: None,
                })
            }
            Err(reason) => {
                self.state
                    .pending
                    .refusals
                    .push(entry.refuse(reason.to_string()));
                None
            }
        }
    }

    fn eager_load(&mut self, entry: Entry<'a>) {
        let contributor = entry.contributor;
        let mut items = Vec::new();
        let (offered, missing): (Vec<&String>, Vec<&String>) = contributor
            .tools
            .iter()
            .partition(|tool| self.session.tools.contains(tool));
        for tool in missing {
            self.state.pending.refusals.push(entry.refuse(format!(
                "`{tool}` is not among the session's tools, so it cannot be loaded"
            )));
        }
        let mut loaded = None;
        if !offered.is_empty() {
            let input = serde_json::json!({ "tools": offered });
            let text = format!("load_tools {input}");
            if let serde_json::Value::Object(input) = input {
                loaded = Some(RunCall {
                    tool: "load_tools".to_string(),
                    input,
                    output: String::new(),
                });
            }
            items.push((OpeningKind::LoadTools, text));
        }
        let mut read_by_host = false;
        if let Some(load) = &contributor.operations {
            match self.session.skills.get(&load.skill) {
                Some(skill) => match self.reader.as_mut() {
                    Some(reader) => {
                        read_by_host = true;
                        let version = skill.version.clone();
                        let read = read_operations(reader, &load.skill, &version, &load.operations)
                            .and_then(|text| {
                                within_budget(entry.bundle, contributor, &text, "what it reads")
                                    .map(|()| text)
                            });
                        match read {
                            Ok(text) => items.push((OpeningKind::SkillRead, text)),
                            Err(reason) => self
                                .state
                                .pending
                                .refusals
                                .push(entry.refuse(reason.to_string())),
                        }
                    }
                    None => items.push((
                        OpeningKind::SkillRead,
                        format!(
                            "read skill {} {}: operations {}",
                            load.skill,
                            skill.version,
                            load.operations.join(", ")
                        ),
                    )),
                },
                None => self.state.pending.refusals.push(entry.refuse(format!(
                    "skill `{}` is not installed in this session",
                    load.skill
                ))),
            }
        }
        let counted: u64 = items.iter().map(|(_, text)| count(text)).sum();
        // What the host read is counted; without a reader, the checker's
        // estimate stands for the text nobody read.
        let unmeasured = if read_by_host {
            0
        } else {
            contributor.measured_tokens.saturating_sub(counted)
        };
        let last = items.len().saturating_sub(1);
        for (index, (kind, text)) in items.into_iter().enumerate() {
            let extra = if index == last { unmeasured } else { 0 };
            let call = if kind == OpeningKind::LoadTools {
                loaded.take()
            } else {
                None
            };
            self.prompt.preloaded.push(OpeningItem {
                contributor: entry.name(),
                kind,
                tokens: count(&text) + extra,
                text,
                label: None,
                call,
            });
        }
    }

    /// An eager run through the gate, as an opening item; `label` says
    /// what `get_current_time`'s answer is the time of.
    fn eager_run(&mut self, entry: Entry<'a>, at: Timestamp, label: &str) -> Option<OpeningItem> {
        let call = entry.contributor.call.as_ref()?;
        match self.run(entry, call, at, "the result") {
            Ok(output) => {
                let label = (call.tool == "get_current_time").then(|| label.to_string());
                let mut text = format!("{} → {output}", call_text(call));
                let mut output = output;
                if let Some(label) = &label {
                    text.push_str(&format!(" ({label})"));
                    output.push_str(&format!(" ({label})"));
                }
                self.state.pending.eager_runs.push(ran(entry, call));
                Some(OpeningItem {
                    contributor: entry.name(),
                    kind: OpeningKind::Run,
                    tokens: count(&text),
                    text,
                    label,
                    call: Some(RunCall {
                        tool: call.tool.clone(),
                        input: call_input(call),
                        output,
                    }),
                })
            }
            Err(not_run) if not_run.pending => {
                self.await_approval(entry, call, not_run.reason);
                None
            }
            Err(NotRun { reason, .. }) => {
                self.state
                    .pending
                    .eager_runs
                    .push(refused(entry, call, reason.clone()));
                self.state.pending.refusals.push(entry.refuse(reason));
                None
            }
        }
    }

    /// A contributor's call through the gate, held to its budget.
    pub(crate) fn run(
        &mut self,
        entry: Entry<'a>,
        call: &BundledCall,
        at: Timestamp,
        what: &str,
    ) -> Result<String, NotRun> {
        // A tool the permissions do not list was never approved: treat it
        // as writing and gated, so the gate refuses it.
        let (effect, gated) = entry
            .bundle
            .permissions
            .tools_run
            .iter()
            .find(|run| run.tool == call.tool)
            .map_or((Effect::Write, true), |run| (run.effect, run.gated));
        let request = GateRequest {
            contributor: entry.name(),
            tool: call.tool.clone(),
            arguments: call.arguments.clone(),
            effect,
            gated,
            at,
        };
        match self.gate.call(&request) {
            GateOutcome::Ran { output } => {
                within_budget(entry.bundle, entry.contributor, &output, what)?;
                Ok(output)
            }
            GateOutcome::Refused { reason } => Err(format!("the gate refused it: {reason}").into()),
            GateOutcome::Pending { reason } => Err(NotRun {
                reason: format!("waiting for a person's approval: {reason}"),
                pending: true,
            }),
        }
    }
}

/// Why a contributor's call gave no result: refused, or waiting for a
/// person's approval.
pub(crate) struct NotRun {
    pub reason: String,
    pub pending: bool,
}

impl From<Unrendered> for NotRun {
    fn from(refused: Unrendered) -> Self {
        NotRun::from(refused.to_string())
    }
}

impl From<String> for NotRun {
    fn from(reason: String) -> Self {
        NotRun {
            reason,
            pending: false,
        }
    }
}

/// Whether two full names (`scope/name@version/id`) are the same
/// contributor of the same plugin, whatever the versions.
fn same_contributor(a: &str, b: &str) -> bool {
    let split = |name: &str| -> Option<(String, String)> {
        let (plugin, rest) = name.split_once('@')?;
        let (_, id) = rest.split_once('/')?;
        Some((plugin.to_string(), id.to_string()))
    };
    split(a).is_some() && split(a) == split(b)
}

/// The operations' text as the host's reader gives it, each under a
/// heading naming it; refused whole when any is missing.
fn read_operations(
    reader: &mut Box<dyn Reader + '_>,
    skill: &str,
    version: &semver::Version,
    operations: &[String],
) -> Result<String, Unrendered> {
    let mut parts = Vec::new();
    for operation in operations {
        let text = reader.operation(skill, version, operation).ok_or_else(|| {
            Unrendered::NoOperationText {
                skill: skill.to_string(),
                version: version.clone(),
                operation: operation.clone(),
            }
        })?;
        parts.push(format!(
            "{}\n{}",
            reader::heading(skill, version, operation),
            text.trim_end()
        ));
    }
    Ok(parts.join("\n\n"))
}

/// A call's arguments as the JSON object the tool receives.
fn call_input(call: &BundledCall) -> serde_json::Map<String, serde_json::Value> {
    call.arguments
        .iter()
        .map(|(key, value)| {
            let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
            (key.clone(), value)
        })
        .collect()
}

/// A call as the model sees it: the tool and its arguments as JSON.
pub(crate) fn call_text(call: &BundledCall) -> String {
    format!(
        "{} {}",
        call.tool,
        serde_json::to_string(&call.arguments).unwrap_or_default()
    )
}

pub(crate) fn ran(entry: Entry<'_>, call: &BundledCall) -> RunRecord {
    RunRecord {
        contributor: entry.name(),
        tool: call.tool.clone(),
        ran: true,
        reason: None,
        provenance: None,
        origin: None,
        approval: None,
    }
}

pub(crate) fn refused(entry: Entry<'_>, call: &BundledCall, reason: String) -> RunRecord {
    RunRecord {
        contributor: entry.name(),
        tool: call.tool.clone(),
        ran: false,
        reason: Some(reason),
        provenance: None,
        origin: None,
        approval: None,
    }
}

//! A turn: what changes when it begins, the notes before its prompt, and
//! its record.
//!
//! Before each turn the conversation takes in what changed (held changes
//! first: a mode change made while the last turn ran is told now), then
//! recomposes if the host compacted, then decides its notes: system
//! messages whose condition holds and conditional texts that apply
//! (stored), message-placed texts and prefaces (rebuilt every turn), and
//! the note beside a person's pick of a skill (projected each time the
//! message is sent). Facts are compared before each request instead (see
//! `request.rs`), unless the host places them before the prompt.

use contrib_core::glob::Glob;
use std::collections::{BTreeMap, BTreeSet};

use super::opening::{ran, refused};
use super::{count, withdrawal, Audience, Composer, Entry};
use crate::envelope::{envelope, fill_origin, granted};
use crate::gate::Gate;
use crate::log::Seen;
use crate::options::{FactsAt, PrefacesAt};
use crate::record::{
    ActivationRecord, Approval, Changes, Fired, Named, Note, NoteKind, Position, Refusal, Role,
    Turn, TurnInput, TurnRecord,
};
use crate::render::{render, Unrendered, Values};
use crate::time::Timestamp;
use contrib_bundle::BundledActivation;
use contrib_core::vocabulary::{ConditionKind, Delivery, Duration, Kind, Source};

/// A contributor's note on a turn, if any, and why it is there or not; or
/// why it was refused.
type Decided = Result<(Option<Note>, String), String>;

/// What became of a contributor on a turn, for its record.
pub(super) struct Outcome {
    pub(super) included: bool,
    pub(super) why: String,
}

impl<'a, G: Gate> Composer<'a, G> {
    /// Begins a turn: the notes to put before (and with) its prompt, and
    /// its record. Call [`Composer::request`] before each request the
    /// turn then makes.
    pub fn turn(&mut self, input: TurnInput) -> Turn {
        self.state.progress.turns += 1;
        self.state.progress.requests = 0;
        self.state.held.waiting = self.state.held.waiting.saturating_sub(1);
        let at = self.session.local(input.at);
        let mut record = std::mem::take(&mut self.state.pending);
        if let Some(mode) = self.state.held.mode.take() {
            record.held.push(format!(
                "the mode changed to `{mode}` while the last turn ran, and is told now"
            ));
            self.session.permissions.mode = Some(mode);
        }
        let model_from = self.apply(&input.changes());
        let withdrawn = std::mem::take(&mut self.state.held.withdrawals);
        let edits = if input.compaction {
            Some("the conversation was compacted".to_string())
        } else {
            model_from
                .as_ref()
                .filter(|_| self.recomposes_on_model_change())
                .map(|from| {
                    format!(
                        "the model changed from `{from}` to `{}`",
                        self.session.model.name
                    )
                })
        };
        // A compaction (or a model change the host recomposes on) takes the
        // versions installed now; a withdrawal alone keeps the others.
        let recomposed = edits
            .clone()
            .or_else(|| withdrawal::why_recomposed(&withdrawn));
        if let Some(why) = &recomposed {
            self.state.pending = record;
            let bundles = match edits {
                Some(_) => self.versions.installed.clone(),
                None => self.kept_without(&withdrawn),
            };
            self.recompose_from(bundles, at, why);
            self.refresh_opening(at);
            self.fit_kept();
            self.place();
            self.log_composition(why, at);
            record = std::mem::take(&mut self.state.pending);
        }
        record.withdrawn.extend(withdrawn);
        if input.compaction {
            // Compaction removes every fact section and every stored note
            // with the turns it summarises: facts are told again in full,
            // and conditional texts that applied are told again.
            self.state.told.memory.clear();
            self.state.told.history.clear();
            self.state.told.restate = std::mem::take(&mut self.state.told.applied);
        }
        self.state.audience = Audience {
            person_present: input.person_present && self.session.person.is_some(),
            replying: input.replying,
        };

        let mut outcomes: BTreeMap<String, Outcome> = BTreeMap::new();
        let mut stored = self.retry_awaiting(at, &mut record);
        let mut fleeting = Vec::new();
        for entry in self.versions.entries.clone() {
            let name = entry.name();
            if !matches!(
                entry.contributor.delivery,
                Delivery::StoredNote | Delivery::TurnNote
            ) || entry.kind() == Kind::Fact
            {
                continue;
            }
            if !self.state.audience.reaches(entry.contributor.reach) {
                outcomes.insert(
                    name,
                    left_out(self.state.audience.why_not(entry.contributor.reach)),
                );
                continue;
            }
            let note = match entry.kind() {
                Kind::SystemMessage => self.system_message(entry, at, &mut record),
                Kind::Preface => self.preface(entry, at, &mut record),
                Kind::Text if entry.contributor.activation.is_some() => {
                    self.conditional(entry, &input, at, &mut record)
                }
                Kind::Text => self.message_text(entry, at, &mut record),
                // Loaded and run when the conversation starts; facts are
                // told by their own pass.
                Kind::EagerLoad | Kind::EagerRun | Kind::Fact => Ok((None, String::new())),
            };
            match note {
                Ok((Some(note), why)) => {
                    outcomes.insert(
                        name,
                        Outcome {
                            included: true,
                            why,
                        },
                    );
                    if note.persisted {
                        stored.push(note);
                    } else {
                        fleeting.push(note);
                    }
                }
                Ok((None, why)) => {
                    outcomes.insert(name, left_out(why));
                }
                Err(reason) => {
                    outcomes.insert(name, left_out(format!("refused: {reason}")));
                    record.refusals.push(entry.refuse(reason));
                }
            }
        }
        for note in &stored {
            self.remember(&note.contributor, &note.text);
        }
        let (first, before): (Vec<Note>, Vec<Note>) = fleeting
            .into_iter()
            .partition(|note| note.position == Position::First);
        let mut notes = first;
        notes.extend(stored);
        notes.extend(before);
        if self.options.facts == FactsAt::BeforePrompt {
            let request = self.tell(at, Position::BeforePrompt);
            record.refusals.extend(request.record.refusals);
            notes.extend(request.messages);
        }
        let pick = input.pick.as_ref().and_then(|pick| match self.pick(pick) {
            Ok(stored) => Some(stored),
            Err(reason) => {
                record.refusals.push(Refusal {
                    contributor: "platform".to_string(),
                    reason: reason.to_string(),
                });
                None
            }
        });
        if let Some(pick) = &pick {
            notes.push(self.project(pick));
        }

        record.contributors = self.contributor_records(&notes, &outcomes, &record.refusals);
        record.skills = self.skill_records(pick.as_ref());
        record.versions = self.version_records(&record.versions);
        self.state.progress.last_at = at;
        self.state.told.seen = Seen::of(&self.session);
        self.log_turn(at, input.compaction);
        Turn {
            number: self.state.progress.turns,
            at,
            recomposed,
            notes,
            pick,
            record,
        }
    }

    /// Takes `changes` into the session; the previous model's name when the
    /// model changed.
    pub(crate) fn apply(&mut self, changes: &Changes) -> Option<String> {
        let mut model_from = None;
        if let Some(model) = &changes.model {
            if model.name != self.session.model.name {
                model_from = Some(self.session.model.name.clone());
            }
            self.session.model = model.clone();
        }
        if let Some(tools) = &changes.tools {
            self.session.tools = tools.clone();
        }
        if let Some(skills) = &changes.skills {
            self.session.skills = skills.clone();
        }
        if let Some(mode) = &changes.mode {
            self.session.permissions.mode = Some(mode.clone());
        }
        if let Some(allowed) = &changes.allowed {
            self.session.permissions.allowed = allowed.clone();
        }
        if let Some(environment) = &changes.environment {
            self.session.environment = environment.clone();
        }
        model_from
    }

    /// Counts a stored note into its contributor's share of the history.
    pub(crate) fn remember(&mut self, contributor: &str, text: &str) {
        let turn = self.state.progress.turns;
        let entry = self
            .state
            .told
            .history
            .entry(contributor.to_string())
            .or_insert((0, turn));
        entry.0 += count(text);
    }

    fn system_message(
        &mut self,
        entry: Entry<'a>,
        at: Timestamp,
        record: &mut TurnRecord,
    ) -> Decided {
        let Some(condition) = &entry.contributor.condition else {
            return Ok((None, "it has no condition".to_string()));
        };
        let mut values = Values::at(&self.session, at);
        let last = self.state.progress.last_at.at_offset(at.offset_minutes);
        let seen = &self.state.told.seen;
        let why = match condition.kind {
            ConditionKind::Idle => {
                let idle = at.seconds_since(last);
                let threshold = condition.idle_seconds.unwrap_or(0);
                values.idle_seconds = Some(idle);
                (idle > threshold).then(|| {
                    format!(
                        "idle for {}, over {}",
                        crate::time::duration_in_words(idle),
                        Duration { seconds: threshold }
                    )
                })
            }
            ConditionKind::DateCrossed => (at.date() > last.date())
                .then(|| format!("the date moved from {} to {}", last.date(), at.date())),
            ConditionKind::SkillUpdated => {
                let skill = condition.skill.as_deref().unwrap_or_default();
                let now = self.session.skills.get(skill).map(|skill| &skill.version);
                let before = seen.skills.get(skill);
                match now {
                    Some(version) if Some(version) != before => {
                        values.skill_version = Some(version.to_string());
                        Some(match before {
                            Some(before) => format!("`{skill}` went from {before} to {version}"),
                            None => format!("`{skill}` was installed at {version}"),
                        })
                    }
                    _ => None,
                }
            }
            ConditionKind::ModelChanged => (seen.model != self.session.model.name).then(|| {
                format!(
                    "the model changed from `{}` to `{}`",
                    seen.model, self.session.model.name
                )
            }),
            ConditionKind::ToolsChanged => {
                let old: BTreeSet<&String> = seen.tools.iter().collect();
                let new: BTreeSet<&String> = self.session.tools.iter().collect();
                (old != new).then(|| {
                    let named = |tools: Vec<&&String>| {
                        tools
                            .iter()
                            .map(|tool| format!("`{tool}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    let added = named(new.difference(&old).collect());
                    let removed = named(old.difference(&new).collect());
                    match (added.is_empty(), removed.is_empty()) {
                        (false, true) => format!("tools added: {added}"),
                        (true, false) => format!("tools removed: {removed}"),
                        _ => format!("tools added: {added}; removed: {removed}"),
                    }
                })
            }
            ConditionKind::PermissionsChanged => (seen.permissions != self.session.permissions)
                .then(|| "the permissions changed".to_string()),
        };
        let Some(why) = why else {
            return Ok((None, "its condition did not hold".to_string()));
        };
        let rendered =
            render(entry.bundle, entry.contributor, &values).map_err(|why| why.to_string())?;
        record.withheld(&entry, rendered.withheld);
        record.system_messages.push(Fired {
            contributor: entry.name(),
            why: why.clone(),
        });
        Ok((
            Some(note(entry, rendered.text, true, Position::BeforePrompt)),
            format!("told before this turn's prompt: {why}"),
        ))
    }

    /// A text rendered with the session's values at `at`, the values
    /// withheld for being over their bound recorded.
    fn rendered(
        &self,
        entry: Entry<'a>,
        at: Timestamp,
        record: &mut TurnRecord,
    ) -> Result<String, Unrendered> {
        let rendered = render(
            entry.bundle,
            entry.contributor,
            &Values::at(&self.session, at),
        )?;
        record.withheld(&entry, rendered.withheld);
        Ok(rendered.text)
    }

    fn message_text(
        &mut self,
        entry: Entry<'a>,
        at: Timestamp,
        record: &mut TurnRecord,
    ) -> Decided {
        let text = self
            .rendered(entry, at, record)
            .map_err(|why| why.to_string())?;
        Ok((
            Some(note(entry, text, false, Position::BeforePrompt)),
            "told before this turn's prompt, rebuilt every turn".to_string(),
        ))
    }

    fn preface(&mut self, entry: Entry<'a>, at: Timestamp, record: &mut TurnRecord) -> Decided {
        let Some(call) = &entry.contributor.call else {
            return Ok((None, "it makes no call".to_string()));
        };
        let content = match self.run(entry, call, at, "the retrieved content") {
            Ok(content) => content,
            Err(not_run) => {
                let mut retrieval = refused(entry, call, not_run.reason.clone());
                retrieval.approval = not_run.pending.then_some(Approval::Pending);
                record.retrievals.push(retrieval);
                return Err(not_run.reason);
            }
        };
        let claimed = entry.contributor.source.unwrap_or(Source::External);
        let (provenance, narrowed) = granted(entry.contributor.owner, claimed);
        if let Some(why) = narrowed {
            record.refusals.push(entry.refuse(why));
        }
        let (origin, missing) = fill_origin(
            entry.contributor.origin.as_deref().unwrap_or_default(),
            &self.session,
            call,
        );
        for placeholder in missing {
            record.refusals.push(entry.refuse(format!(
                "the origin's `{placeholder}` has no value in this session, so it is shown as written"
            )));
        }
        let mut run = ran(entry, call);
        run.provenance = Some(provenance.to_string());
        run.origin = Some(origin.clone());
        record.retrievals.push(run);
        let position = match self.options.prefaces {
            PrefacesAt::AfterHistory => Position::BeforePrompt,
            PrefacesAt::First => Position::First,
        };
        let where_ = match position {
            Position::First => "as the first message, rebuilt every turn",
            _ => "after the history, rebuilt every turn",
        };
        Ok((
            Some(note(
                entry,
                envelope(provenance.as_str(), &origin, at, &content),
                false,
                position,
            )),
            format!("retrieved and told {where_}"),
        ))
    }

    /// A text that applies only when something happens: told, as a note
    /// kept in the conversation, on the first turn its activation holds, and
    /// again after a compaction; recorded either way with why.
    fn conditional(
        &mut self,
        entry: Entry<'a>,
        input: &TurnInput,
        at: Timestamp,
        record: &mut TurnRecord,
    ) -> Decided {
        let Some(activation) = &entry.contributor.activation else {
            return Ok((None, String::new()));
        };
        let name = entry.name();
        let (include, why) = if self.state.told.restate.remove(&name) {
            (
                true,
                "it applied before the compaction, so it is told again".to_string(),
            )
        } else if self.state.told.applied.contains(&name) {
            (false, "already told in this conversation".to_string())
        } else {
            match activation_holds(activation, &name, input) {
                Ok(why) => (true, why),
                Err(why) => (false, why),
            }
        };
        record.activations.push(ActivationRecord {
            contributor: name.clone(),
            included: include,
            why: why.clone(),
        });
        if !include {
            return Ok((None, why));
        }
        let text = self
            .rendered(entry, at, record)
            .map_err(|why| why.to_string())?;
        self.state.told.applied.insert(name);
        Ok((
            Some(note(entry, text, true, Position::BeforePrompt)),
            format!("told before this turn's prompt: {why}"),
        ))
    }
}

fn left_out(why: String) -> Outcome {
    Outcome {
        included: false,
        why,
    }
}

pub(crate) fn note(entry: Entry<'_>, text: String, persisted: bool, position: Position) -> Note {
    Note {
        contributor: entry.name(),
        kind: NoteKind::Contributor(entry.kind()),
        role: Role::User,
        position,
        section: None,
        // What a tool returned or a fact states may not begin a line as
        // the platform does either.
        text: crate::envelope::unmarked(&text).into_owned(),
        persisted,
    }
}

/// Whether a conditional text's activation holds on this turn: why it
/// does, or why not.
fn activation_holds(
    activation: &BundledActivation,
    name: &str,
    input: &TurnInput,
) -> Result<String, String> {
    let invoked = |what: &str, given: &[Option<&str>], wanted: &str| {
        if given.contains(&Some(wanted)) {
            Ok(format!("the {what} `{wanted}` was invoked"))
        } else {
            Err(format!("the {what} `{wanted}` was not invoked"))
        }
    };
    match activation {
        BundledActivation::Command { name } => {
            invoked("command", &[input.command.as_deref()], name)
        }
        BundledActivation::Skill { name } => invoked(
            "skill",
            &[
                input.invoked_skill.as_deref(),
                input.pick.as_ref().map(|pick| pick.skill.as_str()),
            ],
            name,
        ),
        BundledActivation::Subagent { name } => {
            invoked("subagent", &[input.subagent.as_deref()], name)
        }
        BundledActivation::Files { globs } => {
            // A bundle's globs were checked when it was built; one that is
            // not a glob (a bundle from elsewhere) matches nothing.
            let globs: Vec<Glob> = globs
                .iter()
                .filter_map(|glob| Glob::new(glob).ok())
                .collect();
            let in_play = |file: &&String| globs.iter().any(|glob| glob.is_match(file));
            match input.files.iter().find(in_play) {
                Some(file) => Ok(format!("`{file}` is in play")),
                None => Err("no file in play matches its globs".to_string()),
            }
        }
        BundledActivation::Request { .. } => {
            let asked = input.requested.iter().any(|requested| {
                requested == name || name.rsplit('/').next() == Some(requested.as_str())
            });
            if asked {
                Ok("the model asked for it".to_string())
            } else {
                Err("the model did not ask for it".to_string())
            }
        }
    }
}

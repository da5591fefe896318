//! A request: the facts compared before it, and only what changed sent.
//!
//! Crucible compares what it last told the model with the session before
//! every request, including each one inside a turn: nothing changed,
//! nothing is sent; a section changed, only that section, saying what
//! changed; a section the model was never told, in full. A session-long
//! allow given partway through a turn reaches the next request; a mode
//! change made while a turn runs is held for the next turn.

use std::collections::BTreeMap;

use super::compose::{count, Composer};
use super::facts::{self, Memory, Told};
use super::gate::Gate;
use super::record::{
    Named, Note, NoteKind, Position, Refusal, Request, RequestInput, RequestRecord, Role,
    SectionRecord,
};
use super::time::Timestamp;
use contrib_core::vocabulary::Kind;

/// A section to tell on this request.
struct Telling {
    section: usize,
    told: Told,
    text: String,
    state: facts::SectionState,
}

impl<'a, G: Gate> Composer<'a, G> {
    /// Before each request to the model, the first of a turn and each after
    /// a round of tool results: takes in what changed and returns the fact
    /// sections to append, one user-role message each.
    ///
    /// The tools are the ones advertised for this request; `allowed` takes
    /// effect now; a `mode` given while a turn runs is held and told when
    /// the next turn starts.
    pub fn request(&mut self, input: RequestInput) -> Request {
        self.state.progress.requests += 1;
        let at = self.session.local(input.at);
        let mut changes = input.changes();
        let mut held = Vec::new();
        if self.state.progress.turns > 0 {
            if let Some(mode) = changes.mode.take() {
                // Changed back before the turn ended, nothing is held.
                self.state.held.mode = None;
                if self.session.permissions.mode.as_ref() != Some(&mode) {
                    held.push(format!(
                        "the mode changed to `{mode}` while this turn runs; it is told when the next turn starts"
                    ));
                    self.state.held.mode = Some(mode);
                }
            }
        }
        self.apply(&changes);
        let mut request = self.tell(at, Position::End);
        request.record.held = held;
        request
    }

    /// Compares every section with what the model holds and tells what
    /// differs, at `position`.
    pub(super) fn tell(&mut self, at: Timestamp, position: Position) -> Request {
        let mut record = RequestRecord::default();
        let mut tellings = Vec::new();
        for (index, section) in self.prompt.sections.iter().enumerate() {
            let entry = self.versions.entries[section.teller];
            let told = |told: Option<Told>, why: String, tokens: u64| SectionRecord {
                section: section.heading.clone(),
                contributor: entry.name(),
                told,
                why,
                tokens,
            };
            if !self.state.audience.reaches(entry.contributor.reach) {
                record.sections.push(told(
                    None,
                    self.state.audience.why_not(entry.contributor.reach),
                    0,
                ));
                continue;
            }
            let now = facts::state(&section.says, &self.session, at);
            match facts::message(section, self.state.told.memory.get(&section.heading), &now) {
                None => record.sections.push(told(
                    None,
                    "unchanged since the model was last told it".to_string(),
                    0,
                )),
                Some((how, text)) => tellings.push(Telling {
                    section: index,
                    told: how,
                    text,
                    state: now,
                }),
            }
        }
        let refused = self.over_budget(&tellings, &mut record.refusals);
        let mut messages = Vec::new();
        for telling in tellings {
            let section = &self.prompt.sections[telling.section];
            let entry = self.versions.entries[section.teller];
            let tokens = count(&telling.text);
            if let Some(reason) = refused.get(&section.teller) {
                record.sections.push(SectionRecord {
                    section: section.heading.clone(),
                    contributor: entry.name(),
                    told: None,
                    why: format!("refused: {reason}"),
                    tokens: 0,
                });
                continue;
            }
            let heading = section.heading.clone();
            if let Some(log) = &mut self.log {
                log.told(
                    &heading,
                    telling.told,
                    self.state.progress.turns,
                    self.state.progress.requests,
                    &telling.text,
                );
                log.state(&heading, &telling.state);
            }
            self.state
                .told
                .memory
                .insert(heading.clone(), Memory::Known(telling.state));
            self.remember(&entry.name(), &telling.text);
            record.sections.push(SectionRecord {
                section: heading.clone(),
                contributor: entry.name(),
                told: Some(telling.told),
                why: match telling.told {
                    Told::Full => "the model had not been told it".to_string(),
                    Told::Superseding => {
                        "words were sent for it with no state recorded behind them".to_string()
                    }
                    Told::Changed => "it changed since the model was last told it".to_string(),
                },
                tokens,
            });
            messages.push(Note {
                contributor: entry.name(),
                kind: NoteKind::Contributor(Kind::Fact),
                role: Role::User,
                position,
                section: Some(heading),
                text: telling.text,
                persisted: true,
            });
        }
        record.sections.sort_by_key(|section| {
            self.prompt
                .sections
                .iter()
                .position(|s| s.heading == section.section)
        });
        Request {
            turn: self.state.progress.turns,
            number: self.state.progress.requests,
            at,
            messages,
            record,
        }
    }

    /// The facts whose sections on this request are over their budget
    /// (counted with their bundle's tokenizer), each refused whole, and
    /// why.
    fn over_budget(
        &self,
        tellings: &[Telling],
        refusals: &mut Vec<Refusal>,
    ) -> BTreeMap<usize, String> {
        let mut spent: BTreeMap<usize, usize> = BTreeMap::new();
        for telling in tellings {
            let teller = self.prompt.sections[telling.section].teller;
            let entry = self.versions.entries[teller];
            *spent.entry(teller).or_default() += entry.bundle.tokenizer.count(&telling.text);
        }
        let mut refused = BTreeMap::new();
        for (teller, tokens) in spent {
            let entry = self.versions.entries[teller];
            if tokens as u64 <= entry.contributor.budget {
                continue;
            }
            let reason = format!(
                "its sections are {tokens} tokens on this request, over its budget of {}; they were refused, not cut",
                entry.contributor.budget
            );
            refusals.push(entry.refuse(reason.clone()));
            refused.insert(teller, reason);
        }
        refused
    }
}

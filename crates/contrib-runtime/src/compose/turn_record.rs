//! What a turn's record says: where each contributor is in the request
//! or why it is not, each skill's version and where its instructions are,
//! and the entry the session log keeps for the turn.

use std::collections::BTreeMap;

use super::turn::Outcome;
use super::{count, Composer, Entry};
use crate::gate::Gate;
use crate::record::{
    ContributorRecord, Named, Note, OpeningKind, Refusal, SkillRecord, StoredPick,
};
use crate::time::Timestamp;
use contrib_core::vocabulary::{Delivery, Kind};

impl<'a, G: Gate> Composer<'a, G> {
    /// Every contributor of the versions the conversation runs on, with
    /// where it is in this turn's request or why it is not, and its tokens.
    pub(super) fn contributor_records(
        &self,
        notes: &[Note],
        outcomes: &BTreeMap<String, Outcome>,
        refusals: &[Refusal],
    ) -> Vec<ContributorRecord> {
        self.versions
            .entries
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                let name = entry.name();
                let (included, why, tokens) =
                    self.whereabouts(index, entry, &name, notes, outcomes, refusals);
                ContributorRecord {
                    plugin: entry.bundle.id(),
                    digest: entry.bundle.digest.clone().unwrap_or_default(),
                    id: entry.contributor.id.clone(),
                    kind: entry.kind(),
                    delivery: entry.contributor.delivery,
                    contributor: name,
                    included,
                    why,
                    tokens,
                }
            })
            .collect()
    }

    /// Where a contributor is in this turn's request (and its tokens
    /// there), or why it is not.
    fn whereabouts(
        &self,
        index: usize,
        entry: &Entry<'a>,
        name: &str,
        notes: &[Note],
        outcomes: &BTreeMap<String, Outcome>,
        refusals: &[Refusal],
    ) -> (bool, String, u64) {
        let mut tokens = 0;
        let mut places = Vec::new();
        if let Some(contribution) = self
            .prompt
            .system
            .contributions
            .iter()
            .find(|c| c.contributor == name)
        {
            tokens += count(&contribution.text);
            places.push(format!(
                "in the kept system prompt's {} part",
                contribution.placement
            ));
        }
        let mut add = |items: &mut dyn Iterator<Item = u64>, place: &str| {
            let sum: u64 = items.sum();
            if sum > 0 {
                tokens += sum;
                places.push(place.to_string());
            }
        };
        add(
            &mut self
                .prompt
                .preloaded
                .iter()
                .filter(|item| item.contributor == name)
                .map(|item| item.tokens),
            "loaded before the first turn, in the shared prefix",
        );
        add(
            &mut self
                .prompt
                .opening
                .iter()
                .filter(|item| item.contributor == name && item.kind != OpeningKind::PersonPart)
                .map(|item| item.tokens),
            "in the conversation's opening",
        );
        let mine = || notes.iter().filter(|note| note.contributor == name);
        let stored_now: u64 = mine()
            .filter(|note| note.persisted)
            .map(|note| count(&note.text))
            .sum();
        if let Some((stored, since)) = self.state.told.history.get(name) {
            let earlier = stored.saturating_sub(stored_now);
            if earlier > 0 {
                tokens += earlier;
                places.push(format!("its notes since turn {since} are in the history"));
            }
        }
        tokens += mine().map(|note| count(&note.text)).sum::<u64>();
        if let Some(outcome) = outcomes.get(name).filter(|outcome| outcome.included) {
            places.push(outcome.why.clone());
        }
        if entry.kind() == Kind::Fact {
            let tells = self
                .prompt
                .sections
                .iter()
                .any(|section| section.teller == index);
            match self
                .prompt
                .merged
                .iter()
                .find(|merged| merged.entry == index)
            {
                Some(merged) if !tells => {
                    return (false, format!("merged: {}", merged.why), tokens)
                }
                _ => places.push("its sections are compared before every request".to_string()),
            }
        }
        if !places.is_empty() {
            return (true, places.join("; "), tokens);
        }
        let why = outcomes
            .get(name)
            .map(|outcome| outcome.why.clone())
            .or_else(|| {
                refusals
                    .iter()
                    .find(|refusal| refusal.contributor == name)
                    .map(|refusal| format!("refused: {}", refusal.reason))
            })
            .unwrap_or_else(|| self.left_out_when_composed(entry));
        (false, why, 0)
    }

    /// Why a contributor kept in the system prompt or the opening is not
    /// there.
    fn left_out_when_composed(&self, entry: &Entry<'a>) -> String {
        let contributor = entry.contributor;
        if contributor.reach != contrib_core::vocabulary::Reach::EveryTurn
            && self.session.person.is_none()
        {
            return format!(
                "it reaches `{}` and this conversation was composed with no person",
                contributor.reach
            );
        }
        match contributor.delivery {
            Delivery::StoredNote | Delivery::TurnNote => "it was not told on this turn".to_string(),
            _ => "it added nothing when the conversation was composed".to_string(),
        }
    }

    /// The agent's skills on this turn; a skill the person picked at a
    /// version newer than the kept one had the newer instructions in the
    /// note beside their message.
    pub(super) fn skill_records(&self, pick: Option<&StoredPick>) -> Vec<SkillRecord> {
        self.session
            .skills
            .iter()
            .map(|(slug, skill)| {
                let kept = self.prompt.system.skill(slug).map(|kept| kept.version.clone());
                let picked = pick.is_some_and(|pick| pick.skill == *slug);
                let why = match (&kept, &skill.body) {
                    (Some(kept), _) if *kept == skill.version => {
                        "its instructions are in the kept system prompt".to_string()
                    }
                    (Some(kept), Some(_)) if picked => format!(
                        "the kept system prompt holds {kept}; the person picked it, and the note beside their message gave {}'s instructions",
                        skill.version
                    ),
                    (Some(kept), _) => format!(
                        "the kept system prompt holds {kept}; {} reaches it at the next compaction",
                        skill.version
                    ),
                    (None, Some(_)) if picked => {
                        "given after the kept system prompt was composed; the person picked it, and the note beside their message gave its instructions".to_string()
                    }
                    (None, Some(_)) => {
                        "given after the kept system prompt was composed; it reaches it at the next compaction".to_string()
                    }
                    (None, None) => "installed; the host gave no instructions to compose".to_string(),
                };
                SkillRecord {
                    skill: slug.clone(),
                    version: skill.version.clone(),
                    digest: skill.digest.clone(),
                    in_system_prompt: kept,
                    why,
                }
            })
            .collect()
    }

    pub(super) fn log_turn(&mut self, at: Timestamp, compaction: bool) {
        if self.log.is_none() {
            return;
        }
        let entry = crate::log::TurnEntry {
            number: self.state.progress.turns,
            at,
            compaction,
            applied: self.state.told.applied.clone(),
            restate: self.state.told.restate.clone(),
            history: self.state.told.history.clone(),
            seen: self.state.told.seen.clone(),
            awaiting: self
                .state
                .held
                .awaiting
                .iter()
                .map(|(entry, _)| entry.name())
                .collect(),
        };
        if let Some(log) = &mut self.log {
            log.turn(&entry);
        }
    }
}

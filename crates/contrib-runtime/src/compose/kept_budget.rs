//! The kept part of every request, held to the agent's context budget.
//!
//! The system prompt, what eager loads preload and the conversation's
//! opening are sent before every turn of a conversation, so together they
//! must leave room for the conversation itself. Each contributor fits its
//! own budget and each plugin was checked on its own; installed together
//! they may not fit. What does not fit is refused, never cut: the
//! contribution of lowest priority first (then the narrowest placement,
//! then the last in composition order), until the rest fits. Each refusal
//! is recorded, naming where its plugin was installed, so whoever
//! installed it sees why it is missing.

use std::collections::{BTreeMap, BTreeSet};

use super::{Composer, Entry};
use crate::gate::Gate;
use crate::record::Named;
use contrib_core::vocabulary::Placement;

/// The tokens the kept part may take, and where each plugin was installed.
pub(crate) struct KeptLimit {
    tokens: u64,
    installed: BTreeMap<String, String>,
}

impl<'a, G: Gate> Composer<'a, G> {
    /// Holds the kept part of every request (every placement of the system
    /// prompt, preloaded tools and operations, the opening) to `tokens`;
    /// `installed` says, for each plugin version, where it was installed.
    /// Applied now and after every recomposition.
    pub fn limit_kept(&mut self, tokens: u64, installed: BTreeMap<String, String>) {
        self.kept_limit = Some(KeptLimit { tokens, installed });
        self.fit_kept();
    }

    /// Refuses what does not fit, lowest priority first.
    pub(crate) fn fit_kept(&mut self) {
        let Some(limit) = &self.kept_limit else {
            return;
        };
        let (limit, installed) = (limit.tokens, limit.installed.clone());
        let mut refused = Vec::new();
        loop {
            let total = self.prefix_tokens()[2].1;
            if total <= limit {
                break;
            }
            let Some(entry) = self.lowest_kept() else {
                break;
            };
            let name = entry.name();
            self.prompt
                .preloaded
                .retain(|item| item.contributor != name);
            self.prompt.opening.retain(|item| item.contributor != name);
            self.drop_from_system(&name);
            let place = installed
                .get(&entry.bundle.id())
                .map_or_else(String::new, |place| format!("; installed {place}"));
            refused.push(entry.refuse(format!(
                "the kept prompt is {total} tokens, over the agent's budget of {limit}: refused as the lowest priority ({} at {} placement){place}",
                entry.contributor.priority, entry.contributor.placement
            )));
        }
        if refused.is_empty() {
            return;
        }
        self.state.pending.refusals.extend(refused);
        self.place();
    }

    /// The kept contribution to refuse first.
    fn lowest_kept(&self) -> Option<Entry<'a>> {
        let kept: BTreeSet<&str> = self
            .prompt
            .system
            .contributions
            .iter()
            .map(|contribution| contribution.contributor.as_str())
            .chain(
                self.prompt
                    .preloaded
                    .iter()
                    .map(|item| item.contributor.as_str()),
            )
            .chain(
                self.prompt
                    .opening
                    .iter()
                    .map(|item| item.contributor.as_str()),
            )
            .collect();
        self.versions
            .entries
            .iter()
            .filter(|entry| kept.contains(entry.name().as_str()))
            .max_by_key(|entry| {
                (
                    entry.contributor.priority,
                    entry.contributor.placement,
                    entry.name(),
                )
            })
            .copied()
    }

    /// The kept system prompt without `contributor`'s contribution, its
    /// parts laid out as `compose` lays them out.
    fn drop_from_system(&mut self, contributor: &str) {
        let mut contributions = std::mem::take(&mut self.prompt.system.contributions);
        contributions.retain(|contribution| contribution.contributor != contributor);
        let mut agent = String::new();
        let mut person = String::new();
        for contribution in &contributions {
            let part = if contribution.placement == Placement::Person {
                &mut person
            } else {
                &mut agent
            };
            part.push_str(&contribution.text);
            part.push_str("\n\n");
        }
        let skills = std::mem::take(&mut self.prompt.system.skills);
        self.set_system(agent, &person, contributions, skills);
    }
}

//! A layout's figures: shared prefixes, re-sent bytes, and the requests
//! played through one provider cache in time order.

use std::collections::{BTreeMap, HashMap};

use super::{Figures, Key, Sent};
use crate::runtime::cache::{Cache, Request};
use crate::runtime::compose::REQUEST_TOKENIZER;
use crate::runtime::profiles::Profile;

/// The requests of one layout, gathered for its figures.
#[derive(Default)]
pub(super) struct Layout {
    sent: Vec<(Key, Sent)>,
    recompositions: Vec<u32>,
}

impl Layout {
    pub(super) fn add(&mut self, key: Key, sent: Vec<Sent>, recompositions: u32) {
        self.sent.extend(sent.into_iter().map(|sent| (key, sent)));
        self.recompositions.push(recompositions);
    }

    pub(super) fn figures(&self, profile: &Profile) -> Figures {
        let mut figures = Figures::default();
        let requests = self.sent.len().max(1) as f64;
        let mut by_agent: BTreeMap<usize, Shared> = BTreeMap::new();
        let mut by_person: BTreeMap<(usize, usize), Shared> = BTreeMap::new();
        let mut previous: HashMap<(usize, usize, usize), &Request> = HashMap::new();
        // Sums are whole numbers, divided once at the end: adding up
        // `x / requests` for every request drifts (82.99999999999964).
        let (mut system_prompt_bytes, mut request_bytes, mut request_tokens) = (0u64, 0u64, 0u64);
        let mut resent = 0u64;
        for (key, sent) in &self.sent {
            by_agent
                .entry(key.agent)
                .or_default()
                .add(&sent.system_prompt);
            by_person
                .entry((key.agent, key.person))
                .or_default()
                .add(&sent.system_prompt);
            system_prompt_bytes += sent.system_prompt.len() as u64;
            let request = &sent.request;
            request_bytes += request.blocks.iter().map(|b| b.bytes).sum::<u64>();
            request_tokens += request.blocks.iter().map(|b| b.tokens).sum::<u64>();
            let id = (key.agent, key.person, key.conversation);
            resent += unshared_bytes(previous.get(&id).copied(), request);
            previous.insert(id, request);
        }
        figures.system_prompt_bytes = system_prompt_bytes as f64 / requests;
        figures.request_bytes = request_bytes as f64 / requests;
        figures.request_tokens = request_tokens as f64 / requests;
        figures.resent_bytes_per_turn = resent as f64 / requests;
        (figures.agent_shared_bytes, figures.agent_shared_tokens) = mean_shared(by_agent.values());
        (figures.person_shared_bytes, figures.person_shared_tokens) =
            mean_shared(by_person.values());
        figures.recompositions_per_conversation = self.recompositions.iter().sum::<u32>() as f64
            / self.recompositions.len().max(1) as f64;
        let mut order: Vec<&(Key, Sent)> = self.sent.iter().collect();
        order.sort_by_key(|(key, sent)| (sent.request.at, key.agent, key.person, key.conversation));
        let mut cache = Cache::new(profile);
        for (_, sent) in order {
            cache.send(&sent.request, profile.minimum_prefix(&sent.model));
        }
        figures.cache = cache.totals;
        figures.relative_cost = cache.totals.relative_cost();
        figures
    }
}

/// Bytes of `request` after the blocks it shares with `previous`.
fn unshared_bytes(previous: Option<&Request>, request: &Request) -> u64 {
    let shared = previous.map_or(0, |previous| {
        previous
            .blocks
            .iter()
            .zip(&request.blocks)
            .take_while(|(a, b)| a.prefix == b.prefix)
            .count()
    });
    request.blocks[shared..]
        .iter()
        .map(|block| block.bytes)
        .sum()
}

/// The longest prefix common to every text added.
#[derive(Default)]
struct Shared {
    first: Option<String>,
    length: usize,
}

impl Shared {
    fn add(&mut self, text: &str) {
        match &self.first {
            None => {
                self.length = text.len();
                self.first = Some(text.to_string());
            }
            Some(first) => {
                let common = first
                    .bytes()
                    .zip(text.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                self.length = self.length.min(common);
            }
        }
    }

    /// Bytes and tokens of the shared prefix (cut back to a character).
    fn size(&self) -> (usize, u64) {
        let Some(first) = &self.first else {
            return (0, 0);
        };
        let mut end = self.length;
        while !first.is_char_boundary(end) {
            end -= 1;
        }
        (end, REQUEST_TOKENIZER.count(&first[..end]) as u64)
    }
}

fn mean_shared<'s>(groups: impl Iterator<Item = &'s Shared>) -> (f64, f64) {
    let sizes: Vec<(usize, u64)> = groups.map(Shared::size).collect();
    let n = sizes.len().max(1) as f64;
    (
        sizes.iter().map(|(bytes, _)| *bytes as f64).sum::<f64>() / n,
        sizes.iter().map(|(_, tokens)| *tokens as f64).sum::<f64>() / n,
    )
}

//! A layout's figures: its requests played through one provider cache in
//! time order, what they cost, and who wrote the cached tokens each read.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::play::Sent;
use super::prompt_cache::{Cache, CacheTotals, Served};
use super::replay::Replayable;
use super::warm::{self, Limit, HOST};
use super::LayoutName;
use crate::runtime::layout::Segment;
use crate::runtime::{Profile, Rates};

/// Tokens of one kind of content, by where the provider got them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Shares {
    pub tokens: u64,
    /// Read from a cache entry another conversation, or the host's
    /// pre-warm request, paid to write.
    pub from_other_conversations: u64,
    /// Of those, read from an entry a pre-warm request wrote.
    pub from_prewarm: u64,
    /// Read from one this conversation wrote.
    pub from_same_conversation: u64,
    /// Written to the cache by this request.
    pub written: u64,
    /// Sent uncached.
    pub uncached: u64,
}

impl Shares {
    /// The share of the tokens read from another conversation's entry.
    pub fn fraction_from_other(&self) -> f64 {
        if self.tokens == 0 {
            return 0.0;
        }
        self.from_other_conversations as f64 / self.tokens as f64
    }

    fn add(&mut self, other: Shares) {
        self.tokens += other.tokens;
        self.from_other_conversations += other.from_other_conversations;
        self.from_prewarm += other.from_prewarm;
        self.from_same_conversation += other.from_same_conversation;
        self.written += other.written;
        self.uncached += other.uncached;
    }
}

/// One agent's agent-prefix tokens.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentShares {
    pub agent: String,
    pub agent_prefix: Shares,
    pub from_other_conversations: f64,
}

/// One person's person part and openings with one agent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PersonShares {
    pub agent: String,
    pub person: String,
    pub person_part: Shares,
    pub opening: Shares,
}

/// What a layout cost in dollars.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Usd {
    pub input: f64,
    pub output: f64,
    pub total: f64,
}

/// One layout's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayoutReport {
    pub name: &'static str,
    pub title: &'static str,
    pub assumptions: &'static [&'static str],
    /// The conversations' requests.
    pub requests: u64,
    /// The host's pre-warm requests, priced in the input cost.
    pub prewarm_requests: u64,
    pub input_tokens: u64,
    pub read_tokens: u64,
    pub written_tokens: u64,
    pub uncached_tokens: u64,
    pub output_tokens: u64,
    /// Input cost in units of one uncached input token.
    pub input_cost: f64,
    /// `input_cost` against sending every input token uncached.
    pub relative_cost: f64,
    /// Dollars, when the profile prices every model the fleet used.
    pub usd: Option<Usd>,
    /// The agent prefix's tokens read from an entry another conversation
    /// wrote, as a share of all agent-prefix tokens sent (0 to 1).
    pub agent_shared_from_other_conversations: f64,
    /// The most a layout alone (no pre-warming) could share on this
    /// layout's traffic, and the writes it cannot avoid; none where the
    /// agent prefix does not lead the request.
    pub limit: Option<Limit>,
    pub agent_prefix: Shares,
    pub person_part: Shares,
    pub opening: Shares,
    pub by_agent: Vec<AgentShares>,
    pub by_person: Vec<PersonShares>,
    /// Requests whose system prompt differs from the conversation's
    /// previous one, per conversation: measured, byte for byte.
    pub system_prompt_changes_per_conversation: f64,
    /// Compositions after the first, per conversation, as the runtime
    /// counts them (contrib layouts only).
    pub recompositions_per_conversation: Option<f64>,
    /// Requests that ended in fetching something not loaded ahead.
    pub rounds: u64,
    pub agent_prefix_tokens_per_request: f64,
    pub mean_request_tokens: f64,
    /// The cache's tokens hour by hour of simulated time, for charts.
    pub timeline: Vec<Interval>,
}

/// What the cache did in one hour of simulated time, for one layout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Interval {
    /// Seconds since the simulation's start at which the hour begins.
    pub offset_seconds: i64,
    pub requests: u64,
    pub read_tokens: u64,
    pub write_tokens: u64,
    pub uncached_tokens: u64,
}

/// Adds one request's tokens (the change from `before` to `after`) to the
/// hour `offset` seconds after the start falls in, filling empty hours so
/// the timeline is evenly spaced.
fn record(timeline: &mut Vec<Interval>, offset: i64, before: &CacheTotals, after: &CacheTotals) {
    const HOUR: i64 = 3600;
    let hour = offset.max(0) / HOUR;
    while timeline.len() as i64 <= hour {
        timeline.push(Interval {
            offset_seconds: timeline.len() as i64 * HOUR,
            ..Interval::default()
        });
    }
    if let Some(interval) = timeline.get_mut(hour as usize) {
        interval.requests += 1;
        interval.read_tokens += after.read_tokens - before.read_tokens;
        interval.write_tokens += after.write_tokens - before.write_tokens;
        interval.uncached_tokens += after.uncached_tokens - before.uncached_tokens;
    }
}

/// Plays `sent` through `cache_profile`'s cache in time order, pricing it
/// with `price_profile`'s rates; with `replay`, records every request and
/// what the cache did with it.
#[allow(clippy::too_many_arguments)]
pub(super) fn figures(
    name: LayoutName,
    sent: &[Sent],
    cache_profile: &Profile,
    price_profile: &Profile,
    conversations: u64,
    agents: &[String],
    start: i64,
    mut replay: Option<&mut Vec<Replayable>>,
) -> LayoutReport {
    let mut order: Vec<usize> = (0..sent.len()).collect();
    order.sort_by_key(|&index| (sent[index].request.at, sent[index].key.writer, index));
    let mut cache = Cache::new(cache_profile);
    let mut rates: HashMap<&str, Rates> = HashMap::new();
    let mut totals = CacheTotals::default();
    let mut usd = Some(Usd {
        input: 0.0,
        output: 0.0,
        total: 0.0,
    });
    let mut by_agent: BTreeMap<usize, Shares> = BTreeMap::new();
    let mut by_person: BTreeMap<(usize, usize), (Shares, Shares)> = BTreeMap::new();
    let mut last_system: HashMap<u32, u64> = HashMap::new();
    let mut changes = 0u64;
    let mut output_tokens = 0;
    let mut rounds = 0;
    let mut timeline = Vec::new();
    for &index in &order {
        let one = &sent[index];
        let rate = rates
            .entry(one.model.as_str())
            .or_insert_with(|| price_profile.rates(&one.model));
        let minimum = cache_profile.minimum_prefix(&one.model);
        let served = cache.send(&one.request, minimum);
        if let Some(replay) = replay.as_deref_mut() {
            replay.push(Replayable::of(name, one, &served, cache_profile, minimum));
        }
        let before = totals;
        totals.add(&served, rate);
        record(&mut timeline, one.request.at - start, &before, &totals);
        output_tokens += one.output_tokens;
        rounds += u64::from(one.round);
        usd = usd
            .zip(rate.input_usd.zip(rate.output_usd))
            .map(|(usd, (input, output))| {
                let spent_in = served.cost(rate) * input;
                let spent_out = one.output_tokens as f64 * output;
                Usd {
                    input: usd.input + spent_in,
                    output: usd.output + spent_out,
                    total: usd.total + spent_in + spent_out,
                }
            });
        let writer = one.key.writer;
        // The host's pre-warm requests are priced above; the shares count
        // what the conversations' requests read.
        if writer == HOST {
            continue;
        }
        for &(from, to, segment) in &one.runs {
            let shares = attribute(&served, from, to, writer);
            let person = by_person
                .entry((one.key.agent, one.key.person))
                .or_default();
            match segment {
                Segment::Agent => by_agent.entry(one.key.agent).or_default().add(shares),
                Segment::Person => person.0.add(shares),
                Segment::Opening => person.1.add(shares),
                Segment::History | Segment::Turn => {}
            }
        }
        if let Some(system) = one.system {
            if last_system
                .insert(writer, system)
                .is_some_and(|last| last != system)
            {
                changes += 1;
            }
        }
    }
    let prewarm_requests = sent.iter().filter(|one| one.key.writer == HOST).count() as u64;
    let requests = sent.len() as u64 - prewarm_requests;
    let total = |shares: &mut dyn Iterator<Item = Shares>| {
        shares.fold(Shares::default(), |mut sum, one| {
            sum.add(one);
            sum
        })
    };
    let agent_prefix = total(&mut by_agent.values().copied());
    let name_of = |agent: usize| agents.get(agent).cloned().unwrap_or_default();
    LayoutReport {
        name: name.name(),
        title: name.title(),
        assumptions: name.assumptions(),
        requests,
        prewarm_requests,
        input_tokens: totals.input_tokens,
        read_tokens: totals.read_tokens,
        written_tokens: totals.write_tokens,
        uncached_tokens: totals.uncached_tokens,
        output_tokens,
        input_cost: totals.cost,
        relative_cost: totals.relative_cost(),
        usd,
        agent_shared_from_other_conversations: agent_prefix.fraction_from_other(),
        limit: warm::limit(sent, cache_profile),
        agent_prefix,
        person_part: total(&mut by_person.values().map(|(person, _)| *person)),
        opening: total(&mut by_person.values().map(|(_, opening)| *opening)),
        by_agent: by_agent
            .iter()
            .map(|(&agent, shares)| AgentShares {
                agent: name_of(agent),
                agent_prefix: *shares,
                from_other_conversations: shares.fraction_from_other(),
            })
            .collect(),
        by_person: by_person
            .iter()
            .map(|(&(agent, person), (part, opening))| PersonShares {
                agent: name_of(agent),
                person: format!("person-{person}"),
                person_part: *part,
                opening: *opening,
            })
            .collect(),
        system_prompt_changes_per_conversation: changes as f64 / conversations.max(1) as f64,
        recompositions_per_conversation: None,
        rounds,
        agent_prefix_tokens_per_request: agent_prefix.tokens as f64 / requests.max(1) as f64,
        mean_request_tokens: totals.input_tokens as f64 / requests.max(1) as f64,
        timeline,
    }
}

/// How the tokens `from..to` of a request were served: read from whose
/// entry, written, or sent uncached.
fn attribute(served: &Served, from: u64, to: u64, writer: u32) -> Shares {
    let overlap = |start: u64, end: u64| end.min(to).saturating_sub(start.max(from));
    let mut shares = Shares {
        tokens: to - from,
        ..Shares::default()
    };
    let mut start = 0;
    for &(end, who) in &served.read {
        let tokens = overlap(start, end);
        if who == writer {
            shares.from_same_conversation += tokens;
        } else {
            shares.from_other_conversations += tokens;
            if who == HOST {
                shares.from_prewarm += tokens;
            }
        }
        start = end;
    }
    shares.written = served
        .written
        .iter()
        .map(|&(start, end, _)| overlap(start, end))
        .sum();
    shares.uncached = shares
        .tokens
        .saturating_sub(shares.from_other_conversations)
        .saturating_sub(shares.from_same_conversation)
        .saturating_sub(shares.written);
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_attributed_to_their_writer_then_written_then_uncached() {
        let served = Served {
            read: vec![(1_000, 7), (1_500, 9)],
            written: vec![(1_500, 1_800, 0)],
            total: 2_000,
        };
        // The agent prefix: 0..1,200, read from conversation 7 and 9.
        let agent = attribute(&served, 0, 1_200, 9);
        assert_eq!(
            (agent.from_other_conversations, agent.from_same_conversation),
            (1_000, 200)
        );
        let rest = attribute(&served, 1_200, 2_000, 9);
        assert_eq!(
            (rest.from_same_conversation, rest.written, rest.uncached),
            (300, 300, 200)
        );
    }
}

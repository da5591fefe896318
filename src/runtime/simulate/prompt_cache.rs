//! A provider's prompt cache, simulated over requests in time order.
//!
//! A request is a list of blocks (tool definitions, a part of the system
//! prompt, an opening message, a stored message, a note), each identified
//! by the hash of everything up to and including it, so two requests share
//! a cached prefix exactly when their block hashes agree that far.
//!
//! - **Explicit** profiles write the cache only at the request's
//!   breakpoints, and read the longest written prefix that ends within
//!   `lookback_blocks` blocks before one of them (Anthropic looks back 20).
//! - **Automatic** profiles read the longest prefix seen before, in whole
//!   steps of `increment_tokens`, and write every prefix long enough.
//!
//! A read refreshes the entry's lifetime, as providers do. Every entry
//! remembers which conversation wrote each of its tokens (its
//! *provenance*): the conversation that paid to write them, whichever
//! longer entry they are later read through. That is what the sharing
//! figures count: an agent prefix written once and read by everyone is
//! read "from another conversation" by all but its writer.

use std::collections::HashMap;

use serde::Serialize;

use crate::runtime::{Caching, Profile, Rates};

/// One block of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Block {
    /// The hash of the request through this block.
    pub prefix: u64,
    pub tokens: u64,
    pub bytes: u64,
}

/// A breakpoint: after block `after` (an index into the blocks), cached for
/// the profile's lifetime number `lifetime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    pub after: usize,
    pub lifetime: usize,
}

/// A request as the provider sees it.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub at: i64,
    pub blocks: Vec<Block>,
    pub marks: Vec<Mark>,
    /// Automatic caching: the lifetime its prefixes are kept for, the
    /// retention its model asks for.
    pub retention: usize,
    /// The conversation sending it.
    pub writer: u32,
}

/// Who wrote cached tokens: runs of `(end, writer)`, each covering the
/// tokens from the previous run's end (or 0) to its own.
pub(crate) type Provenance = Vec<(u64, u32)>;

/// What the cache did with one request.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Served {
    /// The tokens read, from 0, by who wrote them.
    pub read: Provenance,
    /// Tokens written: `(from, to, lifetime)`.
    pub written: Vec<(u64, u64, usize)>,
    /// Every input token of the request.
    pub total: u64,
}

impl Served {
    pub(crate) fn read_tokens(&self) -> u64 {
        self.read.last().map_or(0, |(end, _)| *end)
    }

    pub(crate) fn written_tokens(&self) -> u64 {
        self.written.iter().map(|(from, to, _)| to - from).sum()
    }

    pub(crate) fn uncached_tokens(&self) -> u64 {
        self.total
            .saturating_sub(self.read_tokens() + self.written_tokens())
    }

    /// The cost in uncached-input-token units at `rates`.
    pub(crate) fn cost(&self, rates: &Rates) -> f64 {
        self.cost_millionths(rates) as f64 / 1e6
    }

    /// The cost in millionths of an uncached input token, exact: adding up
    /// products of prices like 0.1 in floating point drifts
    /// (463964.89999999997).
    fn cost_millionths(&self, rates: &Rates) -> u128 {
        let written: u128 = self
            .written
            .iter()
            .map(|&(from, to, lifetime)| {
                millionths(to - from, rates.write.get(lifetime).copied().unwrap_or(1.0))
            })
            .sum();
        millionths(self.read_tokens(), rates.read)
            + written
            + millionths(self.uncached_tokens(), 1.0)
    }
}

/// `tokens` at `multiplier`, in millionths of an uncached token.
fn millionths(tokens: u64, multiplier: f64) -> u128 {
    let price = (multiplier.max(0.0) * 1e6).round() as u128;
    u128::from(tokens) * price
}

/// Token counts and what they cost, in units of one uncached input token.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct CacheTotals {
    pub input_tokens: u64,
    pub read_tokens: u64,
    pub write_tokens: u64,
    pub uncached_tokens: u64,
    pub cost: f64,
    /// `cost` in millionths, summed exactly.
    #[serde(skip)]
    cost_millionths: u128,
}

impl CacheTotals {
    /// What the tokens cost against sending them all uncached.
    pub fn relative_cost(&self) -> f64 {
        if self.input_tokens == 0 {
            return 0.0;
        }
        self.cost / self.input_tokens as f64
    }

    pub(crate) fn add(&mut self, served: &Served, rates: &Rates) {
        self.input_tokens += served.total;
        self.read_tokens += served.read_tokens();
        self.write_tokens += served.written_tokens();
        self.uncached_tokens += served.uncached_tokens();
        self.cost_millionths += served.cost_millionths(rates);
        self.cost = self.cost_millionths as f64 / 1e6;
    }
}

/// A cached prefix: when it expires, how long a read extends it, and who
/// wrote its tokens.
struct Entry {
    expires: i64,
    lifetime: u64,
    provenance: Provenance,
}

/// Sends between sweeps of expired entries, which keep memory flat over a
/// long simulation.
const SWEEP_EVERY: u32 = 4_096;

/// The provider's cache: prefix hash → entry.
pub(crate) struct Cache<'p> {
    profile: &'p Profile,
    entries: HashMap<u64, Entry>,
    sent: u32,
}

impl<'p> Cache<'p> {
    pub(super) fn new(profile: &'p Profile) -> Cache<'p> {
        Cache {
            profile,
            entries: HashMap::new(),
            sent: 0,
        }
    }

    /// Sends `request`: what it read, from whom, and what it wrote.
    /// `minimum` is the shortest prefix the request's model caches.
    pub(super) fn send(&mut self, request: &Request, minimum: u64) -> Served {
        self.sent += 1;
        if self.sent.is_multiple_of(SWEEP_EVERY) {
            let now = request.at;
            self.entries.retain(|_, entry| entry.expires >= now);
        }
        let through: Vec<u64> = request
            .blocks
            .iter()
            .scan(0, |sum, block| {
                *sum += block.tokens;
                Some(*sum)
            })
            .collect();
        let total = through.last().copied().unwrap_or(0);
        let mut served = match self.profile.caching {
            Caching::None => Served::default(),
            Caching::Explicit => self.explicit(request, &through, minimum),
            Caching::Automatic => self.automatic(request, &through, minimum),
        };
        served.total = total;
        served
    }

    /// The provenance of the live entry for `prefix` at `at`; a hit
    /// refreshes its lifetime.
    fn hit(&mut self, prefix: u64, at: i64) -> Option<Provenance> {
        match self.entries.get_mut(&prefix) {
            Some(entry) if entry.expires >= at => {
                entry.expires = at.saturating_add_unsigned(entry.lifetime);
                Some(entry.provenance.clone())
            }
            _ => None,
        }
    }

    /// Writes (or, when live, refreshes) the entry for `prefix`.
    fn write(&mut self, prefix: u64, at: i64, lifetime: u64, provenance: Provenance) {
        let expires = at.saturating_add_unsigned(lifetime);
        match self.entries.get_mut(&prefix) {
            Some(entry) if entry.expires >= at => {
                if entry.expires < expires {
                    entry.expires = expires;
                    entry.lifetime = lifetime;
                }
            }
            _ => {
                self.entries.insert(
                    prefix,
                    Entry {
                        expires,
                        lifetime,
                        provenance,
                    },
                );
            }
        }
    }

    fn seconds(&self, lifetime: usize) -> u64 {
        self.profile
            .lifetimes
            .get(lifetime)
            .map_or(0, |lifetime| lifetime.seconds)
    }

    fn explicit(&mut self, request: &Request, through: &[u64], minimum: u64) -> Served {
        let mut marks: Vec<Mark> = request
            .marks
            .iter()
            .filter(|mark| {
                through
                    .get(mark.after)
                    .is_some_and(|tokens| *tokens >= minimum)
            })
            .copied()
            .collect();
        marks.sort_by_key(|mark| mark.after);
        marks.dedup_by_key(|mark| mark.after);
        let Some(last) = marks.last().map(|mark| mark.after) else {
            return Served::default();
        };
        let lookback = self.profile.lookback_blocks;
        let reachable = |index: usize| {
            marks
                .iter()
                .any(|mark| index <= mark.after && (lookback == 0 || mark.after - index < lookback))
        };
        let mut read = Provenance::new();
        for index in (0..=last).rev().filter(|&index| reachable(index)) {
            if let Some(provenance) = self.hit(request.blocks[index].prefix, request.at) {
                read = provenance;
                break;
            }
        }
        let mut served = Served {
            read: read.clone(),
            ..Served::default()
        };
        let mut provenance = read;
        let mut from = served.read_tokens();
        for mark in &marks {
            let tokens = through[mark.after];
            if tokens > from {
                served.written.push((from, tokens, mark.lifetime));
                provenance.push((tokens, request.writer));
                from = tokens;
            }
            let seconds = self.seconds(mark.lifetime);
            let own = truncated(&provenance, tokens);
            self.write(request.blocks[mark.after].prefix, request.at, seconds, own);
        }
        served
    }

    fn automatic(&mut self, request: &Request, through: &[u64], minimum: u64) -> Served {
        let seconds = self.seconds(request.retention);
        let step = self.profile.increment_tokens.max(1);
        let mut read = Provenance::new();
        for index in (0..request.blocks.len()).rev() {
            if through[index] < minimum {
                break;
            }
            if let Some(provenance) = self.hit(request.blocks[index].prefix, request.at) {
                // Cached prefixes grow in steps; a hit covers whole steps only.
                read = truncated(&provenance, through[index] / step * step);
                break;
            }
        }
        let mut served = Served {
            read: read.clone(),
            ..Served::default()
        };
        let total = through.last().copied().unwrap_or(0);
        if total < minimum {
            return served;
        }
        let from = served.read_tokens();
        let mut provenance = read;
        if total > from {
            served.written.push((from, total, request.retention));
            provenance.push((total, request.writer));
        }
        for (index, block) in request.blocks.iter().enumerate() {
            if through[index] >= minimum {
                let own = truncated(&provenance, through[index]);
                self.write(block.prefix, request.at, seconds, own);
            }
        }
        served
    }
}

/// `provenance` cut at `end` tokens.
fn truncated(provenance: &[(u64, u32)], end: u64) -> Provenance {
    let mut cut = Provenance::new();
    for &(run_end, writer) in provenance {
        if run_end >= end {
            cut.push((end, writer));
            return cut;
        }
        cut.push((run_end, writer));
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Profiles;

    fn request(at: i64, writer: u32, blocks: &[(u64, u64)], marks: &[usize]) -> Request {
        Request {
            at,
            writer,
            blocks: blocks
                .iter()
                .map(|&(prefix, tokens)| Block {
                    prefix,
                    tokens,
                    bytes: tokens * 4,
                })
                .collect(),
            marks: marks
                .iter()
                .map(|&after| Mark { after, lifetime: 0 })
                .collect(),
            retention: 0,
        }
    }

    fn anthropic() -> Profile {
        Profiles::builtin().get("anthropic").unwrap().clone()
    }

    #[test]
    fn explicit_reads_what_an_earlier_request_wrote_until_it_expires() {
        let profile = anthropic();
        let mut cache = Cache::new(&profile);
        let first = cache.send(&request(0, 1, &[(1, 2_000), (2, 100)], &[0]), 1_024);
        assert_eq!(first.written, [(0, 2_000, 0)]);
        let second = cache.send(&request(60, 2, &[(1, 2_000), (3, 100)], &[0]), 1_024);
        assert_eq!(
            second.read,
            [(2_000, 1)],
            "read from the first conversation"
        );
        assert_eq!(second.uncached_tokens(), 100);
        let late = cache.send(&request(60 + 301, 2, &[(1, 2_000), (3, 100)], &[0]), 1_024);
        assert_eq!(late.read_tokens(), 0);
        assert_eq!(late.written, [(0, 2_000, 0)]);
    }

    #[test]
    fn short_prefixes_are_not_cached() {
        let profile = anthropic();
        let mut cache = Cache::new(&profile);
        cache.send(&request(0, 1, &[(1, 500), (2, 100)], &[0]), 1_024);
        let again = cache.send(&request(1, 1, &[(1, 500), (2, 100)], &[0]), 1_024);
        assert_eq!(
            again,
            Served {
                total: 600,
                ..Served::default()
            }
        );
        assert_eq!(again.cost(&profile.rates("claude-sonnet-4-6")), 600.0);
    }

    #[test]
    fn tokens_keep_their_writer_when_read_through_a_longer_entry() {
        let profile = anthropic();
        let mut cache = Cache::new(&profile);
        // Conversation 1 writes the shared 2,000 tokens.
        cache.send(&request(0, 1, &[(1, 2_000), (2, 100)], &[0]), 1_024);
        // Conversation 2 reads them, and writes its own history after them.
        let turn = cache.send(&request(10, 2, &[(1, 2_000), (5, 300)], &[0, 1]), 1_024);
        assert_eq!(turn.read, [(2_000, 1)]);
        assert_eq!(turn.written, [(2_000, 2_300, 0)]);
        // Its next turn reads its own history entry: the first 2,000 tokens
        // are still conversation 1's, the rest its own.
        let next = cache.send(
            &request(20, 2, &[(1, 2_000), (5, 300), (6, 50)], &[0, 1]),
            1_024,
        );
        assert_eq!(next.read, [(2_000, 1), (2_300, 2)]);
    }

    #[test]
    fn a_breakpoint_looks_back_only_so_many_blocks() {
        let profile = anthropic();
        let mut cache = Cache::new(&profile);
        let mut blocks: Vec<(u64, u64)> = vec![(1, 2_000)];
        cache.send(&request(0, 1, &blocks, &[0]), 1_024);
        blocks.extend((2..=25).map(|prefix| (prefix, 10)));
        // A breakpoint 24 blocks after the cached one cannot see it.
        let far = cache.send(&request(1, 2, &blocks, &[24]), 1_024);
        assert_eq!(far.read_tokens(), 0);
        // One within 20 blocks can (the tail differs, so the far request's
        // own entry is no hit).
        for block in blocks.iter_mut().skip(16) {
            block.0 += 100;
        }
        let near = cache.send(&request(2, 3, &blocks, &[15, 24]), 1_024);
        assert_eq!(near.read, [(2_000, 1)]);
    }

    #[test]
    fn automatic_reads_whole_steps_and_writes_every_long_prefix() {
        let profiles = Profiles::builtin();
        let profile = profiles.get("openai").unwrap();
        let mut cache = Cache::new(profile);
        let first = cache.send(&request(0, 1, &[(1, 1_100), (2, 100)], &[]), 1_024);
        assert_eq!(first.written, [(0, 1_200, 0)]);
        let second = cache.send(&request(5, 2, &[(1, 1_100), (3, 100)], &[]), 1_024);
        assert_eq!(second.read, [(1_024, 1)]);
        assert_eq!(second.written, [(1_024, 1_200, 0)]);
    }

    #[test]
    fn totals_add_up_at_the_models_rates() {
        let profile = anthropic();
        let rates = profile.rates("claude-sonnet-4-6");
        let served = Served {
            read: vec![(1_000, 1)],
            written: vec![(1_000, 1_500, 1)],
            total: 1_600,
        };
        let mut totals = CacheTotals::default();
        totals.add(&served, &rates);
        assert_eq!(
            (
                totals.read_tokens,
                totals.write_tokens,
                totals.uncached_tokens
            ),
            (1_000, 500, 100)
        );
        assert!((totals.cost - (100.0 + 1_000.0 + 100.0)).abs() < 1e-6);
    }
}

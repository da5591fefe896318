//! A provider's prompt cache, simulated over requests in time order.
//!
//! A request is a list of blocks (a part of the system prompt, an opening
//! message, a stored message, a note), each identified by the hash of
//! everything up to and including it, so two requests share a cached prefix
//! exactly when their block hashes agree that far. Explicit profiles write
//! the cache only at the request's breakpoints and read the longest written
//! prefix at or before its last breakpoint; automatic profiles read the
//! longest prefix seen before and write every prefix long enough. A read
//! refreshes the entry's lifetime, as providers do. The provider's own
//! limits on how far back it looks for a hit (Anthropic's 20 blocks) are
//! not modelled.

use std::collections::HashMap;

use super::profiles::{Caching, Profile};

/// One block of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Block {
    /// The hash of the request through this block.
    pub prefix: u64,
    pub tokens: u64,
    pub bytes: u64,
}

/// A breakpoint: after block `after` (an index into the blocks), cached for
/// `seconds` at `write_multiplier`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Mark {
    pub after: usize,
    pub seconds: u64,
    pub write_multiplier: f64,
}

/// A request as the provider sees it.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub at: i64,
    pub blocks: Vec<Block>,
    pub marks: Vec<Mark>,
}

/// Token counts and what they cost, in units of one uncached input token.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct CacheTotals {
    pub input_tokens: u64,
    pub read_tokens: u64,
    pub write_tokens: u64,
    pub uncached_tokens: u64,
    pub cost: f64,
}

impl CacheTotals {
    /// What the tokens cost against sending them all uncached.
    pub fn relative_cost(&self) -> f64 {
        if self.input_tokens == 0 {
            return 0.0;
        }
        self.cost / self.input_tokens as f64
    }
}

/// The provider's cache: prefix hash → (expiry, lifetime).
pub(crate) struct Cache<'p> {
    profile: &'p Profile,
    entries: HashMap<u64, (i64, u64)>,
    pub totals: CacheTotals,
    /// `totals.cost` in millionths, summed exactly: adding up products of
    /// prices like 0.1 in floating point drifts (463964.89999999997).
    cost_millionths: u128,
}

/// `tokens` at `multiplier`, in millionths of an uncached token.
fn millionths(tokens: u64, multiplier: f64) -> u128 {
    let price = (multiplier.max(0.0) * 1e6).round() as u128;
    u128::from(tokens) * price
}

impl<'p> Cache<'p> {
    pub fn new(profile: &'p Profile) -> Cache<'p> {
        Cache {
            profile,
            entries: HashMap::new(),
            totals: CacheTotals::default(),
            cost_millionths: 0,
        }
    }

    /// Sends `request`, adding its tokens to the totals. `minimum` is the
    /// shortest prefix the request's model caches.
    pub fn send(&mut self, request: &Request, minimum: u64) {
        let through: Vec<u64> = request
            .blocks
            .iter()
            .scan(0, |sum, block| {
                *sum += block.tokens;
                Some(*sum)
            })
            .collect();
        let total = through.last().copied().unwrap_or(0);
        let outcome = match self.profile.caching {
            Caching::None => Outcome::default(),
            Caching::Explicit => self.explicit(request, &through, minimum),
            Caching::Automatic => self.automatic(request, &through, minimum),
        };
        let uncached = total.saturating_sub(outcome.read + outcome.written);
        let totals = &mut self.totals;
        totals.input_tokens += total;
        totals.read_tokens += outcome.read;
        totals.write_tokens += outcome.written;
        totals.uncached_tokens += uncached;
        self.cost_millionths += millionths(outcome.read, self.profile.read_multiplier)
            + outcome.write_cost
            + millionths(uncached, 1.0);
        totals.cost = self.cost_millionths as f64 / 1e6;
    }

    /// Whether the prefix with hash `prefix` is cached at `at`; a hit
    /// refreshes its lifetime.
    fn hit(&mut self, prefix: u64, at: i64) -> bool {
        match self.entries.get_mut(&prefix) {
            Some((expires, lifetime)) if *expires >= at => {
                *expires = at.saturating_add_unsigned(*lifetime);
                true
            }
            _ => false,
        }
    }

    fn write(&mut self, prefix: u64, at: i64, lifetime: u64) {
        let expires = at.saturating_add_unsigned(lifetime);
        let entry = self.entries.entry(prefix).or_insert((expires, lifetime));
        if entry.0 < expires {
            *entry = (expires, lifetime);
        }
    }

    fn explicit(&mut self, request: &Request, through: &[u64], minimum: u64) -> Outcome {
        let marks: Vec<Mark> = request
            .marks
            .iter()
            .filter(|mark| {
                through
                    .get(mark.after)
                    .is_some_and(|tokens| *tokens >= minimum)
            })
            .copied()
            .collect();
        let Some(last) = marks.iter().map(|mark| mark.after).max() else {
            return Outcome::default();
        };
        let hit = (0..=last)
            .rev()
            .find(|&index| self.hit(request.blocks[index].prefix, request.at));
        let read = hit.map_or(0, |index| through[index]);
        let mut outcome = Outcome {
            read,
            ..Outcome::default()
        };
        let mut from = read;
        for mark in &marks {
            let tokens = through[mark.after];
            if tokens > from {
                outcome.written += tokens - from;
                outcome.write_cost += millionths(tokens - from, mark.write_multiplier);
                from = tokens;
            }
            self.write(request.blocks[mark.after].prefix, request.at, mark.seconds);
        }
        outcome
    }

    fn automatic(&mut self, request: &Request, through: &[u64], minimum: u64) -> Outcome {
        let Some(lifetime) = self.profile.lifetimes.first() else {
            return Outcome::default();
        };
        let (seconds, multiplier) = (lifetime.seconds, lifetime.write_multiplier);
        let step = self.profile.increment_tokens.max(1);
        let hit = (0..request.blocks.len())
            .rev()
            .filter(|&index| through[index] >= minimum)
            .find(|&index| self.hit(request.blocks[index].prefix, request.at));
        // Cached prefixes grow in steps; a hit covers whole steps only.
        let read = hit.map_or(0, |index| through[index] / step * step);
        let mut outcome = Outcome {
            read,
            ..Outcome::default()
        };
        for (index, block) in request.blocks.iter().enumerate() {
            if through[index] >= minimum {
                self.write(block.prefix, request.at, seconds);
            }
        }
        let total = through.last().copied().unwrap_or(0);
        if total >= minimum {
            outcome.written = total - read;
            outcome.write_cost = millionths(outcome.written, multiplier);
        }
        outcome
    }
}

/// What one request read from and wrote to the cache.
#[derive(Debug, Default)]
struct Outcome {
    read: u64,
    written: u64,
    /// In millionths of an uncached token.
    write_cost: u128,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Profiles;

    fn request(at: i64, blocks: &[(u64, u64)], marks: &[usize]) -> Request {
        Request {
            at,
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
                .map(|&after| Mark {
                    after,
                    seconds: 300,
                    write_multiplier: 1.25,
                })
                .collect(),
        }
    }

    #[test]
    fn explicit_reads_what_an_earlier_request_wrote_until_it_expires() {
        let profiles = Profiles::builtin();
        let mut cache = Cache::new(profiles.get("anthropic").unwrap());
        cache.send(&request(0, &[(1, 2_000), (2, 100)], &[0]), 1_024);
        assert_eq!(cache.totals.write_tokens, 2_000);
        cache.send(&request(60, &[(1, 2_000), (3, 100)], &[0]), 1_024);
        assert_eq!(cache.totals.read_tokens, 2_000);
        cache.send(&request(60 + 301, &[(1, 2_000), (3, 100)], &[0]), 1_024);
        assert_eq!(cache.totals.read_tokens, 2_000);
        assert_eq!(cache.totals.write_tokens, 4_000);
        assert_eq!(cache.totals.uncached_tokens, 300);
    }

    #[test]
    fn short_prefixes_are_not_cached() {
        let profiles = Profiles::builtin();
        let mut cache = Cache::new(profiles.get("anthropic").unwrap());
        cache.send(&request(0, &[(1, 500), (2, 100)], &[0]), 1_024);
        cache.send(&request(1, &[(1, 500), (2, 100)], &[0]), 1_024);
        assert_eq!(cache.totals.read_tokens + cache.totals.write_tokens, 0);
        assert_eq!(cache.totals.relative_cost(), 1.0);
    }

    #[test]
    fn automatic_reads_whole_steps() {
        let profiles = Profiles::builtin();
        let mut cache = Cache::new(profiles.get("openai").unwrap());
        cache.send(&request(0, &[(1, 1_100), (2, 100)], &[]), 1_024);
        cache.send(&request(5, &[(1, 1_100), (3, 100)], &[]), 1_024);
        assert_eq!(cache.totals.read_tokens, 1_024);
    }
}

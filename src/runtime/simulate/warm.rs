//! Keeping agent prefixes warm, and how far a layout is from the best it
//! could do on its traffic.
//!
//! **The limit of layout alone.** Every conversation of an agent on one
//! model sends the same agent prefix, so a layout can at best write it once
//! and have everyone read it. It cannot do better than the traffic allows:
//! the first request after the entry expired (its longest lifetime passed
//! with no request) must write it again, and until the entry next expires
//! the writer's own later requests read what their own conversation
//! wrote. [`limit`] walks the traffic with that one rule and counts what
//! is left for other conversations to read: the share no layout exceeds.
//!
//! **Pre-warming.** A host can send requests that only fill the cache
//! (Anthropic's `max_tokens: 0`, OpenAI's `prompt_cache_options.prewarm`
//! from GPT-5.6 on), priced like any request: the prefix read or written,
//! one uncached token of message, no output. [`prewarm`] schedules what a
//! host can do without knowing the future: one when an agent prefix is
//! first composed (a recomposition that makes a new one: a new version, a
//! skill update reached at a compaction, a model change), and one a minute
//! before the entry would expire, as long as the prefix was used within
//! the last `keep_warm` seconds. Conversations then read entries written
//! by the host, not by one of them; whether that pays is the layout's
//! cost against contrib's.

use std::collections::BTreeMap;

use super::play::Sent;
use super::prompt_cache::{Block, Mark, Request};
use crate::runtime::layout::Segment;
use crate::runtime::{Caching, Profile};

/// The writer of the host's pre-warm requests: no conversation.
pub(crate) const HOST: u32 = u32::MAX;

/// How long before an entry expires the host refreshes it.
const REFRESH_MARGIN: i64 = 60;

/// The best a layout alone can do with the agent prefix on this traffic.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Limit {
    /// Agent-prefix writes no layout avoids: each prefix's first request,
    /// and each after the prefix went unused for longer than its longest
    /// lifetime.
    pub unavoidable_writes: u64,
    /// The largest share of agent-prefix tokens read from another
    /// conversation's entry (0 to 1).
    pub best_share_from_other_conversations: f64,
}

/// One agent prefix: the block it ends at and how long it can live.
struct Prefix<'s> {
    key: u64,
    sent: &'s Sent,
    end: usize,
    tokens: u64,
    seconds: i64,
    lifetime: usize,
}

/// The agent prefix of `one`, when it has one that can be cached on its
/// own: under explicit caching, one shorter than the model's minimum
/// caches nothing at its breakpoint.
fn prefix<'s>(one: &'s Sent, profile: &Profile) -> Option<Prefix<'s>> {
    let end = one.agent_end?;
    let tokens: u64 = one.request.blocks[..=end]
        .iter()
        .map(|block| block.tokens)
        .sum();
    let lifetime = match profile.caching {
        Caching::None => return None,
        Caching::Explicit if tokens < profile.minimum_prefix(&one.model) => return None,
        Caching::Explicit => profile.lifetimes.len().checked_sub(1)?,
        Caching::Automatic => one.request.retention,
    };
    let seconds = profile.lifetimes.get(lifetime)?.seconds as i64;
    Some(Prefix {
        key: one.request.blocks[end].prefix,
        sent: one,
        end,
        tokens,
        seconds,
        lifetime,
    })
}

/// The conversations' requests by agent prefix, each in time order.
fn by_prefix<'s>(sent: &'s [Sent], profile: &Profile) -> BTreeMap<u64, Vec<Prefix<'s>>> {
    let mut groups: BTreeMap<u64, Vec<Prefix<'s>>> = BTreeMap::new();
    for one in sent.iter().filter(|one| one.key.writer != HOST) {
        if let Some(prefix) = prefix(one, profile) {
            groups.entry(prefix.key).or_default().push(prefix);
        }
    }
    for uses in groups.values_mut() {
        uses.sort_by_key(|prefix| (prefix.sent.request.at, prefix.sent.key.writer));
    }
    groups
}

/// The limit of layout alone on `sent`'s traffic under `profile`; `None`
/// for a layout that sends agent-prefix tokens after what varies per
/// person (eager loads in the opening), which the walk does not bound.
pub(super) fn limit(sent: &[Sent], profile: &Profile) -> Option<Limit> {
    let mut total = 0u64;
    let mut other = 0u64;
    let mut writes = 0u64;
    for one in sent.iter().filter(|one| one.key.writer != HOST) {
        let agent = one.runs.iter().filter(|run| run.2 == Segment::Agent);
        if agent.clone().any(|run| run.0 > 0) {
            return None;
        }
        total += agent.map(|run| run.1 - run.0).sum::<u64>();
    }
    for uses in by_prefix(sent, profile).values() {
        let mut live: Option<(i64, u32)> = None;
        for prefix in uses {
            let at = prefix.sent.request.at;
            let writer = prefix.sent.key.writer;
            match live {
                Some((expires, first)) if at <= expires => {
                    if first != writer {
                        other += prefix.tokens;
                    }
                    live = Some((at + prefix.seconds, first));
                }
                _ => {
                    writes += 1;
                    live = Some((at + prefix.seconds, writer));
                }
            }
        }
    }
    Some(Limit {
        unavoidable_writes: writes,
        best_share_from_other_conversations: if total == 0 {
            0.0
        } else {
            other as f64 / total as f64
        },
    })
}

/// The host's pre-warm requests for `sent` (one layout's requests): one
/// just before each agent prefix's first use, then refreshes a minute
/// before each expiry while the prefix was used within `keep_warm`
/// seconds.
pub(super) fn prewarm(sent: &[Sent], profile: &Profile, keep_warm: i64) -> Vec<Sent> {
    let mut warm = Vec::new();
    for uses in by_prefix(sent, profile).values() {
        let Some(first) = uses.first() else {
            continue;
        };
        let step = (first.seconds - REFRESH_MARGIN).max(1);
        let mut at = first.sent.request.at - 1;
        warm.push(request(first, at, profile));
        let mut last_use = first.sent.request.at;
        let mut refresh = |touched: &mut i64, until: i64, last_use: i64| {
            while *touched + first.seconds < until {
                let next = *touched + step;
                if next - last_use > keep_warm {
                    break;
                }
                warm.push(request(first, next, profile));
                *touched = next;
            }
        };
        for prefix in uses {
            let now = prefix.sent.request.at;
            refresh(&mut at, now, last_use);
            at = at.max(now);
            last_use = now;
        }
        refresh(&mut at, i64::MAX, last_use);
    }
    warm
}

/// A pre-warm request at `at`: the agent prefix, a breakpoint after it
/// where the profile takes breakpoints, and a message of one token.
fn request(prefix: &Prefix<'_>, at: i64, profile: &Profile) -> Sent {
    let source = prefix.sent;
    let mut blocks: Vec<Block> = source.request.blocks[..=prefix.end].to_vec();
    blocks.push(Block {
        prefix: prefix.key ^ 0x9e37_79b9_7f4a_7c15,
        tokens: 1,
        bytes: 1,
    });
    let marks = match profile.caching {
        Caching::Explicit => vec![Mark {
            after: prefix.end,
            lifetime: prefix.lifetime,
        }],
        _ => Vec::new(),
    };
    Sent {
        key: super::play::Key {
            writer: HOST,
            ..source.key
        },
        request: Request {
            at,
            blocks,
            marks,
            retention: source.request.retention,
            writer: HOST,
        },
        model: source.model.clone(),
        runs: vec![
            (0, prefix.tokens, Segment::Agent),
            (prefix.tokens, prefix.tokens + 1, Segment::Turn),
        ],
        output_tokens: 0,
        system: None,
        round: false,
        agent_end: Some(prefix.end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Profiles;

    /// Conversation `writer`'s request at `at`: a 2,000-token agent prefix
    /// (block 1) with a breakpoint, then 100 tokens of its own.
    fn sent(at: i64, writer: u32) -> Sent {
        let block = |prefix, tokens| Block {
            prefix,
            tokens,
            bytes: tokens * 4,
        };
        Sent {
            key: super::super::play::Key {
                agent: 0,
                person: writer as usize,
                writer,
            },
            request: Request {
                at,
                blocks: vec![block(1, 2_000), block(100 + u64::from(writer), 100)],
                marks: vec![Mark {
                    after: 0,
                    lifetime: 1,
                }],
                retention: 0,
                writer,
            },
            model: "claude-sonnet-4-6".into(),
            runs: vec![(0, 2_000, Segment::Agent), (2_000, 2_100, Segment::Turn)],
            output_tokens: 10,
            system: None,
            round: false,
            agent_end: Some(0),
        }
    }

    fn anthropic() -> Profile {
        Profiles::builtin().get("anthropic").unwrap().clone()
    }

    #[test]
    fn the_limit_counts_the_writes_after_each_expiry_and_the_writers_own_reads() {
        // Conversation 1 writes at 0 and reads its own at 60; 2 reads 1's;
        // after two idle hours the hour-long entry is gone and 3 writes.
        let traffic = [sent(0, 1), sent(60, 1), sent(120, 2), sent(120 + 7_200, 3)];
        let limit = limit(&traffic, &anthropic()).unwrap();
        assert_eq!(limit.unavoidable_writes, 2);
        assert!((limit.best_share_from_other_conversations - 0.25).abs() < 1e-9);
        // Under Opus 4.6's 4,096-token minimum the prefix caches nothing.
        let opus: Vec<Sent> = traffic
            .iter()
            .cloned()
            .map(|mut one| {
                one.model = "claude-opus-4-6".into();
                one
            })
            .collect();
        let limit = super::limit(&opus, &anthropic()).unwrap();
        assert_eq!(limit.unavoidable_writes, 0);
        assert_eq!(limit.best_share_from_other_conversations, 0.0);
        // Agent-prefix tokens after the start of the request: no bound.
        let mut late = sent(0, 1);
        late.runs = vec![(0, 100, Segment::Person), (100, 2_100, Segment::Agent)];
        assert_eq!(super::limit(&[late], &anthropic()), None);
    }

    #[test]
    fn the_host_warms_a_prefix_before_its_first_use_and_refreshes_it_while_used() {
        let traffic = [sent(10_000, 1), sent(10_000 + 7_000, 2)];
        // Kept warm for an hour after each use: the pre-warm a second
        // before the first use, a refresh a minute before the entry the
        // first use refreshed expires (which carries it to the second use),
        // and one a minute before the second use's entry expires.
        let warm = prewarm(&traffic, &anthropic(), 3_600);
        let times: Vec<i64> = warm.iter().map(|one| one.request.at).collect();
        assert_eq!(times, [9_999, 10_000 + 3_540, 17_000 + 3_540]);
        assert!(warm.iter().all(|one| one.key.writer == HOST
            && one.output_tokens == 0
            && one.request.blocks.len() == 2
            && one.request.marks.len() == 1));
        // Kept warm for nothing: only the pre-warm at first use.
        assert_eq!(prewarm(&traffic, &anthropic(), 0).len(), 1);
    }
}

//! A deterministic simulation of many conversations, to measure what the
//! placement rules buy in prompt-cache sharing.
//!
//! `A` agents each hold `C` conversations with each of `P` persons, of `T`
//! turns each, starting at random times over a week. Turns come after random
//! idle gaps (mostly minutes, sometimes hours, now and then overnight, so
//! dates are crossed); a quarter of the conversations switch model partway;
//! every skill is updated once, halfway through the week; a conversation is
//! compacted when its stored history passes a size. Every request is laid
//! out twice:
//!
//! - **composed**, as [`Conversation`] composes it: the kept system prompt,
//!   the opening, the stored history with its notes, this turn's notes,
//!   with cache breakpoints where the shared prefixes end;
//! - **naive**: every contribution rendered into the system prompt every
//!   turn (times, person values, eager-run results, notes and facts in full),
//!   in the same placement order, followed by the stored messages, with
//!   breakpoints after the system prompt and after the history.
//!
//! Both layouts then go, in time order across all conversations, through
//! one simulated provider cache under the chosen [`Profile`]. The random
//! numbers come from splitmix64 with the given seed, so a seed always gives
//! the same figures. Message texts are synthetic words; the tool calls go
//! through [`CliGate`]. Tool definitions the host sends before the system
//! prompt are the same in both layouts and left out.
//!
//! ```
//! use contrib::runtime::simulate::{simulate, Options};
//! use contrib::runtime::Profiles;
//!
//! let profiles = Profiles::builtin();
//! let options = Options { agents: 1, persons: 2, conversations: 1, turns: 3, ..Options::default() };
//! let report = simulate(&[], profiles.get("anthropic").unwrap(), &options);
//! assert_eq!(report.requests, 6);
//! assert_eq!(report.composed.recompositions_per_conversation, 0.0);
//! assert_eq!(report.naive.recompositions_per_conversation, 2.0);
//! ```

mod figures;
mod script;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bundle::Bundle;
use crate::runtime::cache::{Block, CacheTotals, Mark, Request};
use crate::runtime::compose::REQUEST_TOKENIZER;
use crate::runtime::profiles::{Boundary, Caching, Profile};
use crate::runtime::record::{Turn, TurnInput};
use crate::runtime::session::{Person, Session};
use crate::runtime::time::Timestamp;
use crate::runtime::{CliGate, Conversation};
use figures::Layout;
use script::{mix, person, script, session, Rng};

/// The simulation's size and its fixed choices.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Options {
    pub agents: usize,
    pub persons: usize,
    /// Conversations per agent and person.
    pub conversations: usize,
    pub turns: usize,
    pub seed: u64,
    /// The model conversations start on.
    pub model: String,
    /// The model a quarter of conversations switch to.
    pub switch_model: String,
    /// Stored history, in tokens, past which a conversation is compacted.
    /// Far below a real context window, so that conversations of a few
    /// dozen turns see compactions at all.
    pub compact_after_tokens: u64,
    /// What a compaction leaves of the history, in words.
    pub summary_words: usize,
    /// When the simulated week begins.
    pub start: Timestamp,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            agents: 2,
            persons: 4,
            conversations: 3,
            turns: 12,
            seed: 1,
            model: "claude-sonnet-4-5".into(),
            switch_model: "claude-opus-4-1".into(),
            compact_after_tokens: 4_000,
            summary_words: 300,
            start: Timestamp::new(1_772_409_600, 0), // 2026-03-02T00:00:00Z
        }
    }
}

/// The figures for one layout.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Figures {
    /// The system-prompt prefix identical in every request of an agent
    /// (mean over agents).
    pub agent_shared_bytes: f64,
    pub agent_shared_tokens: f64,
    /// The system-prompt prefix identical in every request one person makes
    /// of one agent (mean over agent and person pairs).
    pub person_shared_bytes: f64,
    pub person_shared_tokens: f64,
    /// The mean system prompt.
    pub system_prompt_bytes: f64,
    /// Compositions after the first, per conversation.
    pub recompositions_per_conversation: f64,
    /// Bytes of each request after the prefix it shares with the previous
    /// request of its conversation: what changed or moved (mean per turn).
    pub resent_bytes_per_turn: f64,
    /// Mean request size.
    pub request_bytes: f64,
    pub request_tokens: f64,
    pub cache: CacheTotals,
    /// `cache.cost` against sending every token uncached.
    pub relative_cost: f64,
    /// The cache's tokens hour by hour of simulated time, for charts.
    pub timeline: Vec<Interval>,
}

/// What the cache did in one hour of simulated time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Interval {
    /// Seconds since the simulation's start at which the hour begins.
    pub offset_seconds: i64,
    pub requests: u64,
    pub read_tokens: u64,
    pub write_tokens: u64,
    pub uncached_tokens: u64,
}

/// Both layouts' figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub options: Options,
    pub profile: String,
    /// How the profile caches: the naive layout's breakpoints matter only
    /// when it is explicit.
    pub caching: Caching,
    pub requests: u64,
    pub composed: Figures,
    pub naive: Figures,
    /// Shared prefixes of the composed layout too short for the model to
    /// cache: the composer's warnings, counted.
    pub short_prefixes: Vec<ShortPrefix>,
}

/// How often a shared prefix was under the model's minimum cacheable size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShortPrefix {
    pub boundary: Boundary,
    /// Requests in which it was too short to cache.
    pub requests: u64,
    /// The smallest and largest it was in those requests, in tokens.
    pub fewest_tokens: u64,
    pub most_tokens: u64,
}

impl ShortPrefix {
    /// The warning, in words.
    pub fn describe(&self, requests: u64) -> String {
        let size = if self.fewest_tokens == self.most_tokens {
            format!("{} tokens", self.fewest_tokens)
        } else {
            format!("{} to {} tokens", self.fewest_tokens, self.most_tokens)
        };
        format!(
            "{} ({size}) was shorter than its model's minimum cacheable prefix in {} of {requests} requests, and so not cached on its own",
            self.boundary.describe(),
            self.requests
        )
    }
}

impl Report {
    /// The naive layout's cost as a multiple of the composed one's.
    pub fn naive_cost_ratio(&self) -> f64 {
        ratio(self.naive.cache.cost, self.composed.cache.cost)
    }

    /// The same for a naive host that marks no breakpoints at all, and so
    /// pays for every input token once, without cache writes.
    pub fn naive_unmarked_cost_ratio(&self) -> f64 {
        ratio(
            self.naive.cache.input_tokens as f64,
            self.composed.cache.cost,
        )
    }
}

fn ratio(numerator: f64, denominator: f64) -> f64 {
    if denominator == 0.0 {
        return 0.0;
    }
    numerator / denominator
}

/// Runs the simulation.
pub fn simulate(bundles: &[Bundle], profile: &Profile, options: &Options) -> Report {
    let mut rng = Rng(options.seed);
    let skill_update_at = options.start.plus_seconds(7 * 86_400 / 2);
    let mut composed = Layout::default();
    let mut naive = Layout::default();
    let mut short: BTreeMap<Boundary, ShortPrefix> = BTreeMap::new();
    let mut requests = 0;
    let people: Vec<Person> = (0..options.persons).map(|p| person(p, &mut rng)).collect();
    for agent in 0..options.agents {
        for (p, person) in people.iter().enumerate() {
            for c in 0..options.conversations {
                let session = session(bundles, agent, person, options, &mut rng);
                let script = script(&session, options, skill_update_at, &mut rng);
                let key = Key {
                    agent,
                    person: p,
                    conversation: c,
                };
                let outcome = run(bundles, profile, session, &script, options, key);
                requests += outcome.composed.len() as u64;
                for (boundary, tokens) in outcome.short {
                    let entry = short.entry(boundary).or_insert(ShortPrefix {
                        boundary,
                        requests: 0,
                        fewest_tokens: tokens,
                        most_tokens: tokens,
                    });
                    entry.requests += 1;
                    entry.fewest_tokens = entry.fewest_tokens.min(tokens);
                    entry.most_tokens = entry.most_tokens.max(tokens);
                }
                composed.add(key, outcome.composed, outcome.recompositions);
                naive.add(key, outcome.naive, script.len().saturating_sub(1) as u32);
            }
        }
    }
    Report {
        options: options.clone(),
        profile: profile.name.clone(),
        caching: profile.caching,
        requests,
        composed: composed.figures(profile, options.start),
        naive: naive.figures(profile, options.start),
        short_prefixes: short.into_values().collect(),
    }
}

#[derive(Debug, Clone, Copy)]
struct Key {
    agent: usize,
    person: usize,
    conversation: usize,
}

/// One turn of a conversation's script.
struct Step {
    input: TurnInput,
    user_words: usize,
    reply_words: usize,
}

/// A request with what the figures need beside the cache's view of it.
struct Sent {
    request: Request,
    model: String,
    system_prompt: String,
}

struct Outcome {
    composed: Vec<Sent>,
    naive: Vec<Sent>,
    recompositions: u32,
    /// Each shared prefix too short to cache, with its tokens, per request.
    short: Vec<(Boundary, u64)>,
}

/// Plays one conversation's script in both layouts.
fn run(
    bundles: &[Bundle],
    profile: &Profile,
    session: Session,
    script: &[Step],
    options: &Options,
    key: Key,
) -> Outcome {
    let mut conversation = Conversation::start(bundles, session, CliGate, profile);
    let mut short = Vec::new();
    let mut words = Rng(options.seed ^ mix(key.agent, key.person, key.conversation));
    let mut history: Vec<Text> = Vec::new();
    let mut naive_history: Vec<Text> = Vec::new();
    let mut composed = Vec::new();
    let mut naive = Vec::new();
    for step in script {
        if step.input.compaction {
            let summary = Text::new(words.words(options.summary_words));
            history = vec![summary.clone()];
            naive_history = vec![summary];
        }
        let turn = conversation.turn(step.input.clone());
        let model = conversation.session().model.name.clone();
        let user = Text::new(words.words(step.user_words));
        let reply = Text::new(words.words(step.reply_words));

        let system = conversation.system_prompt();
        let mut blocks = vec![
            Text::new(system.agent_prefix().to_string()),
            Text::new(system.person_part().to_string()),
        ];
        blocks.extend(conversation.opening().iter().map(|item| Text {
            tokens: item.tokens,
            text: item.text.clone(),
        }));
        blocks.extend(history.iter().cloned());
        let history_end = blocks.len();
        let notes: Vec<Text> = turn
            .notes
            .iter()
            .map(|note| Text::new(note.text.clone()))
            .collect();
        blocks.extend(notes.iter().cloned());
        blocks.push(user.clone());
        let boundaries = boundaries(&conversation, &blocks, history_end);
        let placed = profile.place(
            &model,
            &boundaries
                .iter()
                .map(|(b, _, t)| (*b, *t))
                .collect::<Vec<_>>(),
        );
        let minimum = profile.minimum_prefix(&model);
        if profile.caching != Caching::None {
            short.extend(
                boundaries
                    .iter()
                    .filter(|(boundary, _, tokens)| {
                        matches!(boundary, Boundary::Agent | Boundary::Person) && *tokens < minimum
                    })
                    .map(|(boundary, _, tokens)| (*boundary, *tokens)),
            );
        }
        let marks = placed
            .breakpoints
            .iter()
            .filter_map(|breakpoint| {
                let after = boundaries
                    .iter()
                    .find(|(boundary, _, _)| *boundary == breakpoint.after)?
                    .1;
                Some(mark(profile, breakpoint.after, after))
            })
            .collect();
        composed.push(Sent {
            request: request(&model, turn.at, &blocks, marks),
            model: model.clone(),
            system_prompt: system.text.clone(),
        });

        naive.push(naive_request(
            &mut conversation,
            profile,
            &turn,
            &model,
            &naive_history,
            &user,
        ));

        let stored = turn.notes.iter().filter(|note| note.persisted);
        history.extend(stored.map(|note| Text::new(note.text.clone())));
        history.extend([user.clone(), reply.clone()]);
        naive_history.extend([user, reply]);
    }
    Outcome {
        composed,
        naive,
        recompositions: conversation.recompositions(),
        short,
    }
}

/// The composed request's boundaries: (boundary, index of the block it
/// follows, tokens through it). Empty parts are skipped by the profile.
fn boundaries<G: crate::runtime::Gate>(
    conversation: &Conversation<'_, G>,
    blocks: &[Text],
    history_end: usize,
) -> Vec<(Boundary, usize, u64)> {
    let opening_end = 2 + conversation.opening().len();
    [
        (Boundary::Agent, 1),
        (Boundary::Person, 2),
        (Boundary::Opening, opening_end),
        (Boundary::History, history_end),
    ]
    .into_iter()
    .map(|(boundary, end)| {
        let tokens = blocks.iter().take(end).map(|block| block.tokens).sum();
        (boundary, end.saturating_sub(1), tokens)
    })
    .collect()
}

fn naive_request(
    conversation: &mut Conversation<'_, CliGate>,
    profile: &Profile,
    turn: &Turn,
    model: &str,
    history: &[Text],
    user: &Text,
) -> Sent {
    // One block per contribution, so automatic caching can reuse the part
    // of the system prompt before the first value that changed.
    let mut blocks: Vec<Text> = conversation
        .everything_now(turn)
        .into_iter()
        .map(|(text, tokens)| Text {
            text: format!("{text}\n\n"),
            tokens,
        })
        .collect();
    let system_prompt: String = blocks.iter().map(|block| block.text.as_str()).collect();
    let system_end = blocks.len().saturating_sub(1);
    blocks.extend(history.iter().cloned());
    let history_end = blocks.len().saturating_sub(1);
    blocks.push(user.clone());
    // What a host that caches "the system prompt and the history" marks.
    let marks = vec![
        mark(profile, Boundary::History, system_end),
        mark(profile, Boundary::History, history_end),
    ];
    Sent {
        request: request(model, turn.at, &blocks, marks),
        model: model.to_string(),
        system_prompt,
    }
}

fn mark(profile: &Profile, boundary: Boundary, after: usize) -> Mark {
    let lifetime = profile.lifetime(boundary);
    Mark {
        after,
        seconds: lifetime.map_or(0, |lifetime| lifetime.seconds),
        write_multiplier: lifetime.map_or(1.0, |lifetime| lifetime.write_multiplier),
    }
}

/// A block's text and tokens.
#[derive(Debug, Clone)]
struct Text {
    text: String,
    tokens: u64,
}

impl Text {
    fn new(text: String) -> Text {
        Text {
            tokens: REQUEST_TOKENIZER.count(&text) as u64,
            text,
        }
    }
}

fn request(model: &str, at: Timestamp, blocks: &[Text], marks: Vec<Mark>) -> Request {
    // The provider's cache is per model: the model name seeds the chain.
    let mut prefix = fnv(0xcbf2_9ce4_8422_2325, model.as_bytes());
    let blocks = blocks
        .iter()
        .map(|block| {
            prefix = fnv(prefix ^ 0xff, block.text.as_bytes());
            Block {
                prefix,
                tokens: block.tokens,
                bytes: block.text.len() as u64,
            }
        })
        .collect();
    Request {
        at: at.unix_seconds,
        blocks,
        marks,
    }
}

/// FNV-1a, continuing from `hash`.
fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

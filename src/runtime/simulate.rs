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

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::cache::{Block, Cache, CacheTotals, Mark, Request};
use super::compose::REQUEST_TOKENIZER;
use super::profiles::{Boundary, Caching, Profile};
use super::record::{Turn, TurnInput};
use super::session::{Agent, Environment, Model, Person, Session};
use super::time::Timestamp;
use super::{CliGate, Conversation};
use crate::bundle::Bundle;
use crate::ir::Kind;

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
            compact_after_tokens: 8_000,
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
}

/// Both layouts' figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub options: Options,
    pub profile: String,
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
        if self.composed.cache.cost == 0.0 {
            return 0.0;
        }
        self.naive.cache.cost / self.composed.cache.cost
    }
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
        requests,
        composed: composed.figures(profile),
        naive: naive.figures(profile),
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
fn boundaries<G: super::Gate>(
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

/// The requests of one layout, gathered for its figures.
#[derive(Default)]
struct Layout {
    sent: Vec<(Key, Sent)>,
    recompositions: Vec<u32>,
}

impl Layout {
    fn add(&mut self, key: Key, sent: Vec<Sent>, recompositions: u32) {
        self.sent.extend(sent.into_iter().map(|sent| (key, sent)));
        self.recompositions.push(recompositions);
    }

    fn figures(&self, profile: &Profile) -> Figures {
        let mut figures = Figures::default();
        let requests = self.sent.len().max(1) as f64;
        let mut by_agent: BTreeMap<usize, Shared> = BTreeMap::new();
        let mut by_person: BTreeMap<(usize, usize), Shared> = BTreeMap::new();
        let mut previous: HashMap<(usize, usize, usize), &Request> = HashMap::new();
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
            figures.system_prompt_bytes += sent.system_prompt.len() as f64 / requests;
            let request = &sent.request;
            figures.request_bytes +=
                request.blocks.iter().map(|b| b.bytes).sum::<u64>() as f64 / requests;
            figures.request_tokens +=
                request.blocks.iter().map(|b| b.tokens).sum::<u64>() as f64 / requests;
            let id = (key.agent, key.person, key.conversation);
            resent += unshared_bytes(previous.get(&id).copied(), request);
            previous.insert(id, request);
        }
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

const AGENTS: &[&str] = &[
    "Review Assistant",
    "Research Helper",
    "Support Desk",
    "Release Captain",
    "Docs Writer",
];

const FIRST: &[&str] = &[
    "Sam",
    "Ada",
    "Kenji",
    "Priya",
    "Lucía",
    "Tomasz",
    "Amara",
    "Jonas",
    "Mei",
    "Oluwaseun",
];
const LAST: &[&str] = &[
    "Okafor", "Lovelace", "Watanabe", "Raman", "García", "Nowak", "Diallo", "Berg", "Chen",
];
/// Locale, zone label and its offset.
const PLACES: &[(&str, &str, i32)] = &[
    ("en-GB", "Europe/London", 0),
    ("en-US", "America/New_York", -300),
    ("de-DE", "Europe/Berlin", 60),
    ("ja-JP", "Asia/Tokyo", 540),
    ("en-IN", "Asia/Kolkata", 330),
    ("pt-BR", "America/Sao_Paulo", -180),
];

fn person(index: usize, rng: &mut Rng) -> Person {
    let (locale, timezone, offset) = *rng.pick(PLACES);
    Person {
        id: format!("person-{index}"),
        name: format!("{} {}", rng.pick(FIRST), rng.pick(LAST)),
        locale: locale.into(),
        timezone: timezone.into(),
        utc_offset: offset,
    }
}

/// A session for one conversation: the tools and skills the bundles use,
/// started at a random moment of the week.
fn session(
    bundles: &[Bundle],
    agent: usize,
    person: &Person,
    options: &Options,
    rng: &mut Rng,
) -> Session {
    let name = match AGENTS.get(agent) {
        Some(name) => name.to_string(),
        None => format!("Agent {agent}"),
    };
    let mut tools: Vec<String> = bundles
        .iter()
        .flat_map(|bundle| &bundle.contributors)
        .filter(|contributor| contributor.kind == Kind::EagerLoad)
        .flat_map(|contributor| contributor.tools.iter().cloned())
        .chain(["get_current_time".to_string(), "fetch_url".to_string()])
        .collect();
    tools.sort();
    tools.dedup();
    Session {
        started_at: options
            .start
            .plus_seconds(rng.below(6 * 86_400) as i64)
            .at_offset(person.utc_offset),
        tools,
        agent: Agent { name },
        person: Some(person.clone()),
        model: Model {
            name: options.model.clone(),
            effort: Some("medium".into()),
        },
        environment: Environment {
            os: Some("linux".into()),
            arch: Some("x86_64".into()),
            workspace_root: Some(format!("/srv/workspaces/agent-{agent}")),
        },
        skills: skills(bundles),
        permissions: BTreeMap::from([("write_files".to_string(), "ask".to_string())]),
    }
}

/// A version of each required skill that meets every requirement on it.
fn skills(bundles: &[Bundle]) -> BTreeMap<String, semver::Version> {
    let mut requirements: BTreeMap<&str, Vec<semver::VersionReq>> = BTreeMap::new();
    for bundle in bundles {
        for (skill, requirement) in &bundle.requires {
            if let Ok(requirement) = semver::VersionReq::parse(requirement) {
                requirements.entry(skill).or_default().push(requirement);
            }
        }
    }
    requirements
        .into_iter()
        .map(|(skill, requirements)| {
            let candidates = requirements.iter().flat_map(|requirement| {
                requirement.comparators.iter().map(|comparator| {
                    semver::Version::new(
                        comparator.major,
                        comparator.minor.unwrap_or(0),
                        comparator.patch.unwrap_or(0),
                    )
                })
            });
            let version = candidates
                .clone()
                .filter(|version| requirements.iter().all(|r| r.matches(version)))
                .max()
                .or_else(|| candidates.max())
                .unwrap_or_else(|| semver::Version::new(1, 0, 0));
            (skill.to_string(), version)
        })
        .collect()
}

/// A conversation's turns: gaps, who is replying, a model switch, the skill
/// update if the week's midpoint falls inside it, compactions.
fn script(
    session: &Session,
    options: &Options,
    skill_update_at: Timestamp,
    rng: &mut Rng,
) -> Vec<Step> {
    let switch_at = (options.turns > 1 && rng.below(4) == 0)
        .then(|| 1 + rng.below(options.turns as u64 - 1) as usize);
    let mut at = session.started_at;
    let mut skills_updated = session.started_at.unix_seconds >= skill_update_at.unix_seconds;
    let mut history_tokens = 0u64;
    let mut steps = Vec::new();
    for index in 0..options.turns {
        at = at.plus_seconds(gap(rng));
        let mut input = TurnInput::reply_at(at);
        input.replying = rng.below(10) != 0;
        if switch_at == Some(index) {
            input.model = Some(Model {
                name: options.switch_model.clone(),
                effort: session.model.effort.clone(),
            });
        }
        if !skills_updated && at.unix_seconds >= skill_update_at.unix_seconds {
            skills_updated = true;
            input.skills = Some(
                session
                    .skills
                    .iter()
                    .map(|(skill, version)| {
                        (
                            skill.clone(),
                            semver::Version::new(version.major, version.minor + 1, 0),
                        )
                    })
                    .collect(),
            );
        }
        if history_tokens > options.compact_after_tokens {
            input.compaction = true;
            history_tokens = options.summary_words as u64;
        }
        let user_words = 15 + rng.below(100) as usize;
        let reply_words = 40 + rng.below(360) as usize;
        // Roughly 1.3 tokens a word, as the synthetic words tokenize.
        history_tokens += (user_words + reply_words) as u64 * 13 / 10;
        steps.push(Step {
            input,
            user_words,
            reply_words,
        });
    }
    steps
}

/// An idle gap before a turn, in seconds: mostly minutes, sometimes hours,
/// now and then overnight.
fn gap(rng: &mut Rng) -> i64 {
    let roll = rng.below(100);
    let (low, high) = match roll {
        0..70 => (20, 300),
        70..90 => (300, 2 * 3_600),
        90..98 => (2 * 3_600, 12 * 3_600),
        _ => (12 * 3_600, 36 * 3_600),
    };
    (low + rng.below(high - low)) as i64
}

fn mix(agent: usize, person: usize, conversation: usize) -> u64 {
    let mut rng = Rng(((agent as u64) << 40) ^ ((person as u64) << 20) ^ conversation as u64);
    rng.next()
}

/// splitmix64: small, fast, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        self.next() % n
    }

    fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// `count` synthetic words.
    fn words(&mut self, count: usize) -> String {
        const WORDS: &[&str] = &[
            "the", "review", "function", "returns", "a", "value", "when", "cache", "is", "warm",
            "please", "check", "diff", "and", "test", "why", "does", "this", "fail", "on",
            "release", "build", "prefix", "person", "agent", "budget", "token", "we", "should",
            "refactor", "module", "error", "handling", "in", "parser",
        ];
        let mut text = String::new();
        for index in 0..count {
            if index > 0 {
                text.push(' ');
            }
            let word: &&str = self.pick(WORDS);
            text.push_str(word);
        }
        text
    }
}

//! A deterministic simulation of a fleet of conversations, to measure what
//! placement buys in prompt-cache sharing, against what a careful engineer
//! would build without it.
//!
//! **The fleet.** `agents` agents each hold `conversations` conversations
//! with each of `persons` persons. A conversation starts during its
//! person's working week (Monday to Saturday, 08:00 to 20:00 in their own
//! offset, people spread over six time zones), and has from `min_turns` to
//! `turns` turns, short ones commonest. Turns come after random idle gaps
//! (mostly minutes, sometimes hours, now and then overnight, so cache
//! entries expire and dates are crossed); a quarter of the conversations
//! switch model partway; every skill is updated once, halfway through the
//! days conversations start in; a conversation is compacted when its
//! stored history passes a size. With a usage file, each turn calls tools and skill operations at
//! the rates the file records, and a call to something not loaded costs a
//! round. The random numbers come from splitmix64 with the given seed, so
//! a seed always gives the same figures; message texts are synthetic words
//! and tool calls go through [`CliGate`](crate::runtime::CliGate).
//!
//! **The layouts.** Every turn is laid out each way the report compares
//! (see [`LayoutName`] and each layout's `assumptions`), and each layout's
//! requests go, in time order across the whole fleet, through one
//! simulated provider cache under the chosen [`Profile`]:
//!
//! - `contrib`: the cache-optimal layout ([`crate::runtime::layout`]);
//! - `hand-placed` (b): the best a careful engineer builds without contrib;
//! - `uncached` (c): (b)'s requests with no caching;
//! - `naive` (a): every contribution rendered into the system prompt on
//!   every turn, the anti-pattern;
//! - `design-table`: contrib with eager loads in the opening, as the
//!   design's placement table has them;
//! - `contrib-without-eager-loads`, with a usage file: what rounds the
//!   eager loads save.
//!
//! **Cost** counts input tokens at the model's uncached, cache-read and
//! cache-write prices, in units of one uncached input token; output tokens
//! (the same replies in every layout, plus a call per round) are counted
//! and priced apart, in dollars when the profile lists the model.
//!
//! ```
//! use contrib::runtime::simulate::{simulate, Options};
//! use contrib::runtime::Profiles;
//!
//! let profiles = Profiles::builtin();
//! let options = Options { agents: 1, persons: 2, conversations: 1, turns: 3, min_turns: 3, ..Options::default() };
//! let report = simulate(&[], profiles.get("anthropic").unwrap(), &options, None);
//! assert_eq!(report.turns, 6);
//! let contrib = report.layout("contrib").unwrap();
//! assert_eq!(contrib.requests, 6);
//! assert_eq!(contrib.system_prompt_changes_per_conversation, 0.0);
//! ```

mod figures;
mod play;
mod prompt_cache;
mod replay;
mod script;
mod warm;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bundle::usage::{Item, Usage};
use crate::bundle::Bundle;
use crate::ir::Kind;
use crate::runtime::time::Timestamp;
use crate::runtime::Person;
use crate::runtime::TurnInput;
use crate::runtime::{Boundary, Caching, Profile};
pub use figures::{AgentShares, Interval, LayoutReport, PersonShares, Shares, Usd};
use play::Key;
pub use prompt_cache::CacheTotals;
pub use replay::{Expected, Replayable};
use script::{person, script, session, Rng};
pub use warm::Limit;

/// The simulation's size and its fixed choices.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Options {
    pub agents: usize,
    pub persons: usize,
    /// Conversations per agent and person.
    pub conversations: usize,
    /// The most turns a conversation has.
    pub turns: usize,
    /// The fewest; lengths between are drawn with short ones commonest.
    pub min_turns: usize,
    pub seed: u64,
    /// The days (from the start of the week, Monday on) over which
    /// conversations start: 6 spreads them over a working week, 1 puts a
    /// week's conversations into one busy day.
    pub days: u32,
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
    /// When the simulated week begins (a Monday).
    pub start: Timestamp,
    /// Pre-warming, where the profile offers it: how long after its last
    /// use the host keeps an agent prefix warm.
    pub keep_warm_seconds: i64,
    /// Keep contrib's requests (and the pre-warmed layout's), with what the
    /// cache did, in [`Report::replayable`].
    #[serde(skip)]
    pub record_requests: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            agents: 2,
            persons: 4,
            conversations: 3,
            turns: 12,
            min_turns: 1,
            seed: 1,
            days: 6,
            model: "claude-sonnet-4-6".into(),
            switch_model: "claude-opus-4-6".into(),
            compact_after_tokens: 4_000,
            summary_words: 300,
            start: Timestamp::new(1_772_409_600, 0), // 2026-03-02T00:00:00Z
            keep_warm_seconds: 43_200,
            record_requests: false,
        }
    }
}

/// The layouts the report compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LayoutName {
    Contrib,
    #[serde(rename = "contrib-prewarmed")]
    Prewarmed,
    HandPlaced,
    Uncached,
    Naive,
    DesignTable,
    #[serde(rename = "contrib-without-eager-loads")]
    WithoutEagerLoads,
}

impl LayoutName {
    pub const ALL: [LayoutName; 7] = [
        LayoutName::Contrib,
        LayoutName::Prewarmed,
        LayoutName::HandPlaced,
        LayoutName::Uncached,
        LayoutName::Naive,
        LayoutName::DesignTable,
        LayoutName::WithoutEagerLoads,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LayoutName::Contrib => "contrib",
            LayoutName::Prewarmed => "contrib-prewarmed",
            LayoutName::HandPlaced => "hand-placed",
            LayoutName::Uncached => "uncached",
            LayoutName::Naive => "naive",
            LayoutName::DesignTable => "design-table",
            LayoutName::WithoutEagerLoads => "contrib-without-eager-loads",
        }
    }

    /// What the layout is, in a phrase.
    pub fn title(self) -> &'static str {
        match self {
            LayoutName::Contrib => "contrib, cache-optimal",
            LayoutName::Prewarmed => "contrib, agent prefixes pre-warmed",
            LayoutName::HandPlaced => "(b) hand-placed, the fair baseline",
            LayoutName::Uncached => "(c) no caching",
            LayoutName::Naive => "(a) naive, the anti-pattern",
            LayoutName::DesignTable => "contrib, eager loads in the opening",
            LayoutName::WithoutEagerLoads => "contrib without eager loads",
        }
    }

    /// What the layout assumes, sentence by sentence.
    pub fn assumptions(self) -> &'static [&'static str] {
        match self {
            LayoutName::Contrib => &[
                "tools, then the platform and agent parts of the system prompt and the eager-loaded skill operations, then the person part, then the opening, then the stored history with its notes, then this turn's notes and prompt",
                "breakpoints after the agent prefix (1h), the person part, the opening and the stored history (5m), each only where the prefix is long enough for the model to cache",
                "the system prompt is composed once per conversation and again only at a compaction or a model change; notes that change the conversation are stored with it, facts told in full once and then only what changed",
            ],
            LayoutName::Prewarmed => &[
                "contrib's requests, and the host's pre-warm requests (Anthropic's `max_tokens: 0`, OpenAI's `prompt_cache_options.prewarm` from GPT-5.6 on; offered only where the profile has one): the agent prefix and a one-token message, priced like any request, with no output",
                "one a second before each agent prefix's first use (the host sends it when a composition makes a prefix it has not sent: a new version, a skill update reached at a compaction, a model change), and one a minute before the entry would expire while the prefix was used within the keep-warm window (`--keep-warm`, 12 hours by default)",
            ],
            LayoutName::HandPlaced => &[
                "what a careful engineer builds without contrib: the same tools and static system prompt (platform, agent and person texts, the skill operations it would paste in), with breakpoints at its stable boundaries (after the agent part, 1h; after the person part, 5m)",
                "what a conversation starts with (the eager runs' results, conversation texts) computed once and sent as its first message, with a breakpoint after it",
                "the history holds prompts and replies only; everything else that varies (facts in full, the notes that apply this turn, retrieved content) is rebuilt every turn after the history's breakpoint and never stored",
            ],
            LayoutName::Uncached => &[
                "the hand-placed layout's requests with no caching: every input token at the uncached price",
            ],
            LayoutName::Naive => &[
                "the anti-pattern: every contribution (times, person values, eager runs run again, this turn's notes, facts in full) rendered into the system prompt on every turn, in placement order, after the host's tools",
                "breakpoints after the system prompt and after the history, both 5m: the system prompt changes every turn, so neither is ever read by anyone else",
            ],
            LayoutName::DesignTable => &[
                "contrib as the design's placement table has it: eager loads (tool loads and skill reads) in the conversation's opening, after the person part, where no other person's conversation can share them",
            ],
            LayoutName::WithoutEagerLoads => &[
                "contrib with no eager loads: the first call in a conversation (after its last compaction) of each tool or operation the eager loads would have loaded costs a round, a request ending in the load and one more carrying its result",
            ],
        }
    }
}

/// Something the fleet's turns call that an eager load names: its chance
/// per turn (from the usage file) and what it adds when loaded.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Loadable {
    pub item: Item,
    pub per_turn: f64,
    pub tokens: u64,
}

/// Every layout's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub options: Options,
    pub profile: String,
    /// How the profile caches: breakpoints matter only when it is explicit.
    pub caching: Caching,
    /// What cost includes, in a sentence.
    pub cost_includes: &'static str,
    pub conversations: u64,
    pub turns: u64,
    pub layouts: Vec<LayoutReport>,
    /// The hand-placed layout's input cost against contrib's: above 1 when
    /// contrib is cheaper.
    pub fair_ratio: f64,
    /// The same with output tokens priced in, when the profile prices every
    /// model in the fleet.
    pub fair_ratio_with_output: Option<f64>,
    /// Shared prefixes of the contrib layout too short for the model to
    /// cache: the composer's warnings, counted.
    pub short_prefixes: Vec<ShortPrefix>,
    /// With a usage file: what the eager loads save and spend.
    pub eager_loads: Option<EagerLoadFigures>,
    /// Where the profile offers pre-warming: what it cost and saved.
    pub prewarm: Option<PrewarmFigures>,
    /// With [`Options::record_requests`]: contrib's requests, then the
    /// pre-warmed layout's, each in the order the cache saw them.
    #[serde(skip)]
    pub replayable: Vec<Replayable>,
}

/// Pre-warming against contrib's layout alone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrewarmFigures {
    pub keep_warm_seconds: i64,
    pub requests: u64,
    /// Input cost with and without, in uncached-input-token units.
    pub cost_with: f64,
    pub cost_without: f64,
    /// Whether the pre-warmed layout costs less.
    pub pays: bool,
}

/// The eager loads' rounds saved against the budget spent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EagerLoadFigures {
    /// The usage file's digest.
    pub usage: String,
    /// Tokens the eager loads add to every request, on average.
    pub preloaded_tokens_per_request: f64,
    pub rounds_with: u64,
    pub rounds_without: u64,
    pub rounds_saved_per_conversation: f64,
    /// Input cost with and without them, in uncached-input-token units.
    pub cost_with: f64,
    pub cost_without: f64,
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
            "{} ({size}) was shorter than its model's minimum cacheable prefix in {} of {requests} turns, and so not cached on its own",
            self.boundary.describe(),
            self.requests
        )
    }
}

impl Report {
    /// A layout's figures by name.
    pub fn layout(&self, name: &str) -> Option<&LayoutReport> {
        self.layouts.iter().find(|layout| layout.name == name)
    }
}

/// Runs the simulation. `usage`, when given, is what the fleet's turns
/// call: the rates at which each tool and operation an eager load names
/// is called per turn.
pub fn simulate(
    bundles: &[Bundle],
    profile: &Profile,
    options: &Options,
    usage: Option<&Usage>,
) -> Report {
    let mut rng = Rng(options.seed);
    // Halfway through the days conversations start in, so that the update
    // lands inside the fleet's traffic however long it runs.
    let skill_update_at = options
        .start
        .plus_seconds(i64::from(options.days.max(1)) * 86_400 / 2);
    let loadable = usage.map_or_else(Vec::new, |usage| loadable(bundles, usage));
    let rates: Vec<f64> = loadable.iter().map(|item| item.per_turn).collect();
    let mut sent: BTreeMap<LayoutName, Vec<play::Sent>> = BTreeMap::new();
    let mut short: BTreeMap<Boundary, ShortPrefix> = BTreeMap::new();
    let mut recompositions = Vec::new();
    let mut turns = 0;
    let people: Vec<Person> = (0..options.persons).map(|p| person(p, &mut rng)).collect();
    let mut writer = 0u32;
    for agent in 0..options.agents {
        for (index, person) in people.iter().enumerate() {
            for _ in 0..options.conversations {
                let session = session(bundles, agent, person, options, &mut rng);
                let script = script(&session, options, &rates, skill_update_at, &mut rng);
                turns += script.len() as u64;
                let key = Key {
                    agent,
                    person: index,
                    writer,
                };
                writer += 1;
                let played =
                    play::play(bundles, profile, session, &script, &loadable, options, key);
                for (boundary, tokens) in played.short {
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
                recompositions.push(played.recompositions);
                for (name, one) in played.sent {
                    sent.entry(name).or_default().push(one);
                }
            }
        }
    }
    let conversations = u64::from(writer);
    if profile.prewarm.is_some() {
        if let Some(contrib) = sent.get(&LayoutName::Contrib) {
            let mut warmed = contrib.clone();
            warmed.extend(warm::prewarm(contrib, profile, options.keep_warm_seconds));
            sent.insert(LayoutName::Prewarmed, warmed);
        }
    }
    let none = Profile::none();
    let agent_names: Vec<String> = (0..options.agents).map(script::agent_name).collect();
    let mut replayable = Vec::new();
    let mut layouts: Vec<LayoutReport> = Vec::new();
    for name in LayoutName::ALL {
        let (requests, cache_profile) = match name {
            LayoutName::Uncached => (sent.get(&LayoutName::HandPlaced), &none),
            _ => (sent.get(&name), profile),
        };
        let Some(requests) = requests else {
            continue;
        };
        let record =
            options.record_requests && matches!(name, LayoutName::Contrib | LayoutName::Prewarmed);
        layouts.push(figures::figures(
            name,
            requests,
            cache_profile,
            profile,
            conversations,
            &agent_names,
            options.start.unix_seconds,
            record.then_some(&mut replayable),
        ));
    }
    let recomposed = recompositions.iter().map(|&n| f64::from(n)).sum::<f64>();
    for layout in &mut layouts {
        if matches!(
            layout.name,
            "contrib" | "contrib-prewarmed" | "design-table" | "contrib-without-eager-loads"
        ) {
            layout.recompositions_per_conversation = Some(recomposed / conversations.max(1) as f64);
        }
    }
    let find = |name: LayoutName| layouts.iter().find(|layout| layout.name == name.name());
    let fair_ratio = match (find(LayoutName::HandPlaced), find(LayoutName::Contrib)) {
        (Some(hand), Some(contrib)) => ratio(hand.input_cost, contrib.input_cost),
        _ => 0.0,
    };
    let fair_ratio_with_output = match (find(LayoutName::HandPlaced), find(LayoutName::Contrib)) {
        (Some(hand), Some(contrib)) => hand
            .usd
            .as_ref()
            .zip(contrib.usd.as_ref())
            .map(|(hand, contrib)| ratio(hand.total, contrib.total)),
        _ => None,
    };
    let eager_loads = usage.and_then(|usage| {
        let with = find(LayoutName::Contrib)?;
        let without = find(LayoutName::WithoutEagerLoads)?;
        Some(EagerLoadFigures {
            usage: usage.digest.clone(),
            preloaded_tokens_per_request: with.agent_prefix_tokens_per_request
                - without.agent_prefix_tokens_per_request,
            rounds_with: with.rounds,
            rounds_without: without.rounds,
            rounds_saved_per_conversation: (without.rounds as f64 - with.rounds as f64)
                / conversations.max(1) as f64,
            cost_with: with.input_cost,
            cost_without: without.input_cost,
        })
    });
    let prewarm = find(LayoutName::Prewarmed)
        .zip(find(LayoutName::Contrib))
        .map(|(with, without)| PrewarmFigures {
            keep_warm_seconds: options.keep_warm_seconds,
            requests: with.prewarm_requests,
            cost_with: with.input_cost,
            cost_without: without.input_cost,
            pays: with.input_cost < without.input_cost,
        });
    Report {
        options: options.clone(),
        profile: profile.name.clone(),
        caching: profile.caching,
        cost_includes: "input tokens at the model's uncached, cache-read and cache-write prices, in units of one uncached input token; output tokens (the same replies in every layout, plus a call per round) are priced apart, in dollars",
        conversations,
        turns,
        layouts,
        fair_ratio,
        fair_ratio_with_output,
        short_prefixes: short.into_values().collect(),
        eager_loads,
        prewarm,
        replayable,
    }
}

/// The items some eager load names, with the usage file's rate per turn
/// and their size: a chosen-by-usage load's own figures, otherwise the
/// load's measured tokens shared evenly among what it loads. Calls to
/// anything else cost the same in every layout and are left out.
fn loadable(bundles: &[Bundle], usage: &Usage) -> Vec<Loadable> {
    let mut found: BTreeMap<Item, u64> = BTreeMap::new();
    for contributor in bundles
        .iter()
        .flat_map(|bundle| &bundle.contributors)
        .filter(|contributor| contributor.kind == Kind::EagerLoad)
    {
        let mut items: Vec<Item> = contributor
            .tools
            .iter()
            .map(|tool| Item::Tool { tool: tool.clone() })
            .collect();
        if let Some(load) = &contributor.operations {
            items.extend(load.operations.iter().map(|operation| Item::Operation {
                skill: load.skill.clone(),
                operation: operation.clone(),
            }));
        }
        let share = contributor.measured_tokens / items.len().max(1) as u64;
        for item in items {
            found.entry(item).or_insert(share);
        }
        for candidate in contributor
            .choice
            .iter()
            .flat_map(|choice| &choice.candidates)
        {
            found.insert(candidate.item.clone(), candidate.tokens);
        }
    }
    found
        .into_iter()
        .map(|(item, tokens)| Loadable {
            per_turn: usage.per_turn(&item),
            item,
            tokens,
        })
        .filter(|item| item.per_turn > 0.0)
        .collect()
}

fn ratio(numerator: f64, denominator: f64) -> f64 {
    if denominator == 0.0 {
        return 0.0;
    }
    numerator / denominator
}

/// One turn of a conversation's script.
pub(super) struct Step {
    pub input: TurnInput,
    pub user_words: usize,
    pub reply_words: usize,
    /// What the turn calls, as indices into the loadable items.
    pub calls: Vec<usize>,
}

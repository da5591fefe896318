//! Provider prompt-cache profiles, kept as data.
//!
//! A provider caches the prefix of a request that it has seen before, and
//! each provider does it differently: Anthropic caches up to explicit
//! breakpoints (at most 4, each finding an earlier entry only within the 20
//! blocks before it, each a prefix of at least a model's minimum, written
//! at 1.25× or 2× the input price for a 5-minute or 1-hour lifetime, read
//! at 0.1×); OpenAI (before GPT-5.6) caches every prefix from 1,024 tokens
//! on its own, in 128-token steps, and reads it at a per-model discount.
//! Both read tool definitions first. Those rules and every model's minimum
//! and prices change over time, so they live in `profiles.toml`, shipped
//! in the crate and overridable with a file of the same shape
//! ([`Profiles::load`]).
//!
//! The composer asks a profile where to put breakpoints
//! ([`Profile::place`]): where each shared prefix ends — after the agent
//! prefix (tools, the platform and agent parts, eager loads), after the
//! person part, after the conversation opening, after the stored history —
//! within the profile's limit, only where the prefix is long enough to be
//! cached at all, and with a warning for each shared prefix that is not.
//!
//! ```
//! use contrib_runtime::{Boundary, Profiles};
//!
//! let profiles = Profiles::builtin();
//! let anthropic = profiles.get("anthropic").unwrap();
//! assert_eq!(anthropic.minimum_prefix("claude-sonnet-4-6"), 1024);
//! assert_eq!(anthropic.minimum_prefix("claude-haiku-4-5-20251001"), 4096);
//!
//! let placed = anthropic.place(
//!     "claude-sonnet-4-6",
//!     &[(Boundary::Agent, 1_500), (Boundary::Person, 1_500), (Boundary::Opening, 3_200)],
//! );
//! // An empty person part adds no breakpoint of its own.
//! assert_eq!(placed.breakpoints.len(), 2);
//! assert_eq!(placed.breakpoints[0].lifetime, "1h");
//! assert!(placed.warnings.is_empty());
//! ```

mod place;
mod set;
mod validate;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use self::place::{Breakpoint, Placed, Skipped};
pub use self::set::{Profiles, UnknownProfile, DEFAULT_PROFILE};
pub use crate::input::ProfileError;
use contrib_bundle::diff::RewritePrice;

/// How a provider decides what to cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Caching {
    /// The request marks breakpoints (Anthropic-style).
    Explicit,
    /// Every long enough prefix is cached (OpenAI-style).
    Automatic,
    /// Nothing is cached: every request is read at the full price.
    None,
}

/// One provider's caching rules and prices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The profile's key in the file, filled in when loading.
    #[serde(default, skip_deserializing)]
    pub name: String,
    /// Its rules in a line, for people choosing a profile; empty when the
    /// file gives none.
    #[serde(default)]
    pub description: String,
    /// Where its rules come from, with the date they were read.
    #[serde(default)]
    pub source: String,
    /// How the provider decides what to cache, and so whether breakpoints
    /// are placed at all.
    pub caching: Caching,
    /// Explicit caching: breakpoints a request may carry.
    #[serde(default)]
    pub max_breakpoints: usize,
    /// Explicit caching: how many blocks before a breakpoint the provider
    /// looks for an earlier cached prefix; 0 for no limit.
    #[serde(default)]
    pub lookback_blocks: usize,
    /// The order a request's parts are cached in.
    #[serde(default)]
    pub order: Vec<String>,
    /// A prefix shorter than this is never cached, for a model not listed.
    #[serde(default)]
    pub minimum_prefix_tokens: u64,
    /// Automatic caching: cached prefixes grow in steps of this many tokens.
    #[serde(default)]
    pub increment_tokens: u64,
    /// The price of a cached input token, as a multiple of an uncached one,
    /// for a model not listed.
    #[serde(default = "one")]
    pub read_multiplier: f64,
    /// Cache lifetimes on offer, shortest first.
    #[serde(default)]
    pub lifetimes: Vec<Lifetime>,
    /// The model a simulation runs on when none is named.
    #[serde(default)]
    pub default_model: Option<String>,
    /// How the provider takes a request that only fills the cache, when it
    /// takes one.
    #[serde(default)]
    pub prewarm: Option<Prewarm>,
    /// Model name → its minimum and prices.
    #[serde(default)]
    pub models: BTreeMap<String, ModelEntry>,
}

fn one() -> f64 {
    1.0
}

/// A request that fills the cache and generates nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Prewarm {
    /// Anthropic: `max_tokens: 0` "populates the prompt cache without
    /// generating a response".
    MaxTokensZero,
    /// OpenAI, GPT-5.6 on, Responses API: `prompt_cache_options.prewarm`
    /// "prepares the prompt cache without generating output".
    PromptCacheOptions,
}

/// How long a cached prefix lives after its last use, and what writing it
/// costs for a model with no prices of its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lifetime {
    /// What the profile calls it (`5m`, `1h`, `in-memory`): the key of each
    /// model's write prices, and what a breakpoint asks for.
    pub name: String,
    /// How long the prefix lives after its last use, in seconds.
    pub seconds: u64,
    /// The price of a written token, as a multiple of an uncached one.
    pub write_multiplier: f64,
}

/// One model's cache minimum and prices, in USD per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    /// The shortest prefix the model caches.
    pub minimum_prefix_tokens: u64,
    /// An uncached input token.
    pub input: f64,
    /// An output token.
    pub output: f64,
    /// A cache hit.
    pub read: f64,
    /// A cache write, per lifetime name.
    pub write: BTreeMap<String, f64>,
    /// The cache retention a request to this model asks for
    /// (`prompt_cache_retention` on OpenAI's wires), when the model
    /// requires one: `gpt-5.5` and later take only `24h`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention: Option<String>,
    /// Where its figures come from, with the date they were read.
    #[serde(default)]
    pub source: String,
}

/// What tokens cost on one model: multiples of an uncached input token, and
/// dollars when the profile lists the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Rates {
    /// A cache hit: the profile's `read_multiplier` for a model it does
    /// not list.
    pub read: f64,
    /// Per lifetime, in the profile's order.
    pub write: Vec<f64>,
    /// USD per uncached input token.
    pub input_usd: Option<f64>,
    /// USD per output token.
    pub output_usd: Option<f64>,
}

/// Where a shared prefix of a request ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Boundary {
    /// After the tool definitions, the platform and agent parts and the
    /// eager loads: shared by every conversation of the agent.
    Agent,
    /// After the person part: shared by one person's conversations.
    Person,
    /// After the conversation opening: shared by the turns of one
    /// conversation.
    Opening,
    /// After the stored history, before this turn's notes: shared with the
    /// next turn.
    History,
}

impl Boundary {
    /// What the prefix ending here is, in a sentence's words.
    pub fn describe(self) -> &'static str {
        match self {
            Boundary::Agent => "the agent prefix (tools, platform and agent parts, eager loads)",
            Boundary::Person => "the person prefix (through the person part)",
            Boundary::Opening => "the conversation prefix (through the opening)",
            Boundary::History => "the stored history",
        }
    }

    /// Who reads the prefix ending here again.
    fn readers(self) -> &'static str {
        match self {
            Boundary::Agent => "every conversation of the agent, whoever it is with",
            Boundary::Person => "this person's conversations with the agent",
            Boundary::Opening => "the later turns of this conversation, even after a compaction",
            Boundary::History => "the next turn of this conversation",
        }
    }
}

impl Profile {
    /// The profile that caches nothing.
    pub fn none() -> Profile {
        Profile {
            name: "none".into(),
            description: "no prompt caching".into(),
            source: String::new(),
            caching: Caching::None,
            max_breakpoints: 0,
            lookback_blocks: 0,
            order: Vec::new(),
            minimum_prefix_tokens: 0,
            increment_tokens: 0,
            read_multiplier: 1.0,
            lifetimes: Vec::new(),
            default_model: None,
            prewarm: None,
            models: BTreeMap::new(),
        }
    }

    /// The entry for `model`: its own name, or a dated snapshot of it
    /// (`claude-sonnet-4-5-20250929`).
    pub fn model(&self, model: &str) -> Option<&ModelEntry> {
        self.models.get(model).or_else(|| {
            let (base, date) = model.rsplit_once('-')?;
            let dated = date.len() == 8 && date.bytes().all(|byte| byte.is_ascii_digit());
            dated.then(|| self.models.get(base)).flatten()
        })
    }

    /// The shortest prefix `model` caches.
    pub fn minimum_prefix(&self, model: &str) -> u64 {
        self.model(model)
            .map_or(self.minimum_prefix_tokens, |entry| {
                entry.minimum_prefix_tokens
            })
    }

    /// What tokens cost on `model`.
    pub fn rates(&self, model: &str) -> Rates {
        let per_token = |price: f64| price / 1_000_000.0;
        match self.model(model) {
            Some(entry) if entry.input > 0.0 => Rates {
                read: entry.read / entry.input,
                write: self
                    .lifetimes
                    .iter()
                    .map(|lifetime| {
                        entry
                            .write
                            .get(&lifetime.name)
                            .map_or(lifetime.write_multiplier, |price| price / entry.input)
                    })
                    .collect(),
                input_usd: Some(per_token(entry.input)),
                output_usd: Some(per_token(entry.output)),
            },
            _ => Rates {
                read: self.read_multiplier,
                write: self
                    .lifetimes
                    .iter()
                    .map(|lifetime| lifetime.write_multiplier)
                    .collect(),
                input_usd: None,
                output_usd: None,
            },
        }
    }

    /// The index of the lifetime a prefix ending at `boundary` is cached
    /// for: the longest on offer for the agent prefix, which every
    /// conversation of the agent reads, and the shortest for the rest,
    /// whose readers come soon or not at all.
    pub fn lifetime_index(&self, boundary: Boundary) -> Option<usize> {
        match boundary {
            Boundary::Agent => self.lifetimes.len().checked_sub(1),
            _ => (!self.lifetimes.is_empty()).then_some(0),
        }
    }

    /// The lifetime automatic caching keeps `model`'s prefixes for: the one
    /// its `retention` names, otherwise the shortest.
    pub fn retention_index(&self, model: &str) -> usize {
        self.model(model)
            .and_then(|entry| entry.retention.as_deref())
            .and_then(|name| {
                self.lifetimes
                    .iter()
                    .position(|lifetime| lifetime.name == name)
            })
            .unwrap_or(0)
    }

    /// The lifetime a prefix ending at `boundary` is cached for.
    pub fn lifetime(&self, boundary: Boundary) -> Option<&Lifetime> {
        self.lifetime_index(boundary)
            .and_then(|index| self.lifetimes.get(index))
    }

    /// What writing again an invalidated prefix costs under this profile
    /// for `model` (by default the profile's own): how `contrib diff` and
    /// `contrib catalog check` price an update. A profile that caches
    /// nothing reads at the full price.
    pub fn rewrite_price(&self, model: Option<&str>) -> RewritePrice {
        let model = model
            .map(str::to_string)
            .or_else(|| self.default_model.clone())
            .unwrap_or_else(|| "unknown".to_string());
        let rates = self.rates(&model);
        let write = |boundary: Boundary| {
            self.lifetime_index(boundary)
                .and_then(|index| rates.write.get(index).copied())
                .unwrap_or(1.0)
        };
        RewritePrice {
            profile: self.name.clone(),
            read: if self.caching == Caching::None {
                1.0
            } else {
                rates.read
            },
            agent_write: write(Boundary::Agent),
            person_write: write(Boundary::Person),
            model,
            input_usd: rates.input_usd,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_finds_the_profile_that_prices_it() {
        let profiles = Profiles::builtin();
        let name = |model: &str| {
            profiles
                .for_model(model)
                .map(|profile| profile.name.as_str())
        };
        assert_eq!(name("claude-sonnet-4-5-20250929"), Some("anthropic"));
        assert_eq!(name("gpt-5.5"), Some("openai"));
        assert_eq!(name("gpt-5.6-terra"), Some("openai-explicit"));
        assert_eq!(name("gpt-9.9"), None);
        assert!(profiles.models().contains(&"gpt-5.6-luna"));
    }

    #[test]
    fn models_from_gpt_5_5_on_ask_for_the_24_hour_retention_only() {
        let profiles = Profiles::builtin();
        for model in ["gpt-5.5", "gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna"] {
            let entry = profiles
                .for_model(model)
                .and_then(|profile| profile.model(model));
            assert_eq!(
                entry.and_then(|entry| entry.retention.as_deref()),
                Some("24h"),
                "{model}"
            );
        }
    }

    /// The sources, as `profiles.toml` names them beside each value:
    /// Anthropic's prompt-caching and pricing pages
    /// (platform.claude.com/docs/en/build-with-claude/prompt-caching,
    /// platform.claude.com/docs/en/about-claude/pricing) and the anthropic
    /// SDK 2.15.0; OpenAI's prompt-caching guide
    /// (developers.openai.com/api/docs/guides/prompt-caching), its pricing
    /// page as third parties report it, and the openai SDK 3.57.0.
    #[test]
    fn every_profile_and_model_names_its_source_and_the_date_it_was_read() {
        let profiles = Profiles::builtin();
        for profile in profiles.profiles.values() {
            assert!(
                !profile.source.is_empty(),
                "`{}` has no source",
                profile.name
            );
            if profile.caching == Caching::None {
                continue;
            }
            assert!(
                profile.source.contains("(read 2026-"),
                "`{}`: {}",
                profile.name,
                profile.source
            );
            for (model, entry) in &profile.models {
                assert!(
                    entry.source.contains("read 2026-") && entry.source.contains("minimum:"),
                    "`{model}` names no source for its minimum, or no date: {}",
                    entry.source
                );
            }
        }
        let source = |profile: &str| profiles.get(profile).unwrap().source.clone();
        assert!(source("anthropic")
            .contains("platform.claude.com/docs/en/build-with-claude/prompt-caching"));
        assert!(source("anthropic").contains("anthropic SDK 2.15.0"));
        assert!(source("openai").contains("developers.openai.com/api/docs/guides/prompt-caching"));
        assert!(source("openai").contains("openai SDK 3.57.0"));
        assert!(source("openai-explicit").contains("`PromptCacheOptions`"));
        // No first-party minimum was found for Opus 4.7: the entry says so
        // rather than passing a third party's figure off as the provider's.
        let opus = profiles
            .get("anthropic")
            .unwrap()
            .model("claude-opus-4-7")
            .unwrap();
        assert_eq!(opus.minimum_prefix_tokens, 4096);
        assert!(
            opus.source.contains("no first-party statement found"),
            "{}",
            opus.source
        );
    }

    /// anthropic SDK 2.15.0, `message_create_params.py`: `max_tokens` "Set to
    /// `0` to populate the prompt cache without generating a response";
    /// openai SDK 3.57.0, `responses/response_create_params.py`:
    /// `PromptCacheOptions.prewarm` "Prepares the prompt cache without
    /// generating output", "supported for `gpt-5.6` and later models".
    #[test]
    fn pre_warming_is_offered_where_the_sdks_say_it_is() {
        let profiles = Profiles::builtin();
        let prewarm = |name: &str| profiles.get(name).unwrap().prewarm;
        assert_eq!(prewarm("anthropic"), Some(Prewarm::MaxTokensZero));
        assert_eq!(
            prewarm("openai-explicit"),
            Some(Prewarm::PromptCacheOptions)
        );
        assert_eq!(prewarm("openai"), None);
        assert_eq!(prewarm("none"), None);
    }

    /// openai SDK 3.57.0, `chat/completion_create_params.py`,
    /// `prompt_cache_retention`: `24h` "keeps cached prefixes active for
    /// longer, up to a maximum of 24 hours"; "for `gpt-5.5`, `gpt-5.5-pro`,
    /// and future models, only `24h` is supported".
    #[test]
    fn automatic_caching_keeps_a_prefix_for_the_retention_its_model_asks_for() {
        let profiles = Profiles::builtin();
        let openai = profiles.get("openai").unwrap();
        let lifetime = |model: &str| &openai.lifetimes[openai.retention_index(model)];
        assert_eq!(
            (
                lifetime("gpt-5.5").name.as_str(),
                lifetime("gpt-5.5").seconds
            ),
            ("24h", 86_400)
        );
        assert_eq!(lifetime("gpt-4o").name, "in-memory");
        assert_eq!(lifetime("gpt-5.4").seconds, 300);
    }

    #[test]
    fn every_model_a_profile_names_has_a_minimum_and_prices_that_make_sense() {
        let profiles = Profiles::builtin();
        for profile in profiles.profiles.values() {
            let mut named: Vec<&str> = profile.models.keys().map(String::as_str).collect();
            named.extend(profile.default_model.as_deref());
            for model in named {
                let entry = profile.model(model).unwrap_or_else(|| {
                    panic!("`{}` names `{model}` but lists no entry", profile.name)
                });
                assert!(entry.minimum_prefix_tokens >= 256, "{model}");
                assert_eq!(profile.minimum_prefix(model), entry.minimum_prefix_tokens);
                assert!(
                    entry.read < entry.input,
                    "{model}: a hit costs less than input"
                );
                assert!(
                    entry.output >= entry.input,
                    "{model}: output costs at least input"
                );
                for lifetime in &profile.lifetimes {
                    let write = entry.write[&lifetime.name];
                    assert!(
                        write >= entry.input,
                        "{model}: a write costs at least input"
                    );
                }
            }
        }
        let anthropic = profiles.get("anthropic").unwrap();
        assert_eq!(anthropic.models.len(), 18);
        assert!(profiles
            .get("openai")
            .unwrap()
            .models
            .contains_key("gpt-5.5"));
    }

    #[test]
    fn dated_snapshots_find_their_model_and_others_fall_back() {
        let profiles = Profiles::builtin();
        let anthropic = profiles.get("anthropic").unwrap();
        assert_eq!(anthropic.minimum_prefix("claude-opus-4-5-20251101"), 4096);
        // No prefix matching: Opus 4.5's entry is not Opus 4's, whose
        // snapshot falls back to the profile's minimum.
        assert_eq!(anthropic.minimum_prefix("claude-opus-4-20250514"), 1024);
        assert!(anthropic.model("claude-opus-4-20250514").is_none());
        assert!(anthropic.model("claude-opus-4-5-x").is_none());
        assert_eq!(anthropic.minimum_prefix("claude-unknown"), 1024);
        let rates = anthropic.rates("claude-sonnet-4-6");
        assert!((rates.read - 0.1).abs() < 1e-9);
        assert_eq!(rates.write.len(), 2);
        assert!((rates.write[1] - 2.0).abs() < 1e-9);
        assert!(rates.input_usd.is_some());
        let unknown = anthropic.rates("claude-unknown");
        assert_eq!(unknown.input_usd, None);
        assert!((unknown.write[0] - 1.25).abs() < 1e-9);
        let openai = profiles.get("openai").unwrap();
        assert!((openai.rates("gpt-4o").read - 0.5).abs() < 1e-9);
        assert!((openai.rates("gpt-5.5").write[0] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn an_update_is_priced_by_its_profile() {
        let profiles = Profiles::builtin();
        let anthropic = profiles.get("anthropic").unwrap().rewrite_price(None);
        assert_eq!(
            Some(&anthropic.model),
            profiles.get("anthropic").unwrap().default_model.as_ref()
        );
        assert!(anthropic.read < 1.0, "{anthropic:?}");
        // The agent prefix lives longest, so writing it costs most.
        assert!(
            anthropic.agent_write > anthropic.person_write,
            "{anthropic:?}"
        );
        assert!(anthropic.input_usd.is_some());
        let none = Profile::none().rewrite_price(Some("anything"));
        assert_eq!((none.read, none.model.as_str()), (1.0, "anything"));
        assert_eq!(none.input_usd, None);
    }
}

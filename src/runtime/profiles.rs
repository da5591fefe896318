//! Provider prompt-cache profiles, kept as data.
//!
//! A provider caches the prefix of a request that it has seen before, and
//! each provider does it differently: Anthropic caches up to explicit
//! breakpoints (at most 4, each a prefix of at least a model-dependent
//! minimum, written at 1.25× or 2× the input price for a 5-minute or 1-hour
//! lifetime, read at 0.1×); OpenAI caches every prefix from 1,024 tokens on
//! its own and reads it at a discount. Those rules change over time, so they
//! live in `profiles.toml`, shipped in the crate and overridable with a file
//! of the same shape ([`Profiles::load`]).
//!
//! The composer asks a profile where to put breakpoints
//! ([`Profile::place`]): where each shared prefix ends — after the agent
//! part of the system prompt, after the person part, after the conversation
//! opening, after the stored history — within the profile's limit, and with
//! a warning for each shared prefix too short to be cached at all.
//!
//! ```
//! use contrib::runtime::{Boundary, Profiles};
//!
//! let profiles = Profiles::builtin();
//! let anthropic = profiles.get("anthropic").unwrap();
//! assert_eq!(anthropic.minimum_prefix("claude-sonnet-4-5"), 1024);
//! assert_eq!(anthropic.minimum_prefix("claude-haiku-4-5-20251001"), 4096);
//!
//! let placed = anthropic.place(
//!     "claude-sonnet-4-5",
//!     &[(Boundary::Agent, 1_500), (Boundary::Person, 1_500), (Boundary::Opening, 3_200)],
//! );
//! // An empty person part adds no breakpoint of its own.
//! assert_eq!(placed.breakpoints.len(), 2);
//! assert_eq!(placed.breakpoints[0].lifetime, "1h");
//! assert!(placed.warnings.is_empty());
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

const BUILTIN: &str = include_str!("profiles.toml");

/// How a provider decides what to cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Caching {
    /// The request marks breakpoints (Anthropic-style).
    Explicit,
    /// Every long enough prefix is cached (OpenAI-style).
    Automatic,
    None,
}

/// One provider's caching rules and prices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The profile's key in the file, filled in when loading.
    #[serde(default, skip_deserializing)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub caching: Caching,
    /// Explicit caching: breakpoints a request may carry.
    #[serde(default)]
    pub max_breakpoints: usize,
    /// The order a request's parts are cached in.
    #[serde(default)]
    pub order: Vec<String>,
    /// A prefix shorter than this is never cached.
    #[serde(default)]
    pub minimum_prefix_tokens: u64,
    /// Model-name prefix → its own minimum; the longest match wins.
    #[serde(default)]
    pub minimum_prefix_by_model: BTreeMap<String, u64>,
    /// Automatic caching: cached prefixes grow in steps of this many tokens.
    #[serde(default)]
    pub increment_tokens: u64,
    /// The price of a cached input token, as a multiple of an uncached one.
    #[serde(default = "one")]
    pub read_multiplier: f64,
    /// Cache lifetimes on offer, shortest first.
    #[serde(default)]
    pub lifetimes: Vec<Lifetime>,
}

fn one() -> f64 {
    1.0
}

/// How long a cached prefix lives after its last use, and what writing it
/// costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lifetime {
    pub name: String,
    pub seconds: u64,
    /// The price of a written token, as a multiple of an uncached one.
    pub write_multiplier: f64,
}

/// Where a shared prefix of a request ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Boundary {
    /// After the platform and agent parts: shared by every conversation of
    /// the agent.
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
            Boundary::Agent => "the agent prefix (platform and agent parts)",
            Boundary::Person => "the person prefix (through the person part)",
            Boundary::Opening => "the conversation prefix (through the opening)",
            Boundary::History => "the stored history",
        }
    }
}

/// A cache breakpoint the composer placed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Breakpoint {
    pub after: Boundary,
    /// Tokens from the start of the request through the boundary.
    pub tokens: u64,
    /// The lifetime asked for, by the profile's name for it.
    pub lifetime: String,
}

/// The breakpoints for a request, and why some prefixes will not be cached.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Placed {
    pub breakpoints: Vec<Breakpoint>,
    pub warnings: Vec<String>,
}

impl Profile {
    /// The profile that caches nothing.
    pub fn none() -> Profile {
        Profile {
            name: "none".into(),
            description: "no prompt caching".into(),
            caching: Caching::None,
            max_breakpoints: 0,
            order: Vec::new(),
            minimum_prefix_tokens: 0,
            minimum_prefix_by_model: BTreeMap::new(),
            increment_tokens: 0,
            read_multiplier: 1.0,
            lifetimes: Vec::new(),
        }
    }

    /// The shortest prefix `model` caches.
    pub fn minimum_prefix(&self, model: &str) -> u64 {
        self.minimum_prefix_by_model
            .iter()
            .filter(|(prefix, _)| model.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map_or(self.minimum_prefix_tokens, |(_, tokens)| *tokens)
    }

    /// The lifetime a prefix ending at `boundary` is cached for: the longest
    /// on offer for the agent prefix, which every conversation of the agent
    /// reads, and the shortest for the rest, whose readers come soon or not
    /// at all.
    pub fn lifetime(&self, boundary: Boundary) -> Option<&Lifetime> {
        match boundary {
            Boundary::Agent => self.lifetimes.last(),
            _ => self.lifetimes.first(),
        }
    }

    /// Breakpoints at `boundaries` (each with the tokens through it, in
    /// request order), keeping the earliest ones when the profile allows
    /// fewer, and skipping a boundary that adds nothing to the one before.
    /// Only explicit profiles take breakpoints, but every caching profile
    /// warns when a shared prefix is too short to be cached.
    pub fn place(&self, model: &str, boundaries: &[(Boundary, u64)]) -> Placed {
        let mut placed = Placed::default();
        if self.caching == Caching::None {
            return placed;
        }
        let minimum = self.minimum_prefix(model);
        let mut previous = 0;
        for &(boundary, tokens) in boundaries {
            if tokens == previous {
                continue;
            }
            previous = tokens;
            if tokens < minimum && matches!(boundary, Boundary::Agent | Boundary::Person) {
                placed.warnings.push(format!(
                    "{} is {tokens} tokens, shorter than the {minimum} `{model}` needs under the `{}` profile: it is not cached on its own",
                    boundary.describe(),
                    self.name
                ));
            }
            if self.caching == Caching::Explicit && placed.breakpoints.len() < self.max_breakpoints
            {
                placed.breakpoints.push(Breakpoint {
                    after: boundary,
                    tokens,
                    lifetime: self
                        .lifetime(boundary)
                        .map_or_else(String::new, |lifetime| lifetime.name.clone()),
                });
            }
        }
        placed
    }
}

/// A set of profiles by name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Profiles {
    pub profiles: BTreeMap<String, Profile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfilesFile {
    profiles: BTreeMap<String, Profile>,
}

impl Profiles {
    /// The profiles shipped in the crate: `anthropic`, `openai`, `none`.
    pub fn builtin() -> Profiles {
        let profiles = Profiles::from_toml(BUILTIN);
        debug_assert!(profiles.is_ok(), "the shipped profiles.toml is invalid");
        profiles.unwrap_or_else(|_| Profiles {
            profiles: BTreeMap::from([("none".to_string(), Profile::none())]),
        })
    }

    /// Reads profiles from TOML of the shipped file's shape.
    pub fn from_toml(text: &str) -> Result<Profiles, String> {
        let file: ProfilesFile =
            toml::from_str(text).map_err(|error| error.message().to_string())?;
        let profiles = file
            .profiles
            .into_iter()
            .map(|(name, profile)| {
                let profile = Profile {
                    name: name.clone(),
                    ..profile
                };
                profile.validate().map(|()| (name, profile))
            })
            .collect::<Result<_, _>>()?;
        Ok(Profiles { profiles })
    }

    /// Reads a profiles file.
    pub fn load(path: &Path) -> Result<Profiles, String> {
        let text = crate::fs::read_text(path, crate::limits::files::RUNTIME_INPUT)?;
        Profiles::from_toml(&text).map_err(|error| format!("`{}`: {error}", path.display()))
    }

    pub fn get(&self, name: &str) -> Option<&Profile> {
        self.profiles.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.profiles.keys().map(String::as_str)
    }
}

impl Profile {
    /// What serde cannot say: a caching profile has a lifetime, prices are
    /// not negative, lifetimes come shortest first.
    fn validate(&self) -> Result<(), String> {
        let name = &self.name;
        if self.caching != Caching::None && self.lifetimes.is_empty() {
            return Err(format!("profile `{name}` caches but has no `lifetimes`"));
        }
        if self.caching == Caching::Explicit && self.max_breakpoints == 0 {
            return Err(format!(
                "profile `{name}` has explicit caching but no `max_breakpoints`"
            ));
        }
        let mut prices = std::iter::once(self.read_multiplier).chain(
            self.lifetimes
                .iter()
                .map(|lifetime| lifetime.write_multiplier),
        );
        if prices.any(|price| !price.is_finite() || price < 0.0) {
            return Err(format!("profile `{name}` has a negative or infinite price"));
        }
        if self
            .lifetimes
            .windows(2)
            .any(|pair| pair[0].seconds > pair[1].seconds)
        {
            return Err(format!(
                "profile `{name}` must list its lifetimes shortest first"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_profiles_load() {
        let profiles = Profiles::from_toml(BUILTIN).unwrap();
        assert_eq!(
            profiles.names().collect::<Vec<_>>(),
            ["anthropic", "none", "openai"]
        );
        assert_eq!(profiles.get("anthropic").unwrap().max_breakpoints, 4);
    }

    #[test]
    fn short_shared_prefixes_warn_and_the_limit_holds() {
        let profiles = Profiles::builtin();
        let mut anthropic = profiles.get("anthropic").unwrap().clone();
        anthropic.max_breakpoints = 2;
        let placed = anthropic.place(
            "claude-sonnet-4-5",
            &[
                (Boundary::Agent, 300),
                (Boundary::Person, 400),
                (Boundary::Opening, 2_000),
            ],
        );
        assert_eq!(placed.breakpoints.len(), 2);
        assert_eq!(placed.warnings.len(), 2, "{:?}", placed.warnings);
        assert!(placed.warnings[0].starts_with("the agent prefix"));
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(Profiles::from_toml("[profiles.x]\ncaching = \"explicit\"\n").is_err());
        assert!(Profiles::from_toml("nonsense").is_err());
    }
}

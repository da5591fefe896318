//! Where a request's cache breakpoints go under a profile: at the end of
//! each shared prefix, within the profile's limit, only where the prefix is
//! long enough to be cached, with a warning for each that is not.

use serde::Serialize;

use super::{Boundary, Caching, Profile};

/// A cache breakpoint the composer placed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Breakpoint {
    /// The shared prefix it ends.
    pub after: Boundary,
    /// Tokens from the start of the request through the boundary.
    pub tokens: u64,
    /// The lifetime asked for, by the profile's name for it.
    pub lifetime: String,
    /// Why it is here and lives that long, in a sentence.
    pub why: String,
}

/// A boundary that got no breakpoint, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The shared prefix that ends there.
    pub after: Boundary,
    /// Tokens from the start of the request through the boundary.
    pub tokens: u64,
    /// Why no breakpoint went there, in a sentence.
    pub why: String,
}

/// The breakpoints for a request, the boundaries that got none and why,
/// and warnings for shared prefixes too short to be cached.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Placed {
    /// The breakpoints placed, in request order; empty under a profile that
    /// is not explicit.
    pub breakpoints: Vec<Breakpoint>,
    /// The boundaries that got none, in request order.
    pub skipped: Vec<Skipped>,
    /// One sentence for each shared prefix (the history aside) shorter than
    /// the model caches.
    pub warnings: Vec<String>,
}

impl Profile {
    /// Breakpoints at `boundaries` (each with the tokens through it, in
    /// request order), keeping the earliest ones when the profile allows
    /// fewer, skipping a boundary that adds nothing to the one before, and
    /// never spending one on a prefix shorter than the model caches. Only
    /// explicit profiles take breakpoints, but every caching profile warns
    /// when a shared prefix is too short to be cached.
    pub fn place(&self, model: &str, boundaries: &[(Boundary, u64)]) -> Placed {
        let mut placed = Placed::default();
        let minimum = self.minimum_prefix(model);
        let mut previous = 0;
        for &(boundary, tokens) in boundaries {
            let mut skip = |why: String| {
                placed.skipped.push(Skipped {
                    after: boundary,
                    tokens,
                    why,
                });
            };
            if self.caching == Caching::None {
                skip(format!("the `{}` profile caches nothing", self.name));
                continue;
            }
            if tokens == previous {
                skip("it adds nothing to the prefix before it".to_string());
                continue;
            }
            previous = tokens;
            if tokens < minimum {
                skip(format!(
                    "it is shorter than the {minimum} tokens `{model}` caches, so no breakpoint is spent on it"
                ));
                // The history grows turn by turn: being short now is no news.
                if boundary != Boundary::History {
                    placed.warnings.push(format!(
                        "{} is {tokens} tokens, shorter than the {minimum} `{model}` caches under the `{}` profile: {}",
                        boundary.describe(),
                        self.name,
                        match self.caching {
                            Caching::Explicit => "no breakpoint is spent on it, and it is cached only inside a longer prefix",
                            _ => "it is cached only inside a longer prefix",
                        }
                    ));
                }
                continue;
            }
            match self.caching {
                Caching::Explicit if placed.breakpoints.len() < self.max_breakpoints => {
                    placed.breakpoints.push(self.breakpoint(boundary, tokens));
                }
                Caching::Explicit => skip(format!(
                    "the {} breakpoints the `{}` profile allows are spent on earlier prefixes",
                    self.max_breakpoints, self.name
                )),
                _ => skip(format!(
                    "the `{}` profile caches every long enough prefix by itself",
                    self.name
                )),
            }
        }
        placed
    }

    fn breakpoint(&self, boundary: Boundary, tokens: u64) -> Breakpoint {
        let lifetime = self.lifetime(boundary);
        let name = lifetime.map_or_else(String::new, |lifetime| lifetime.name.clone());
        let longest = boundary == Boundary::Agent && self.lifetimes.len() > 1;
        let why = if longest {
            format!(
                "{tokens} tokens read again by {}; cached for {name}, the longest lifetime on offer, as its readers are spread over the day",
                boundary.readers()
            )
        } else {
            format!(
                "{tokens} tokens read again by {}; cached for {name}, the shortest lifetime on offer, as its readers come soon or not at all",
                boundary.readers()
            )
        };
        Breakpoint {
            after: boundary,
            tokens,
            lifetime: name,
            why,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Profiles;
    use super::*;

    #[test]
    fn short_prefixes_take_no_breakpoint_and_warn_and_the_limit_holds() {
        let profiles = Profiles::builtin();
        let mut anthropic = profiles.get("anthropic").unwrap().clone();
        let placed = anthropic.place(
            "claude-sonnet-4-6",
            &[
                (Boundary::Agent, 300),
                (Boundary::Person, 400),
                (Boundary::Opening, 900),
                (Boundary::History, 2_000),
            ],
        );
        assert_eq!(placed.breakpoints.len(), 1, "{:?}", placed.breakpoints);
        assert_eq!(placed.breakpoints[0].after, Boundary::History);
        assert_eq!(placed.warnings.len(), 3, "{:?}", placed.warnings);
        assert_eq!(
            placed.skipped[0].why,
            "it is shorter than the 1024 tokens `claude-sonnet-4-6` caches, so no breakpoint is spent on it"
        );
        assert!(placed.warnings[0].starts_with("the agent prefix"));
        assert!(placed.warnings[2].starts_with("the conversation prefix"));

        anthropic.max_breakpoints = 2;
        let placed = anthropic.place(
            "claude-sonnet-4-6",
            &[
                (Boundary::Agent, 1_300),
                (Boundary::Person, 1_400),
                (Boundary::Opening, 2_000),
            ],
        );
        let after: Vec<Boundary> = placed.breakpoints.iter().map(|b| b.after).collect();
        assert_eq!(after, [Boundary::Agent, Boundary::Person]);
        assert!(placed.skipped[0]
            .why
            .starts_with("the 2 breakpoints the `anthropic` profile allows"));
        assert_eq!(
            placed.breakpoints[0].why,
            "1300 tokens read again by every conversation of the agent, whoever it is with; cached for 1h, the longest lifetime on offer, as its readers are spread over the day"
        );
        assert!(placed.breakpoints[0]
            .why
            .contains("1h, the longest lifetime"));
        assert!(placed.breakpoints[1]
            .why
            .contains("5m, the shortest lifetime"));
    }

    #[test]
    fn automatic_profiles_warn_but_take_no_breakpoints() {
        let profiles = Profiles::builtin();
        let openai = profiles.get("openai").unwrap();
        let placed = openai.place(
            "gpt-5.5",
            &[(Boundary::Agent, 600), (Boundary::Person, 2_000)],
        );
        assert!(placed.breakpoints.is_empty());
        assert_eq!(placed.warnings.len(), 1);
        assert_eq!(
            placed.skipped[1].why,
            "the `openai` profile caches every long enough prefix by itself"
        );
    }
}

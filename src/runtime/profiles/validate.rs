//! What a profiles file must hold beyond its shape.

use std::fmt;

use super::{Caching, Profile};

/// A profile the shape allows but that cannot be placed or priced with.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProfileError {
    /// It caches but says for how long nothing.
    NoLifetimes { profile: String },
    /// Explicit caching with no breakpoint to place.
    NoBreakpoints { profile: String },
    /// `order` starts with something other than `tools`.
    ToolsNotFirst { profile: String },
    /// A price is negative, infinite or not a number.
    BadPrice { profile: String },
    /// Lifetimes are not shortest first.
    LifetimesOutOfOrder { profile: String },
    /// A model with no minimum prefix to cache.
    NoMinimumPrefix { profile: String, model: String },
    /// A model with no write price for one of the lifetimes.
    NoWritePrice {
        profile: String,
        model: String,
        lifetime: String,
    },
    /// The default model is not one the profile lists.
    UnlistedDefaultModel { profile: String, model: String },
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::NoLifetimes { profile } => {
                write!(f, "profile `{profile}` caches but has no `lifetimes`")
            }
            ProfileError::NoBreakpoints { profile } => write!(
                f,
                "profile `{profile}` has explicit caching but no `max_breakpoints`"
            ),
            ProfileError::ToolsNotFirst { profile } => write!(
                f,
                "profile `{profile}` must list `tools` first in `order`: both providers read tool definitions first"
            ),
            ProfileError::BadPrice { profile } => {
                write!(f, "profile `{profile}` has a negative or infinite price")
            }
            ProfileError::LifetimesOutOfOrder { profile } => write!(
                f,
                "profile `{profile}` must list its lifetimes shortest first"
            ),
            ProfileError::NoMinimumPrefix { profile, model } => write!(
                f,
                "model `{model}` of profile `{profile}` has no `minimum_prefix_tokens`"
            ),
            ProfileError::NoWritePrice {
                profile,
                model,
                lifetime,
            } => write!(
                f,
                "model `{model}` of profile `{profile}` has no write price for the `{lifetime}` lifetime"
            ),
            ProfileError::UnlistedDefaultModel { profile, model } => write!(
                f,
                "profile `{profile}` names `{model}` as its default model but does not list it"
            ),
        }
    }
}

impl std::error::Error for ProfileError {}

impl Profile {
    /// What serde cannot say: a caching profile has a lifetime, prices are
    /// not negative, lifetimes come shortest first, every model has a
    /// minimum and a write price for every lifetime, and tools come first.
    pub(super) fn validate(&self) -> Result<(), ProfileError> {
        let profile = self.name.clone();
        if self.caching != Caching::None && self.lifetimes.is_empty() {
            return Err(ProfileError::NoLifetimes { profile });
        }
        if self.caching == Caching::Explicit && self.max_breakpoints == 0 {
            return Err(ProfileError::NoBreakpoints { profile });
        }
        if self.order.first().is_some_and(|first| first != "tools") {
            return Err(ProfileError::ToolsNotFirst { profile });
        }
        let mut prices = std::iter::once(self.read_multiplier)
            .chain(
                self.lifetimes
                    .iter()
                    .map(|lifetime| lifetime.write_multiplier),
            )
            .chain(self.models.values().flat_map(|entry| {
                [entry.input, entry.output, entry.read]
                    .into_iter()
                    .chain(entry.write.values().copied())
            }));
        if prices.any(|price| !price.is_finite() || price < 0.0) {
            return Err(ProfileError::BadPrice { profile });
        }
        if self
            .lifetimes
            .windows(2)
            .any(|pair| pair[0].seconds > pair[1].seconds)
        {
            return Err(ProfileError::LifetimesOutOfOrder { profile });
        }
        for (model, entry) in &self.models {
            if entry.minimum_prefix_tokens == 0 {
                return Err(ProfileError::NoMinimumPrefix {
                    profile,
                    model: model.clone(),
                });
            }
            if let Some(lifetime) = self
                .lifetimes
                .iter()
                .find(|lifetime| !entry.write.contains_key(&lifetime.name))
            {
                return Err(ProfileError::NoWritePrice {
                    profile,
                    model: model.clone(),
                    lifetime: lifetime.name.clone(),
                });
            }
        }
        if let Some(model) = &self.default_model {
            if self.model(model).is_none() {
                return Err(ProfileError::UnlistedDefaultModel {
                    profile,
                    model: model.clone(),
                });
            }
        }
        Ok(())
    }
}

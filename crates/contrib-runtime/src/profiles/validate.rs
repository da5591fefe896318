//! What a profiles file must hold beyond its shape.

use super::{Caching, Profile};
use crate::input::ProfileError;

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

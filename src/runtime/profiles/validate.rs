//! What a profiles file must hold beyond its shape.

use super::{Caching, Profile};

impl Profile {
    /// What serde cannot say: a caching profile has a lifetime, prices are
    /// not negative, lifetimes come shortest first, every model has a
    /// minimum and a write price for every lifetime, and tools come first.
    pub(super) fn validate(&self) -> Result<(), String> {
        let name = &self.name;
        if self.caching != Caching::None && self.lifetimes.is_empty() {
            return Err(format!("profile `{name}` caches but has no `lifetimes`"));
        }
        if self.caching == Caching::Explicit && self.max_breakpoints == 0 {
            return Err(format!(
                "profile `{name}` has explicit caching but no `max_breakpoints`"
            ));
        }
        if self.order.first().is_some_and(|first| first != "tools") {
            return Err(format!(
                "profile `{name}` must list `tools` first in `order`: both providers read tool definitions first"
            ));
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
        for (model, entry) in &self.models {
            if entry.minimum_prefix_tokens == 0 {
                return Err(format!(
                    "model `{model}` of profile `{name}` has no `minimum_prefix_tokens`"
                ));
            }
            if let Some(lifetime) = self
                .lifetimes
                .iter()
                .find(|lifetime| !entry.write.contains_key(&lifetime.name))
            {
                return Err(format!(
                    "model `{model}` of profile `{name}` has no write price for the `{}` lifetime",
                    lifetime.name
                ));
            }
        }
        if let Some(model) = &self.default_model {
            if self.model(model).is_none() {
                return Err(format!(
                    "profile `{name}` names `{model}` as its default model but does not list it"
                ));
            }
        }
        Ok(())
    }
}

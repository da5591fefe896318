//! The cache cost of an update, for `contrib diff` and `contrib catalog
//! check`: a profile's prices and the user's traffic assumption.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::bundle::diff::{self, Change, RewritePrice, Traffic};
use crate::bundle::Bundle;
use crate::runtime::{Profiles, DEFAULT_PROFILE};

#[derive(Args)]
pub(super) struct RewriteArgs {
    /// The provider cache profile the re-write cost is priced under.
    #[arg(long, default_value = DEFAULT_PROFILE)]
    profile: String,
    /// A profiles file replacing the shipped `profiles.toml`.
    #[arg(long, value_name = "FILE")]
    profiles: Option<PathBuf>,
    /// The model (default: the profile's).
    #[arg(long)]
    model: Option<String>,
    /// What is warm when the update lands (TOML: `agents`, `models`,
    /// `persons`, `agent_prefix_tokens`, `person_part_tokens`); by default
    /// one agent on one model with ten people, and prefixes as large as the
    /// plugin's own.
    #[arg(long, value_name = "FILE")]
    traffic: Option<PathBuf>,
}

impl RewriteArgs {
    /// The traffic and prices, or why they cannot be had.
    pub(super) fn pricing(&self) -> Result<(Traffic, RewritePrice), String> {
        let profiles = match &self.profiles {
            Some(path) => Profiles::load(path).map_err(|error| error.to_string())?,
            None => Profiles::builtin(),
        };
        let price = profiles
            .named(Some(&self.profile))
            .map_err(|unknown| unknown.to_string())?
            .rewrite_price(self.model.as_deref());
        let traffic = match &self.traffic {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|error| format!("cannot read `{}`: {error}", path.display()))?;
                toml::from_str(&text)
                    .map_err(|error| format!("`{}`: {}", path.display(), error.message()))?
            }
            None => Traffic::default(),
        };
        Ok((traffic, price))
    }
}

/// The line under an update's changes: what the update as a whole writes
/// again, once.
pub(super) fn print_update(
    out: &mut dyn Write,
    changes: &[Change],
    new: &Bundle,
    traffic: &Traffic,
    price: &RewritePrice,
) -> std::io::Result<()> {
    match diff::update_rewrite(changes, new, traffic, price) {
        Some((placement, rewrite)) => {
            let usd = rewrite
                .extra_usd
                .map_or_else(String::new, |usd| format!(" (${usd:.4})"));
            writeln!(
                out,
                "  cache: the update invalidates cached prefixes up to {placement} placement: about {} tokens in {} entries written again instead of read, {:.0} uncached-input-token units more{usd}, once; assuming {}",
                rewrite.tokens, rewrite.entries, rewrite.extra_cost, rewrite.assumes
            )
        }
        None => writeln!(out, "  cache: the update invalidates no cached prefix"),
    }
}

//! What `contrib compose` and `contrib simulate` share: the cache profile
//! they lay requests out for.

use std::path::PathBuf;

use clap::Args;

use crate::runtime::{Profile, Profiles};

#[derive(Args)]
pub(super) struct CacheArgs {
    /// The provider cache profile: `anthropic`, `openai`, `none`, or one
    /// from `--profiles` [default: `anthropic`, or the wire's provider's
    /// with `compose --wire`].
    #[arg(long)]
    profile: Option<String>,
    /// A profiles file replacing the shipped `profiles.toml`.
    #[arg(long, value_name = "FILE")]
    profiles: Option<PathBuf>,
}

impl CacheArgs {
    /// The profiles file, or the shipped one.
    pub(super) fn profiles(&self) -> Result<Profiles, String> {
        match &self.profiles {
            Some(path) => Profiles::load(path),
            None => Ok(Profiles::builtin()),
        }
    }

    /// The profile asked for, or `anthropic`.
    pub(super) fn profile(&self) -> Result<Profile, String> {
        self.profile_or("anthropic")
    }

    /// The profile asked for, or `default`.
    pub(super) fn profile_or(&self, default: &str) -> Result<Profile, String> {
        let profiles = self.profiles()?;
        let name = self.profile.as_deref().unwrap_or(default);
        profiles.get(name).cloned().ok_or_else(|| {
            format!(
                "there is no cache profile `{name}`; there are: {}",
                profiles.names().collect::<Vec<_>>().join(", ")
            )
        })
    }
}

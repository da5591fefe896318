//! What `contrib compose` and `contrib simulate` share: the cache profile
//! they lay requests out for.

use std::path::PathBuf;

use clap::Args;

use crate::runtime::{Profile, Profiles};

#[derive(Args)]
pub(super) struct CacheArgs {
    /// The provider cache profile: `anthropic`, `openai`, `none`, or one
    /// from `--profiles`.
    #[arg(long, default_value = "anthropic")]
    profile: String,
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

    pub(super) fn profile(&self) -> Result<Profile, String> {
        let profiles = self.profiles()?;
        profiles.get(&self.profile).cloned().ok_or_else(|| {
            format!(
                "there is no cache profile `{}`; there are: {}",
                self.profile,
                profiles.names().collect::<Vec<_>>().join(", ")
            )
        })
    }
}

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
            Some(path) => Profiles::load(path).map_err(|error| error.to_string()),
            None => Ok(Profiles::builtin()),
        }
    }

    /// The profile asked for, or the default one.
    pub(super) fn profile(&self) -> Result<Profile, String> {
        let profiles = self.profiles()?;
        profiles
            .named(self.profile.as_deref())
            .cloned()
            .map_err(|unknown| unknown.to_string())
    }

    /// The profile asked for, or the one that prices `model`; a model no
    /// profile prices is refused with the ones they do.
    pub(super) fn profile_for_model(&self, model: &str) -> Result<Profile, String> {
        if self.profile.is_some() {
            return self.profile();
        }
        let profiles = self.profiles()?;
        profiles.for_model(model).cloned().ok_or_else(|| {
            format!(
                "no cache profile knows the model `{model}`; they know: {}. Give `--profile` to choose one",
                profiles.models().join(", ")
            )
        })
    }
}

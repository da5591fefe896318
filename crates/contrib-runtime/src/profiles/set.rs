//! The profiles by name: the shipped file or the user's, and the lookup
//! every caller shares.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;

use super::Profile;
use crate::input::InputError;

/// The shipped profiles.
const BUILTIN: &str = include_str!("../profiles.toml");

/// The profile used when none is named.
pub const DEFAULT_PROFILE: &str = "anthropic";

/// No profile has the name asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProfile {
    /// The name asked for.
    pub name: String,
    /// The names there are, in order.
    pub known: Vec<String>,
}

impl fmt::Display for UnknownProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "there is no cache profile `{}`; there are: {}",
            self.name,
            self.known.join(", ")
        )
    }
}

impl std::error::Error for UnknownProfile {}

/// A set of profiles by name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Profiles {
    /// Each profile by its key in the file, which is also its `name`.
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
    pub fn from_toml(text: &str) -> Result<Profiles, InputError> {
        let file: ProfilesFile = toml::from_str(text)?;
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
    pub fn load(path: &Path) -> Result<Profiles, InputError> {
        let text = contrib_core::fs::read_text(path, contrib_core::limits::files::RUNTIME_INPUT)?;
        Profiles::from_toml(&text).map_err(|error| error.in_file(path))
    }

    /// The profile `name`, if there is one.
    pub fn get(&self, name: &str) -> Option<&Profile> {
        self.profiles.get(name)
    }

    /// The profile `name`, or [`DEFAULT_PROFILE`] when none is named: the
    /// one lookup the command line, the language server and hosts share.
    pub fn named(&self, name: Option<&str>) -> Result<&Profile, UnknownProfile> {
        let name = name.unwrap_or(DEFAULT_PROFILE);
        self.get(name).ok_or_else(|| UnknownProfile {
            name: name.to_string(),
            known: self.names().map(str::to_string).collect(),
        })
    }

    /// The profiles' names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.profiles.keys().map(String::as_str)
    }

    /// The profile that prices `model` (by name, or as a dated snapshot of
    /// a named one), the first by name when several do.
    pub fn for_model(&self, model: &str) -> Option<&Profile> {
        self.profiles
            .values()
            .find(|profile| profile.model(model).is_some())
    }

    /// Every model some profile prices, in order.
    pub fn models(&self) -> Vec<&str> {
        let mut models: Vec<&str> = self
            .profiles
            .values()
            .flat_map(|profile| profile.models.keys().map(String::as_str))
            .collect();
        models.sort_unstable();
        models.dedup();
        models
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::ProfileError;

    #[test]
    fn the_shipped_profiles_load() {
        let profiles = Profiles::from_toml(BUILTIN).unwrap();
        assert_eq!(
            profiles.names().collect::<Vec<_>>(),
            ["anthropic", "none", "openai", "openai-explicit"]
        );
        assert_eq!(profiles.get("anthropic").unwrap().max_breakpoints, 4);
        assert_eq!(profiles.get("openai-explicit").unwrap().max_breakpoints, 4);
    }

    #[test]
    fn a_profile_is_looked_up_by_name_or_the_default_and_an_unknown_one_names_the_others() {
        let profiles = Profiles::builtin();
        assert_eq!(profiles.named(None).unwrap().name, DEFAULT_PROFILE);
        assert_eq!(profiles.named(Some("openai")).unwrap().name, "openai");
        let unknown = profiles.named(Some("gemini")).unwrap_err();
        assert_eq!(unknown.known, profiles.names().collect::<Vec<_>>());
        let message = unknown.to_string();
        assert!(message.starts_with("there is no cache profile `gemini`; there are: "));
        assert!(message.contains("anthropic, none"), "{message}");
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(Profiles::from_toml("[profiles.x]\ncaching = \"explicit\"\n").is_err());
        assert!(Profiles::from_toml("nonsense").is_err());
        let no_minimum = r#"
            [profiles.x]
            caching = "automatic"
            lifetimes = [{ name = "5m", seconds = 300, write_multiplier = 1.0 }]
            [profiles.x.models]
            "m" = { minimum_prefix_tokens = 0, input = 1.0, output = 2.0, read = 0.1, write = { "5m" = 1.0 } }
        "#;
        let error = Profiles::from_toml(no_minimum).unwrap_err();
        assert!(
            matches!(
                &error,
                InputError::Profile(ProfileError::NoMinimumPrefix { profile, model })
                    if profile == "x" && model == "m"
            ),
            "{error:?}"
        );
        let error = error.to_string();
        assert!(error.contains("has no `minimum_prefix_tokens`"), "{error}");
        let missing_write = no_minimum
            .replace("minimum_prefix_tokens = 0", "minimum_prefix_tokens = 1024")
            .replace("\"5m\" = 1.0 }", "}");
        let error = Profiles::from_toml(&missing_write).unwrap_err().to_string();
        assert!(
            error.contains("no write price for the `5m` lifetime"),
            "{error}"
        );
        let tools_last = "[profiles.x]\ncaching = \"none\"\norder = [\"system\", \"tools\"]\n";
        assert!(Profiles::from_toml(tools_last)
            .unwrap_err()
            .to_string()
            .contains("`tools` first"));
    }
}

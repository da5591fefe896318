//! Why a host's input file was refused: a session or a profiles file.
//!
//! One type for both, since both are read the same way: a file read with a
//! size limit, TOML of a fixed shape, then what the shape cannot say.

use std::fmt;
use std::path::PathBuf;

/// Why a session or profiles file, or its text, was refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum InputError {
    /// The file could not be read.
    Read(contrib_core::fs::Error),
    /// The text is not TOML of the expected shape; the parser's message.
    Shape(String),
    /// The person's time zone is not one this system knows, and no fixed
    /// offset stands in for it.
    UnknownTimezone(String),
    /// A profile the shape allows but the runtime cannot place or price with.
    Profile(ProfileError),
    /// What was wrong with the text of the file at `path`.
    In {
        /// The file, as the host named it.
        path: PathBuf,
        /// What was wrong with its text.
        error: Box<InputError>,
    },
}

impl InputError {
    /// The same error, said of the file at `path`.
    pub(super) fn in_file(self, path: &std::path::Path) -> InputError {
        InputError::In {
            path: path.to_path_buf(),
            error: Box::new(self),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Read(error) => error.fmt(f),
            InputError::Shape(message) => f.write_str(message),
            InputError::UnknownTimezone(zone) => write!(
                f,
                "`{zone}` is not a time zone this system knows; write an IANA name such as `Europe/London`, or give `utc_offset = \"+01:00\"`"
            ),
            InputError::Profile(error) => error.fmt(f),
            InputError::In { path, error } => write!(f, "`{}`: {error}", path.display()),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InputError::Read(error) => Some(error),
            InputError::Profile(error) => Some(error),
            InputError::In { error, .. } => Some(error.as_ref()),
            InputError::Shape(_) | InputError::UnknownTimezone(_) => None,
        }
    }
}

impl From<contrib_core::fs::Error> for InputError {
    fn from(error: contrib_core::fs::Error) -> InputError {
        InputError::Read(error)
    }
}

impl From<toml::de::Error> for InputError {
    fn from(error: toml::de::Error) -> InputError {
        InputError::Shape(error.message().to_string())
    }
}

impl From<ProfileError> for InputError {
    fn from(error: ProfileError) -> InputError {
        InputError::Profile(error)
    }
}

/// A profile the shape allows but that cannot be placed or priced with.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProfileError {
    /// It caches but says for how long nothing.
    NoLifetimes {
        /// The profile's name: its key in the profiles file.
        profile: String,
    },
    /// Explicit caching with no breakpoint to place.
    NoBreakpoints {
        /// The profile's name: its key in the profiles file.
        profile: String,
    },
    /// `order` starts with something other than `tools`.
    ToolsNotFirst {
        /// The profile's name: its key in the profiles file.
        profile: String,
    },
    /// A price is negative, infinite or not a number.
    BadPrice {
        /// The profile's name: its key in the profiles file.
        profile: String,
    },
    /// Lifetimes are not shortest first.
    LifetimesOutOfOrder {
        /// The profile's name: its key in the profiles file.
        profile: String,
    },
    /// A model with no minimum prefix to cache.
    NoMinimumPrefix {
        /// The profile's name: its key in the profiles file.
        profile: String,
        /// The model's name, as the profile lists it.
        model: String,
    },
    /// A model with no write price for one of the lifetimes.
    NoWritePrice {
        /// The profile's name: its key in the profiles file.
        profile: String,
        /// The model's name, as the profile lists it.
        model: String,
        /// The lifetime with no price, by its name (`1h`).
        lifetime: String,
    },
    /// The default model is not one the profile lists.
    UnlistedDefaultModel {
        /// The profile's name: its key in the profiles file.
        profile: String,
        /// The model `default_model` names.
        model: String,
    },
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

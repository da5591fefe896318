//! Reading a bundle back, refusing anything that is not exactly what a
//! build writes: an unknown format, a shape the schema does not allow, a
//! digest that does not match the content.

use contrib_core::vocabulary::names::is_kebab;
use std::fmt;
use std::path::Path;

use super::{digest_of, Bundle, FORMAT};

/// Why bytes are not a loadable bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The file could not be read.
    Io(String),
    /// The bytes are not JSON.
    NotJson(String),
    /// A `format` this build does not know (or none).
    UnknownFormat(Option<u64>),
    /// JSON, but not the bundle schema.
    Schema(String),
    /// The bundle has no `digest`.
    MissingDigest,
    /// The content does not hash to the recorded digest: edited or corrupt.
    DigestMismatch { recorded: String, actual: String },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io(message) => write!(f, "{message}"),
            LoadError::NotJson(message) => write!(f, "the bundle is not JSON: {message}"),
            LoadError::UnknownFormat(Some(format)) => {
                write!(f, "the bundle is format {format}, but this build reads formats 1 to {FORMAT}")
            }
            LoadError::UnknownFormat(None) => write!(f, "the bundle has no `format` number"),
            LoadError::Schema(message) => write!(f, "the bundle does not follow the bundle schema: {message}"),
            LoadError::MissingDigest => write!(f, "the bundle has no `digest`"),
            LoadError::DigestMismatch { recorded, actual } => write!(
                f,
                "the bundle's content does not match its digest: it records {recorded} but hashes to {actual}; it was edited or corrupted after it was built"
            ),
        }
    }
}

impl std::error::Error for LoadError {}

impl Bundle {
    /// Loads and verifies a bundle from its bytes.
    ///
    /// ```
    /// use contrib_bundle::{Bundle, LoadError};
    /// assert!(matches!(Bundle::from_bytes(b"not json"), Err(LoadError::NotJson(_))));
    /// assert!(matches!(Bundle::from_bytes(br#"{"format": 9}"#), Err(LoadError::UnknownFormat(Some(9)))));
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Bundle, LoadError> {
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|error| LoadError::NotJson(error.to_string()))?;
        let format = value.get("format").and_then(serde_json::Value::as_u64);
        let (bundle, actual) = match format {
            Some(1) => {
                let old: super::v1::Bundle = serde_json::from_value(value)
                    .map_err(|error| LoadError::Schema(error.to_string()))?;
                let actual = old
                    .digest()
                    .map_err(|error| LoadError::Schema(error.to_string()))?;
                (old.upgrade(), actual)
            }
            Some(current) if current == u64::from(FORMAT) => {
                let bundle: Bundle = serde_json::from_value(value)
                    .map_err(|error| LoadError::Schema(error.to_string()))?;
                let actual =
                    digest_of(&bundle).map_err(|error| LoadError::Schema(error.to_string()))?;
                (bundle, actual)
            }
            other => return Err(LoadError::UnknownFormat(other)),
        };
        bundle.validate()?;
        let recorded = bundle.digest.clone().ok_or(LoadError::MissingDigest)?;
        if recorded != actual {
            return Err(LoadError::DigestMismatch { recorded, actual });
        }
        Ok(bundle)
    }

    /// Loads and verifies the bundle at `path`.
    pub fn load(path: &Path) -> Result<Bundle, LoadError> {
        let bytes = contrib_core::fs::read_limited(path, contrib_core::limits::files::BUNDLE)
            .map_err(|error| LoadError::Io(error.into()))?;
        Bundle::from_bytes(&bytes)
    }

    /// What the schema says that types alone cannot: a `scope/name`
    /// plugin, digests of the right shape, each kind with its own fields.
    fn validate(&self) -> Result<(), LoadError> {
        if !is_plugin_name(&self.plugin) {
            return Err(LoadError::Schema(format!(
                "`plugin` is `{}`, not `scope/name`",
                self.plugin
            )));
        }
        if let Some(digest) = &self.digest {
            let hex = digest.strip_prefix("sha256:").unwrap_or_default();
            if hex.len() != 64
                || !hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            {
                return Err(LoadError::Schema(
                    "`digest` is not `sha256:` and 64 lowercase hex digits".into(),
                ));
            }
        }
        for contributor in &self.contributors {
            if !is_kebab(&contributor.id) {
                return Err(LoadError::Schema(format!(
                    "contributor id `{}` is not kebab-case",
                    contributor.id
                )));
            }
            // Where it goes is the table's to say, not the bundle's: a
            // bundle that claims otherwise was not written by a build.
            let always = contributor.activation.is_none();
            let expected = contributor
                .kind
                .spec()
                .delivery(contributor.placement, always);
            if contributor.delivery != expected
                || !contributor
                    .kind
                    .spec()
                    .allows_placement(contributor.placement)
            {
                return Err(LoadError::Schema(format!(
                    "contributor `{}` is a `{}` at `{}` delivered as `{:?}`, which no build writes",
                    contributor.id, contributor.kind, contributor.placement, contributor.delivery
                )));
            }
        }
        Ok(())
    }
}

/// `scope/name`, each kebab-case: the only plugin names a path may be
/// made of.
pub fn is_plugin_name(text: &str) -> bool {
    text.split_once('/')
        .is_some_and(|(scope, name)| is_kebab(scope) && is_kebab(name))
}

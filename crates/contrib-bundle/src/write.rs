//! Writing bundles: frozen, atomic, in `<scope>/<name>/<version>.bundle.json`.

use std::path::{Path, PathBuf};

use super::{canonical_bytes, Bundle, LoadError, NoCanonicalForm};
use contrib_core::fs::{self, Mode, Root};
use contrib_core::limits::files::BUNDLE;

/// What writing a bundle did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// A new file.
    Created(PathBuf),
    /// The same content was already there.
    Unchanged(PathBuf),
    /// Another content is there under this version (or one equal to it
    /// under SemVer precedence, `version`); nothing was written.
    Frozen {
        path: PathBuf,
        version: semver::Version,
        published: String,
        built: String,
    },
}

/// Why a bundle was not written; nothing was.
#[derive(Debug)]
#[non_exhaustive]
pub enum WriteError {
    /// The file system refused the write.
    Fs(fs::Error),
    /// The bundle has no canonical bytes.
    NoCanonicalForm(NoCanonicalForm),
    /// The bytes load back as another bundle than `bundle`
    /// (`plugin@version`).
    NotAsBuilt { bundle: String },
    /// The bytes do not load back at all.
    DoesNotLoad { bundle: String, source: LoadError },
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Fs(error) => error.fmt(f),
            WriteError::NoCanonicalForm(error) => error.fmt(f),
            WriteError::NotAsBuilt { bundle } => write!(
                f,
                "{bundle} would not load back as it was built (a number beyond what JSON carries exactly?); nothing was written"
            ),
            WriteError::DoesNotLoad { bundle, source } => write!(
                f,
                "{bundle} would not load back ({source}); nothing was written"
            ),
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::Fs(error) => Some(error),
            WriteError::NoCanonicalForm(error) => Some(error),
            WriteError::NotAsBuilt { .. } => None,
            WriteError::DoesNotLoad { source, .. } => Some(source),
        }
    }
}

impl From<fs::Error> for WriteError {
    fn from(error: fs::Error) -> WriteError {
        WriteError::Fs(error)
    }
}

into_text!(WriteError);

/// Where a bundle lives under `folder`.
pub fn bundle_path(folder: &Path, plugin: &str, version: &semver::Version) -> PathBuf {
    let mut path = folder.to_path_buf();
    for part in plugin.split('/') {
        path.push(part);
    }
    path.push(format!("{version}.bundle.json"));
    path
}

/// Writes `bundle` under `root` unless a bundle for the same version (or
/// one that differs only in build metadata) is already there. The write
/// is atomic and never passes through a link out of `root`; the bytes are
/// read back first, so a bundle that could not be loaded (a value the
/// format cannot carry) is refused rather than published.
pub fn write_bundle(root: &Root, bundle: &Bundle) -> Result<Written, WriteError> {
    let path = bundle_path(root.path(), &bundle.plugin, &bundle.version);
    let built = bundle.digest.clone().unwrap_or_default();
    if let Some((existing, version)) = same_version(root, &path, &bundle.version) {
        let published = match root.read(&existing, BUNDLE) {
            Ok(bytes) => match Bundle::from_bytes(&bytes) {
                Ok(existing) => existing.digest.unwrap_or_default(),
                Err(error) => format!("an unreadable bundle ({error})"),
            },
            Err(message) => format!("an unreadable bundle ({message})"),
        };
        return Ok(if published == built && existing == path {
            Written::Unchanged(path)
        } else {
            Written::Frozen {
                path: existing,
                version,
                published,
                built,
            }
        });
    }
    let bytes = canonical_bytes(bundle).map_err(WriteError::NoCanonicalForm)?;
    check_loads_back(bundle, &bytes)?;
    if let Some(parent) = path.parent() {
        root.create_folders(parent)?;
    }
    fs::write_new(&path, &bytes, Mode::Shared)?;
    Ok(Written::Created(path))
}

/// A bundle already written for `version`, or for a version equal to it
/// under SemVer precedence, beside `path`.
fn same_version(
    root: &Root,
    path: &Path,
    version: &semver::Version,
) -> Option<(PathBuf, semver::Version)> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Some((path.to_path_buf(), version.clone()));
    }
    let folder = root.resolve(path.parent()?).ok()?;
    let entries = std::fs::read_dir(folder).ok()?;
    let mut found: Vec<(PathBuf, semver::Version)> = entries
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().to_string_lossy().into_owned();
            let other = semver::Version::parse(name.strip_suffix(".bundle.json")?).ok()?;
            other
                .cmp_precedence(version)
                .is_eq()
                .then(|| (path.with_file_name(&name), other))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// Refuses bytes that would not load back as `bundle`: what is published
/// must be what the runtime can load.
fn check_loads_back(bundle: &Bundle, bytes: &[u8]) -> Result<(), WriteError> {
    match Bundle::from_bytes(bytes) {
        Ok(loaded) if loaded == *bundle => Ok(()),
        Ok(_) => Err(WriteError::NotAsBuilt {
            bundle: bundle.id(),
        }),
        Err(source) => Err(WriteError::DoesNotLoad {
            bundle: bundle.id(),
            source,
        }),
    }
}

//! Writing bundles: frozen, atomic, in `<scope>/<name>/<version>.bundle.json`.

use std::path::{Path, PathBuf};

use super::{canonical_bytes, Bundle};
use crate::fs::{self, Mode, Root};
use crate::limits::files::BUNDLE;

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
pub fn write_bundle(root: &Root, bundle: &Bundle) -> Result<Written, String> {
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
    let bytes = canonical_bytes(bundle)?;
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
fn check_loads_back(bundle: &Bundle, bytes: &[u8]) -> Result<(), String> {
    match Bundle::from_bytes(bytes) {
        Ok(loaded) if loaded == *bundle => Ok(()),
        Ok(_) => Err(format!(
            "{} would not load back as it was built (a number beyond what JSON carries exactly?); nothing was written",
            bundle.id()
        )),
        Err(error) => Err(format!(
            "{} would not load back ({error}); nothing was written",
            bundle.id()
        )),
    }
}

//! Writing bundles: frozen, atomic, in `<scope>/<name>/<version>.bundle.json`.

use std::path::{Path, PathBuf};

use super::{canonical_bytes, Bundle};

/// What writing a bundle did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// A new file.
    Created(PathBuf),
    /// The same content was already there.
    Unchanged(PathBuf),
    /// Another content is published under this version; nothing was written.
    Frozen {
        path: PathBuf,
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

/// Writes `bundle` under `folder` unless a different bundle for the same
/// version is already there. The write is atomic: a temporary file in the
/// same folder, renamed into place, so an interrupted build leaves nothing
/// half-written.
pub fn write_bundle(folder: &Path, bundle: &Bundle) -> Result<Written, String> {
    let path = bundle_path(folder, &bundle.plugin, &bundle.version);
    let built = bundle.digest.clone().unwrap_or_default();
    if path.exists() {
        let published = match Bundle::load(&path) {
            Ok(existing) => existing.digest.unwrap_or_default(),
            Err(error) => format!("an unreadable bundle ({error})"),
        };
        return Ok(if published == built {
            Written::Unchanged(path)
        } else {
            Written::Frozen {
                path,
                published,
                built,
            }
        });
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|error| format!("cannot create `{}`: {error}", parent.display()))?;
    }
    write_new(&path, &canonical_bytes(bundle)?)?;
    Ok(Written::Created(path))
}

/// Writes a file that must not exist yet, atomically: if another writer got
/// there first, the rename is refused rather than overwriting its file.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let folder = path.parent().unwrap_or(Path::new("."));
    let fail = |error: std::io::Error| format!("cannot write `{}`: {error}", path.display());
    let mut temporary = tempfile::NamedTempFile::new_in(folder).map_err(fail)?;
    temporary.write_all(bytes).map_err(fail)?;
    temporary.as_file().sync_all().map_err(fail)?;
    temporary
        .persist_noclobber(path)
        .map_err(|error| fail(error.error))?;
    Ok(())
}

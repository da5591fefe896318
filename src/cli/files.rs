//! Finding and reading manifests.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::limits::MAX_FILE_BYTES;

/// The name of the file that lists what a folder search skips.
pub const IGNORE_FILE: &str = ".contribignore";

/// The manifests named by `paths`: files as given, folders searched
/// recursively for `*.contrib`, each folder's entries in name order.
///
/// A search skips the files and folders listed in a `.contribignore` (as
/// `.prettierignore` and `.eslintignore` do for their tools) in the folder
/// searched, a folder above it, or any folder the search enters: one path
/// per line, relative to that file, `#` starting a comment. A path named
/// on the command line is always checked.
pub fn manifests(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    for path in paths {
        let metadata = std::fs::metadata(path)
            .map_err(|error| format!("cannot read `{}`: {}", path.display(), describe(&error)))?;
        if metadata.is_dir() {
            let excluded = path
                .canonicalize()
                .ok()
                .and_then(|folder| folder.parent().map(excluded_above))
                .unwrap_or_default();
            walk(path, &excluded, &mut found)?;
        } else {
            found.push(path.clone());
        }
    }
    Ok(found)
}

/// A folder's entries, in name order, so every walk is deterministic.
pub fn sorted_entries(folder: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(folder).map_err(|error| {
        format!(
            "cannot read folder `{}`: {}",
            folder.display(),
            describe(&error)
        )
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    paths.sort();
    Ok(paths)
}

fn walk(folder: &Path, excluded: &[PathBuf], found: &mut Vec<PathBuf>) -> Result<(), String> {
    let paths = sorted_entries(folder)?;
    let mut excluded = excluded.to_vec();
    if let Ok(canonical) = folder.canonicalize() {
        excluded.extend(excluded_by(&canonical));
    }
    for path in paths {
        let Ok(file_type) = std::fs::symlink_metadata(&path).map(|m| m.file_type()) else {
            continue;
        };
        let skip = path
            .canonicalize()
            .is_ok_and(|canonical| excluded.contains(&canonical));
        if skip {
            continue;
        }
        if file_type.is_dir() {
            walk(&path, &excluded, found)?;
        } else if path
            .extension()
            .is_some_and(|extension| extension == "contrib")
        {
            found.push(path);
        }
    }
    Ok(())
}

/// The paths excluded by the ignore files in `folder` and the folders
/// above it.
fn excluded_above(folder: &Path) -> Vec<PathBuf> {
    folder.ancestors().flat_map(excluded_by).collect()
}

/// The paths `folder/.contribignore` lists, as canonical paths; paths that
/// do not exist exclude nothing.
fn excluded_by(folder: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(folder.join(IGNORE_FILE)) else {
        return Vec::new();
    };
    text.lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|entry| !entry.is_empty())
        .filter_map(|entry| folder.join(entry).canonicalize().ok())
        .collect()
}

/// Reads at most one byte more than the size limit, so a huge file is
/// refused without being read whole.
pub fn read_limited(path: &Path) -> Result<Vec<u8>, String> {
    let file = File::open(path)
        .map_err(|error| format!("cannot read `{}`: {}", path.display(), describe(&error)))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read `{}`: {}", path.display(), describe(&error)))?;
    Ok(bytes)
}

/// An I/O error without Rust's "(os error 2)" tail.
pub fn describe(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::IsADirectory => "it is a folder".into(),
        _ => {
            let text = error.to_string();
            match text.find(" (os error") {
                Some(cut) => text[..cut].to_string(),
                None => text,
            }
        }
    }
}

/// A path as shown in reports: relative to the working folder when under
/// it, with `/` separators.
pub fn display_name(path: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(&cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf());
    relative.to_string_lossy().replace('\\', "/")
}

/// Replaces `path`'s contents so that no reader ever sees half a file: the
/// bytes go to a temporary file in the same folder, which is then renamed
/// over the original, keeping its permissions.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let folder = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let fail =
        |error: std::io::Error| format!("cannot write `{}`: {}", path.display(), describe(&error));
    let permissions = std::fs::metadata(path)
        .ok()
        .map(|metadata| metadata.permissions());
    if permissions
        .as_ref()
        .is_some_and(std::fs::Permissions::readonly)
    {
        return Err(fail(std::io::ErrorKind::PermissionDenied.into()));
    }
    let mut temporary = tempfile::Builder::new()
        .prefix(".contrib-")
        .suffix(".tmp")
        .tempfile_in(folder)
        .map_err(fail)?;
    temporary.write_all(bytes).map_err(fail)?;
    if let Some(permissions) = permissions {
        temporary
            .as_file()
            .set_permissions(permissions)
            .map_err(fail)?;
    }
    temporary.as_file().sync_all().map_err(fail)?;
    temporary.persist(path).map_err(|error| fail(error.error))?;
    Ok(())
}

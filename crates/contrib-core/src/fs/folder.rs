//! Writing a whole folder at once: built beside its destination, then
//! renamed into place, so a reader sees the old folder or the new one,
//! never half of either.

use std::path::{Path, PathBuf};

use super::{cannot, create_folder, write_new, Error, Mode};

/// What may be at the destination already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// Nothing, or an empty folder.
    Never,
    /// Also a folder with files in it, which is replaced whole: files of
    /// an earlier write that this one does not have do not linger.
    Whole,
}

/// Writes `files` (paths relative to `folder`, `/`-separated) as the whole
/// of `folder`. The folder and the files follow the user's umask. A
/// symbolic link at `folder` is refused, as is a file.
pub fn write_folder(folder: &Path, files: &[(&str, &[u8])], replace: Replace) -> Result<(), Error> {
    let existing = match std::fs::symlink_metadata(folder) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            return Err(Error::LinkInTheWay(folder.to_path_buf()))
        }
        Ok(metadata) if !metadata.is_dir() => {
            return Err(Error::FileInTheWay(folder.to_path_buf()))
        }
        Ok(_) => Some(is_empty(folder)?),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => return Err(cannot("read", folder, error)),
    };
    if existing == Some(false) && replace == Replace::Never {
        return Err(Error::NotEmpty(folder.to_path_buf()));
    }
    let parent = match folder.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    create_folder(&parent)?;
    let staging = beside(folder, &parent, "new")?;
    let built = fill(&staging, files).and_then(|()| swap(folder, &staging, &parent, existing));
    if built.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    built
}

fn is_empty(folder: &Path) -> Result<bool, Error> {
    let mut entries = std::fs::read_dir(folder).map_err(|error| cannot("read", folder, error))?;
    Ok(entries.next().is_none())
}

/// A new, empty folder beside `folder`, named after it.
fn beside(folder: &Path, parent: &Path, what: &str) -> Result<PathBuf, Error> {
    let name = folder
        .file_name()
        .map_or_else(|| "out".into(), |name| name.to_string_lossy().into_owned());
    for attempt in 0..1000u32 {
        let candidate = parent.join(format!(
            ".{name}.contrib-{what}-{}-{attempt}",
            std::process::id()
        ));
        match std::fs::create_dir(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(cannot("create", &candidate, error)),
        }
    }
    Err(Error::NoTemporaryName(folder.to_path_buf()))
}

fn fill(staging: &Path, files: &[(&str, &[u8])]) -> Result<(), Error> {
    for (relative, bytes) in files {
        if relative
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
        {
            return Err(Error::NotInside((*relative).to_string()));
        }
        let path = staging.join(relative);
        if let Some(parent) = path.parent() {
            create_folder(parent)?;
        }
        write_new(&path, bytes, Mode::Shared)?;
    }
    Ok(())
}

/// Moves `staging` to `folder`: over nothing, over an empty folder, or
/// over a full one moved aside first (and put back if the move fails).
fn swap(folder: &Path, staging: &Path, parent: &Path, existing: Option<bool>) -> Result<(), Error> {
    match existing {
        None => std::fs::rename(staging, folder).map_err(|error| cannot("write", folder, error)),
        Some(true) => {
            std::fs::remove_dir(folder).map_err(|error| cannot("replace", folder, error))?;
            std::fs::rename(staging, folder).map_err(|error| cannot("write", folder, error))
        }
        Some(false) => {
            let old = beside(folder, parent, "old")?;
            std::fs::remove_dir(&old).map_err(|error| cannot("replace", folder, error))?;
            std::fs::rename(folder, &old).map_err(|error| cannot("replace", folder, error))?;
            if let Err(error) = std::fs::rename(staging, folder) {
                let _ = std::fs::rename(&old, folder);
                return Err(cannot("write", folder, error));
            }
            let _ = std::fs::remove_dir_all(&old);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_new_and_empty_folders_and_replaces_only_when_asked() {
        let temporary = tempfile::tempdir().unwrap();
        let out = temporary.path().join("out");
        write_folder(&out, &[("a/b.txt", b"1")], Replace::Never).unwrap();
        assert_eq!(std::fs::read(out.join("a/b.txt")).unwrap(), b"1");
        let error = write_folder(&out, &[("c.txt", b"2")], Replace::Never).unwrap_err();
        assert!(matches!(error, Error::NotEmpty(_)), "{error:?}");
        assert!(error.to_string().contains("is not empty"), "{error}");
        assert_eq!(names(&out), ["a"]);
        write_folder(&out, &[("c.txt", b"2")], Replace::Whole).unwrap();
        assert_eq!(names(&out), ["c.txt"], "nothing of the old folder lingers");
        assert_eq!(
            names(temporary.path()),
            ["out"],
            "no temporary folder is left"
        );
        let empty = temporary.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        write_folder(&empty, &[("d.txt", b"3")], Replace::Never).unwrap();
        assert_eq!(names(&empty), ["d.txt"]);
    }

    #[test]
    fn refuses_files_and_paths_out_of_the_folder() {
        let temporary = tempfile::tempdir().unwrap();
        let file = temporary.path().join("file");
        std::fs::write(&file, "x").unwrap();
        assert!(write_folder(&file, &[], Replace::Whole).is_err());
        let out = temporary.path().join("out");
        assert!(write_folder(&out, &[("../escape", b"x")], Replace::Never).is_err());
        assert!(!out.exists());
        assert_eq!(names(temporary.path()), ["file"]);
    }
}

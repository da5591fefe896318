//! A folder that reads, writes and walks must stay inside: a catalog, an
//! output folder, an import tree.
//!
//! The folder's contents come from other people. A symbolic link in it may
//! point anywhere: at `/etc/passwd`, whose text would be echoed in a
//! report; at a folder outside, through which a bundle would be written;
//! at `.`, which would make a walk go round for ever. So a link is
//! followed only when where it leads is inside the root, and a walk that
//! meets a loop reports it and goes on. The root itself may be a link:
//! the person named it.
//!
//! What this does not defend against is a process racing the check (a
//! link swapped between the look and the open): the threat is the content
//! of a folder, not a concurrent attacker on the same machine.

use std::path::{Component, Path, PathBuf};

use super::read::{read_limited_as, Limit};
use super::{cannot, describe, Error};

/// A folder, resolved, that paths are confined to.
#[derive(Debug, Clone)]
pub struct Root {
    /// As given, for messages.
    given: PathBuf,
    /// Resolved: every link followed.
    resolved: PathBuf,
}

/// What a walk found: files in path order, and what it skipped and why.
#[derive(Debug, Default)]
pub struct Walked {
    pub files: Vec<PathBuf>,
    pub skipped: Vec<Skipped>,
}

/// A path a walk did not follow, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`: {}", self.path.display(), self.reason)
    }
}

impl Root {
    /// The folder at `path`, which must exist.
    pub fn open(path: &Path) -> Result<Root, Error> {
        let resolved = path
            .canonicalize()
            .map_err(|error| cannot("read", path, error))?;
        if !resolved.is_dir() {
            return Err(Error::NotAFolder(path.to_path_buf()));
        }
        Ok(Root {
            given: path.to_path_buf(),
            resolved,
        })
    }

    /// The folder at `path`, created (with the folders above it) when it
    /// does not exist yet.
    pub fn create(path: &Path) -> Result<Root, Error> {
        if !path.exists() {
            super::create_folder(path)?;
        }
        Root::open(path)
    }

    /// The root as it was named.
    pub fn path(&self) -> &Path {
        &self.given
    }

    /// `path` with every link followed, when it stays inside the root.
    pub fn resolve(&self, path: &Path) -> Result<PathBuf, Error> {
        let resolved = path
            .canonicalize()
            .map_err(|error| cannot("read", path, error))?;
        if resolved.starts_with(&self.resolved) {
            Ok(resolved)
        } else {
            Err(self.outside(path))
        }
    }

    /// Reads a file inside the root; a link that leads out is refused.
    pub fn read(&self, path: &Path, limit: Limit) -> Result<Vec<u8>, Error> {
        read_limited_as(&self.resolve(path)?, path, limit)
    }

    /// Creates the folders from the root down to `folder` (a path inside
    /// it), refusing to pass through a link that leads out of the root, so
    /// that nothing is ever created or written outside it.
    pub fn create_folders(&self, folder: &Path) -> Result<(), Error> {
        let relative = folder
            .strip_prefix(&self.given)
            .map_err(|_| self.outside(folder))?;
        let mut current = self.given.clone();
        for component in relative.components() {
            match component {
                Component::Normal(part) => current.push(part),
                Component::CurDir => continue,
                _ => return Err(self.outside(folder)),
            }
            match std::fs::symlink_metadata(&current) {
                Ok(metadata) if metadata.file_type().is_symlink() => {
                    let target = self.resolve(&current)?;
                    if !target.is_dir() {
                        return Err(Error::NotAFolder(current.clone()));
                    }
                }
                Ok(metadata) if metadata.is_dir() => {}
                Ok(_) => return Err(Error::NotAFolder(current.clone())),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                    match std::fs::create_dir(&current) {
                        Ok(()) => {}
                        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
                        Err(error) => return Err(cannot("create", &current, error)),
                    }
                }
                Err(error) => return Err(cannot("read", &current, error)),
            }
        }
        Ok(())
    }

    /// Every file under the root that `wanted` accepts (by path), in path
    /// order, following links only where they stay inside the root and
    /// never into folders named in `skip_folders`. A loop, a link out, a
    /// dangling link or an unreadable folder is skipped and said why.
    pub fn walk(
        &self,
        skip_folders: &'static [&'static str],
        wanted: impl Fn(&Path) -> bool,
    ) -> Walked {
        let mut walk = Walk {
            root: self,
            skip_folders,
            wanted: &wanted,
            walked: Walked::default(),
            above: vec![self.resolved.clone()],
        };
        walk.folder(&self.given);
        walk.walked.files.sort();
        walk.walked
    }

    fn outside(&self, path: &Path) -> Error {
        Error::Outside {
            path: path.to_path_buf(),
            root: self.given.clone(),
        }
    }
}

/// One walk in progress: the folders above the current one (resolved),
/// so a link back to any of them is a loop rather than a way round for
/// ever.
struct Walk<'a> {
    root: &'a Root,
    skip_folders: &'static [&'static str],
    wanted: &'a dyn Fn(&Path) -> bool,
    walked: Walked,
    above: Vec<PathBuf>,
}

impl Walk<'_> {
    fn skip(&mut self, path: &Path, reason: impl Into<String>) {
        self.walked.skipped.push(Skipped {
            path: path.to_path_buf(),
            reason: reason.into(),
        });
    }

    fn folder(&mut self, folder: &Path) {
        let entries = match std::fs::read_dir(folder) {
            Ok(entries) => entries,
            Err(error) => return self.skip(folder, describe(&error)),
        };
        let mut paths: Vec<PathBuf> = Vec::new();
        for entry in entries {
            match entry {
                Ok(entry) => paths.push(entry.path()),
                Err(error) => self.skip(folder, describe(&error)),
            }
        }
        paths.sort();
        for path in paths {
            self.entry(&path);
        }
    }

    fn entry(&mut self, path: &Path) {
        let link = std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink());
        let target = match path.canonicalize() {
            Ok(target) => target,
            Err(_) if link => return self.skip(path, "a symbolic link to nothing"),
            Err(error) => return self.skip(path, describe(&error)),
        };
        if link && !target.starts_with(&self.root.resolved) {
            return self.skip(path, "a symbolic link that leads out of the folder");
        }
        if target.is_file() {
            if (self.wanted)(path) {
                self.walked.files.push(path.to_path_buf());
            }
            return;
        }
        if !target.is_dir() {
            return;
        }
        let named = path.file_name().and_then(|name| name.to_str());
        if named.is_some_and(|name| self.skip_folders.contains(&name)) {
            return;
        }
        if self.above.contains(&target) {
            return self.skip(path, "a symbolic link that loops back to a folder above it");
        }
        self.above.push(target);
        self.folder(path);
        self.above.pop();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_walk_survives_loops_and_stays_inside() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.bundle.json"), "{}").unwrap();
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path();
        std::fs::create_dir_all(root.join("acme/notes")).unwrap();
        std::fs::write(root.join("acme/notes/1.0.0.bundle.json"), "{}").unwrap();
        symlink(".", root.join("a")).unwrap();
        symlink(".", root.join("b")).unwrap();
        symlink(outside.path(), root.join("out")).unwrap();
        symlink(root.join("gone"), root.join("dangling.bundle.json")).unwrap();
        let walked = Root::open(root)
            .unwrap()
            .walk(&[], |path| path.to_string_lossy().ends_with(".bundle.json"));
        assert_eq!(
            walked.files,
            vec![root.join("acme/notes/1.0.0.bundle.json")],
            "{walked:?}"
        );
        let said = walked
            .skipped
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n");
        assert!(said.contains("loops back"), "{said}");
        assert!(said.contains("leads out of the folder"), "{said}");
    }

    #[test]
    fn folders_are_never_created_through_a_link_out() {
        let outside = tempfile::tempdir().unwrap();
        let folder = tempfile::tempdir().unwrap();
        symlink(outside.path(), folder.path().join("acme")).unwrap();
        let root = Root::open(folder.path()).unwrap();
        let error = root
            .create_folders(&folder.path().join("acme/notes"))
            .unwrap_err();
        assert!(matches!(error, Error::Outside { .. }), "{error:?}");
        assert!(error.to_string().contains("leads out of"), "{error}");
        assert!(!outside.path().join("notes").exists());
        root.create_folders(&folder.path().join("inside/deeper"))
            .unwrap();
        assert!(folder.path().join("inside/deeper").is_dir());
    }

    #[test]
    fn reads_refuse_links_out() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("passwd"), "root:x:0:0").unwrap();
        let folder = tempfile::tempdir().unwrap();
        symlink(
            outside.path().join("passwd"),
            folder.path().join("catalog.lock"),
        )
        .unwrap();
        let root = Root::open(folder.path()).unwrap();
        let error = root
            .read(
                &folder.path().join("catalog.lock"),
                Limit::new(100, "a lock"),
            )
            .unwrap_err()
            .to_string();
        assert!(error.contains("leads out of"), "{error}");
        let error = root
            .read(&folder.path().join("../x"), Limit::new(100, "a lock"))
            .unwrap_err()
            .to_string();
        assert!(!error.contains("root:x"), "{error}");
    }
}

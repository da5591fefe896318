//! Writing files: atomically, never over a published file, with the
//! permissions the user's umask gives (private keys excepted).
//!
//! Every write goes to a temporary file in the destination's folder, which
//! is flushed to disk and then renamed into place, so a crash, a kill or a
//! full disk leaves the old file or the new one, never half of either. A
//! rename replaces a symbolic link at the destination rather than writing
//! through it.
//!
//! The temporary file is this module's own rather than the `tempfile`
//! crate's: a name no other writer picks (the process, a counter and the
//! clock), created only if absent, removed again if anything fails, so
//! that a host does not compile six crates for one `rename`.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{cannot, Error};

/// Who may read a file that is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// What the user's umask allows (`0o666` masked), as `touch` and every
    /// editor create files: bundles, locks, manifests, public keys.
    Shared,
    /// The owner only (`0o600`), whatever the umask: secret keys.
    Private,
}

impl Mode {
    /// The mode a file is created with; the operating system applies the
    /// umask to it.
    #[cfg(unix)]
    fn bits(self) -> u32 {
        match self {
            Mode::Shared => 0o666,
            Mode::Private => 0o600,
        }
    }
}

/// Replaces `path`'s contents (or creates it), keeping an existing file's
/// permissions. A read-only file is refused, as editors refuse it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let existing = std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|metadata| metadata.permissions());
    if existing
        .as_ref()
        .is_some_and(std::fs::Permissions::readonly)
    {
        return Err(cannot(
            "write",
            path,
            std::io::ErrorKind::PermissionDenied.into(),
        ));
    }
    let temporary = Temporary::holding(path, bytes, Mode::Shared)?;
    if let Some(permissions) = existing {
        temporary
            .file
            .set_permissions(permissions)
            .map_err(|error| cannot("write", path, error))?;
    }
    temporary.rename_to(path)
}

/// Creates `path`, which must not exist: if another writer got there
/// first, the rename is refused rather than overwriting its file.
pub fn write_new(path: &Path, bytes: &[u8], mode: Mode) -> Result<(), Error> {
    Temporary::holding(path, bytes, mode)?.link_as(path)
}

/// Creates a folder and the folders above it, as the umask allows.
pub fn create_folder(path: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(path).map_err(|error| cannot("create", path, error))
}

/// A file beside its destination holding the new bytes, flushed to disk,
/// and removed when dropped unless it has been put in place.
struct Temporary {
    path: PathBuf,
    file: File,
    placed: bool,
}

/// How many temporary files this process has named: with the process id
/// and the clock, a name no two writers share.
static NAMED: AtomicU64 = AtomicU64::new(0);

impl Temporary {
    /// A new temporary file beside `destination` holding `bytes`.
    fn holding(destination: &Path, bytes: &[u8], mode: Mode) -> Result<Temporary, Error> {
        let folder = destination
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let fail = |error: std::io::Error| cannot("write", destination, error);
        let mut temporary = Self::create_in(folder, mode).map_err(fail)?;
        temporary.file.write_all(bytes).map_err(fail)?;
        temporary.file.sync_all().map_err(fail)?;
        Ok(temporary)
    }

    /// Creates a file of a fresh name in `folder`, only if no file has
    /// that name (another writer's, or a link someone left to be written
    /// through).
    fn create_in(folder: &Path, mode: Mode) -> std::io::Result<Temporary> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode.bits());
        #[cfg(not(unix))]
        let _ = mode;
        let mut attempts = 0;
        loop {
            let path = folder.join(Self::fresh_name());
            match options.open(&path) {
                Ok(file) => {
                    return Ok(Temporary {
                        path,
                        file,
                        placed: false,
                    })
                }
                Err(error)
                    if error.kind() == std::io::ErrorKind::AlreadyExists && attempts < 16 =>
                {
                    attempts += 1;
                }
                Err(error) => return Err(error),
            }
        }
    }

    fn fresh_name() -> String {
        let count = NAMED.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.subsec_nanos());
        format!(".contrib-{}-{count}-{nanos:08x}.tmp", std::process::id())
    }

    /// Puts the file in place of `destination`, replacing what is there.
    fn rename_to(mut self, destination: &Path) -> Result<(), Error> {
        std::fs::rename(&self.path, destination)
            .map_err(|error| cannot("write", destination, error))?;
        self.placed = true;
        Ok(())
    }

    /// Puts the file at `destination`, which must not exist: a hard link
    /// is refused by the file system when the name is taken, so of two
    /// writers exactly one wins, and the loser's bytes never replace it.
    fn link_as(self, destination: &Path) -> Result<(), Error> {
        std::fs::hard_link(&self.path, destination)
            .map_err(|error| cannot("write", destination, error))
        // Dropping `self` removes the temporary name either way.
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.placed {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode_of(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn new_files_are_shared_or_private_as_asked() {
        let folder = tempfile::tempdir().unwrap();
        let public = folder.path().join("a.pub");
        let secret = folder.path().join("a.key");
        write_new(&public, b"p", Mode::Shared).unwrap();
        write_new(&secret, b"s", Mode::Private).unwrap();
        assert_eq!(mode_of(&secret), 0o600);
        // Whatever the umask of the test run, a shared file is not
        // narrowed to the owner alone unless the umask says so.
        let umask = 0o666 & !mode_of(&public);
        assert_eq!(mode_of(&public), 0o666 & !umask);
        assert!(write_new(&public, b"again", Mode::Shared).is_err());
        assert_eq!(std::fs::read(&public).unwrap(), b"p");
        assert_eq!(
            leftovers(folder.path()),
            0,
            "a temporary file stayed behind"
        );
    }

    /// The names in `folder` that are temporary files.
    fn leftovers(folder: &Path) -> usize {
        std::fs::read_dir(folder)
            .unwrap()
            .filter(|entry| {
                let name = entry.as_ref().unwrap().file_name();
                name.to_string_lossy().ends_with(".tmp")
            })
            .count()
    }

    #[test]
    fn a_replacement_replaces_a_link_rather_than_writing_through_it() {
        let folder = tempfile::tempdir().unwrap();
        let target = folder.path().join("elsewhere");
        let link = folder.path().join("m.contrib");
        std::fs::write(&target, "theirs").unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomically(&link, b"ours").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"theirs");
        assert_eq!(std::fs::read(&link).unwrap(), b"ours");
        assert!(!std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(leftovers(folder.path()), 0);
    }

    #[test]
    fn a_write_into_a_missing_folder_fails_and_leaves_nothing() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("absent").join("m.contrib");
        assert!(write_atomically(&path, b"x").is_err());
        assert!(write_new(&path, b"x", Mode::Shared).is_err());
        assert_eq!(leftovers(folder.path()), 0);
    }

    #[test]
    fn of_many_writers_of_one_new_file_exactly_one_wins() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("1.0.0.bundle.json");
        let wins = std::thread::scope(|scope| {
            let writers: Vec<_> = (0..8u8)
                .map(|writer| {
                    let path = &path;
                    scope.spawn(move || write_new(path, &[writer; 64], Mode::Shared).is_ok())
                })
                .collect();
            writers
                .into_iter()
                .filter_map(|writer| writer.join().unwrap().then_some(()))
                .count()
        });
        assert_eq!(wins, 1);
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() == 64 && bytes.iter().all(|&byte| byte == bytes[0]));
        assert_eq!(leftovers(folder.path()), 0);
    }

    #[test]
    fn a_replacement_keeps_the_permissions_and_refuses_read_only_files() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("m.contrib");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(mode_of(&path), 0o640);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o440)).unwrap();
        let error = write_atomically(&path, b"newer").unwrap_err().to_string();
        assert!(error.ends_with("permission denied"), "{error}");
    }
}

//! Writing files: atomically, never over a published file, with the
//! permissions the user's umask gives (private keys excepted).
//!
//! Every write goes to a temporary file in the destination's folder, which
//! is flushed to disk and then renamed into place, so a crash, a kill or a
//! full disk leaves the old file or the new one, never half of either. A
//! rename replaces a symbolic link at the destination rather than writing
//! through it.

use std::io::Write;
use std::path::Path;

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
    #[cfg(unix)]
    fn permissions(self) -> std::fs::Permissions {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(match self {
            // The operating system applies the umask when the file is
            // created with this mode.
            Mode::Shared => 0o666,
            Mode::Private => 0o600,
        })
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
    let temporary = temporary_with(path, bytes, Mode::Shared)?;
    if let Some(permissions) = existing {
        temporary
            .as_file()
            .set_permissions(permissions)
            .map_err(|error| cannot("write", path, error))?;
    }
    temporary
        .persist(path)
        .map_err(|error| cannot("write", path, error.error))?;
    Ok(())
}

/// Creates `path`, which must not exist: if another writer got there
/// first, the rename is refused rather than overwriting its file.
pub fn write_new(path: &Path, bytes: &[u8], mode: Mode) -> Result<(), Error> {
    let temporary = temporary_with(path, bytes, mode)?;
    temporary
        .persist_noclobber(path)
        .map_err(|error| cannot("write", path, error.error))?;
    Ok(())
}

/// Creates a folder and the folders above it, as the umask allows.
pub fn create_folder(path: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(path).map_err(|error| cannot("create", path, error))
}

/// A temporary file beside `path` holding `bytes`, flushed to disk.
fn temporary_with(path: &Path, bytes: &[u8], mode: Mode) -> Result<tempfile::NamedTempFile, Error> {
    let folder = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let fail = |error: std::io::Error| cannot("write", path, error);
    let mut builder = tempfile::Builder::new();
    builder.prefix(".contrib-").suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(mode.permissions());
    #[cfg(not(unix))]
    let _ = mode;
    let mut temporary = builder.tempfile_in(folder).map_err(fail)?;
    temporary.write_all(bytes).map_err(fail)?;
    temporary.as_file().sync_all().map_err(fail)?;
    Ok(temporary)
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

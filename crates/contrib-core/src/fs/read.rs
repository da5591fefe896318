//! Reading files: regular files only, never more than a limit.
//!
//! A path can name anything: a FIFO (opening it for reading blocks until a
//! writer comes, so `contrib check` would hang), a device (`/dev/zero`
//! never ends), a socket, a folder. The file is opened without blocking
//! and without becoming a controlling terminal, and what was opened is
//! examined (not the path, which could be swapped between a look and an
//! open) before a byte is read.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::{cannot, Error};

/// The most bytes a read takes, and what the file is, for the message
/// that refuses a larger one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub bytes: u64,
    /// "a manifest", "a configuration", …
    pub what: &'static str,
}

impl Limit {
    pub const fn new(bytes: u64, what: &'static str) -> Self {
        Limit { bytes, what }
    }
}

/// The file's bytes, refused with a message when it is larger than
/// `limit`.
pub fn read_limited(path: &Path, limit: Limit) -> Result<Vec<u8>, Error> {
    read_limited_as(path, path, limit)
}

/// [`read_limited`] of `path`, named `shown` in messages (a link's name
/// rather than where it leads).
pub(super) fn read_limited_as(path: &Path, shown: &Path, limit: Limit) -> Result<Vec<u8>, Error> {
    let bytes = read_up_to_as(path, shown, limit.bytes.saturating_add(1))?;
    if bytes.len() as u64 > limit.bytes {
        return Err(Error::TooLarge {
            path: shown.to_path_buf(),
            limit: size(limit.bytes),
            what: limit.what,
        });
    }
    Ok(bytes)
}

/// The file's text: [`read_limited`], and UTF-8.
pub fn read_text(path: &Path, limit: Limit) -> Result<String, Error> {
    String::from_utf8(read_limited(path, limit)?).map_err(|error| Error::NotText {
        path: path.to_path_buf(),
        at: error.utf8_error().valid_up_to(),
    })
}

/// At most `max` bytes of a regular file: a caller that reports a size
/// limit itself (with a located diagnostic) asks for one byte more than
/// the limit.
pub fn read_up_to(path: &Path, max: u64) -> Result<Vec<u8>, Error> {
    read_up_to_as(path, path, max)
}

fn read_up_to_as(path: &Path, shown: &Path, max: u64) -> Result<Vec<u8>, Error> {
    let file = open_regular(path, shown)?;
    let mut bytes = Vec::new();
    file.take(max)
        .read_to_end(&mut bytes)
        .map_err(|error| cannot("read", shown, error))?;
    Ok(bytes)
}

/// Opens `path` for reading if it is a regular file (a symbolic link to
/// one included).
fn open_regular(path: &Path, shown: &Path) -> Result<File, Error> {
    let file = open_without_blocking(path).map_err(|error| cannot("read", shown, error))?;
    let file_type = file
        .metadata()
        .map_err(|error| cannot("read", shown, error))?
        .file_type();
    if file_type.is_file() {
        Ok(file)
    } else {
        Err(Error::NotRegular {
            path: shown.to_path_buf(),
            kind: kind_of(&file_type),
        })
    }
}

#[cfg(unix)]
fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// What a file that is not a regular file is, in words: "a named pipe
/// (FIFO)", "a socket".
pub fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "a device";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else {
        "a special file"
    }
}

/// `4 MiB`, `512 KiB`, `300 bytes`.
fn size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_limit_is_refused() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("big");
        std::fs::write(&path, vec![b'a'; 2048]).unwrap();
        let error = read_limited(&path, Limit::new(1024, "a configuration")).unwrap_err();
        assert!(
            matches!(
                error,
                Error::TooLarge {
                    what: "a configuration",
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(
            error
                .to_string()
                .ends_with("it is larger than 1 KiB, the limit for a configuration"),
            "{error}"
        );
        assert_eq!(read_up_to(&path, 10).unwrap().len(), 10);
        assert_eq!(
            read_limited(&path, Limit::new(2048, "x")).unwrap().len(),
            2048
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("pipe.contrib");
        let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let error = read_up_to(&path, 100).unwrap_err().to_string();
        assert!(
            error.contains("a named pipe (FIFO), not a regular file"),
            "{error}"
        );
    }

    #[test]
    fn a_folder_is_refused() {
        let folder = tempfile::tempdir().unwrap();
        let error = read_up_to(folder.path(), 100).unwrap_err().to_string();
        assert!(
            error.contains("a folder") || error.contains("it is a folder"),
            "{error}"
        );
    }
}

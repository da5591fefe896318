//! The file system, behind one policy. Every file `contrib` reads or
//! writes goes through this module, so that what holds for one command
//! holds for all of them:
//!
//! - **reads** take regular files only, and stop at a size limit: a FIFO
//!   named like a manifest would block for ever, `/dev/zero` never ends
//!   (`read`);
//! - **writes** are atomic (a temporary file in the same folder, renamed
//!   into place), a published file is never overwritten, and files created
//!   follow the user's umask, private keys excepted ([`write`]);
//! - **catalogs** are locked for every read-modify-write, and the wait is
//!   reported ([`lock`]);
//! - **symbolic links** are never followed out of a catalog, an output
//!   folder or an import tree, and a walk that meets a loop reports it and
//!   goes on ([`Root`]).
//!
//! It is a leaf: it depends on nothing else in the crate. Discovering
//! manifests, which honours `.gitignore` and `.contribignore`, is the
//! command line's (`contrib::fs::discover`).

mod error;
mod folder;
mod lock;
mod read;
mod root;
mod write;

use std::path::Path;

pub use error::Error;
pub use folder::{write_folder, Replace};
pub use lock::{lock, Access, Guard};
pub use read::{kind_of, read_limited, read_text, read_up_to, Limit};
pub use root::{Root, Skipped, Walked};
pub use write::{create_folder, write_atomically, write_new, Mode};

/// An I/O error in one style, without Rust's "(os error 2)" tail.
pub fn describe(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::NotFound => "no such file or folder".into(),
        ErrorKind::PermissionDenied => "permission denied".into(),
        ErrorKind::IsADirectory => "it is a folder".into(),
        ErrorKind::NotADirectory => "a part of the path is not a folder".into(),
        ErrorKind::AlreadyExists => "it already exists".into(),
        ErrorKind::StorageFull => "no space left on the device".into(),
        ErrorKind::ReadOnlyFilesystem => "the file system is read-only".into(),
        _ => without_os_error(&error.to_string()),
    }
}

/// `text` without a trailing " (os error N)".
pub fn without_os_error(text: &str) -> String {
    match text.find(" (os error") {
        Some(cut) => text[..cut].to_string(),
        None => text.to_string(),
    }
}

/// "cannot read `PATH`: why".
pub fn cannot(verb: &'static str, path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        verb,
        path: path.to_path_buf(),
        source,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_lose_the_os_error_tail() {
        let error = std::io::Error::from_raw_os_error(5);
        assert!(
            !describe(&error).contains("os error"),
            "{}",
            describe(&error)
        );
        assert_eq!(
            describe(&std::io::ErrorKind::NotFound.into()),
            "no such file or folder"
        );
    }
}

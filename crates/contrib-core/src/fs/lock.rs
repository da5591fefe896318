//! Advisory file locks, so that two processes never interleave a
//! read-modify-write of the same file.
//!
//! `publish` reads `catalog.lock`, decides, writes a bundle and writes the
//! lock back; two publishes at once would each write back what they read,
//! and one would lose the other's entry. Each such sequence holds an
//! exclusive lock on a file beside the data (`.contrib-lock` in the
//! catalog), and readers that must see the bundles and the lock agree hold
//! a shared one. The lock file itself is never deleted: deleting it would
//! let a waiting process lock a file that no longer has a name.
//!
//! Locks are released when the [`Guard`] is dropped, or by the operating
//! system when the process dies, so a killed publish never wedges a
//! catalog.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use super::{cannot, Error};

/// The file locked in a folder.
const LOCK_NAME: &str = ".contrib-lock";

/// Whether others may hold the lock at the same time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Readers: many at once, none while a writer holds it.
    Shared,
    /// A read-modify-write: alone.
    Exclusive,
}

/// A held lock; dropping it releases the lock.
#[derive(Debug)]
pub struct Guard {
    _file: File,
    path: PathBuf,
}

impl Guard {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Locks `folder` (which must exist). When another process holds the lock,
/// `waiting` is called once with a sentence saying so, and the call waits.
pub fn lock(folder: &Path, access: Access, waiting: &dyn Fn(&str)) -> Result<Guard, Error> {
    let path = folder.join(LOCK_NAME);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|error| cannot("lock", &path, error))?;
    let attempt = match access {
        Access::Shared => file.try_lock_shared(),
        Access::Exclusive => file.try_lock(),
    };
    match attempt {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            waiting(&format!(
                "waiting for another `contrib` to finish with `{}`",
                folder.display()
            ));
            let locked = match access {
                Access::Shared => file.lock_shared(),
                Access::Exclusive => file.lock(),
            };
            locked.map_err(|error| cannot("lock", &path, error))?;
        }
        Err(TryLockError::Error(error)) => return Err(cannot("lock", &path, error)),
    }
    Ok(Guard { _file: file, path })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn a_second_exclusive_lock_waits_and_says_so() {
        let folder = tempfile::tempdir().unwrap();
        let first = lock(folder.path(), Access::Exclusive, &|_| {}).unwrap();
        let said = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let folder_path = folder.path().to_path_buf();
        let heard = said.clone();
        let waiter = std::thread::spawn(move || {
            let guard = lock(&folder_path, Access::Exclusive, &|message| {
                *heard.lock().unwrap() = message.to_string();
            })
            .unwrap();
            drop(guard);
        });
        // The waiter cannot finish while the first lock is held.
        while said.lock().unwrap().is_empty() {
            std::thread::yield_now();
        }
        assert!(!waiter.is_finished());
        drop(first);
        waiter.join().unwrap();
        assert!(said
            .lock()
            .unwrap()
            .starts_with("waiting for another `contrib`"));
    }

    #[test]
    fn shared_locks_do_not_wait_for_each_other() {
        let folder = tempfile::tempdir().unwrap();
        let waited = Cell::new(false);
        let _a = lock(folder.path(), Access::Shared, &|_| waited.set(true)).unwrap();
        let _b = lock(folder.path(), Access::Shared, &|_| waited.set(true)).unwrap();
        assert!(!waited.get());
    }
}

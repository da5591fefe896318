//! The session log, kept in memory for `sessionLog()` and, when the host
//! names a file, written there as it goes.

use std::cell::RefCell;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::rc::Rc;

/// What the runtime writes the log to.
pub(crate) struct SessionLog {
    pub(crate) kept: Rc<RefCell<Vec<u8>>>,
    file: Option<File>,
}

impl SessionLog {
    /// A log that starts with `earlier` (the log resumed from) and goes to
    /// `path` too, created for a new conversation and appended to for a
    /// resumed one.
    pub(crate) fn new(
        earlier: &[u8],
        path: Option<&Path>,
        resumed: bool,
    ) -> io::Result<SessionLog> {
        let file = match path {
            None => None,
            Some(path) => Some(if resumed {
                OpenOptions::new().append(true).create(true).open(path)?
            } else {
                contrib_runtime::create_log_file(path)?
            }),
        };
        Ok(SessionLog {
            kept: Rc::new(RefCell::new(earlier.to_vec())),
            file,
        })
    }
}

impl Write for SessionLog {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if let Some(file) = &mut self.file {
            file.write_all(bytes)?;
        }
        self.kept.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(file) => file.flush(),
            None => Ok(()),
        }
    }
}

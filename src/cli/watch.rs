//! `check --watch`: check, then check again whenever a manifest, a
//! `contrib.toml` or an ignore file under the paths changes, until
//! interrupted.
//!
//! Changes come from the operating system (`notify`: inotify, FSEvents,
//! ReadDirectoryChangesW). An editor's save is several events (a
//! temporary file written, renamed over the old one), so a check waits
//! until [`QUIET`] passes with no event. On a terminal the screen is
//! cleared before each check, so what is shown is the current state; into
//! a pipe or a file, each check follows the last.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify::{Event, EventKind, RecursiveMode, Watcher};

use super::{fail, output, Outcome};

/// How long the files must stay unchanged before the check runs again.
const QUIET: Duration = Duration::from_millis(200);

/// Runs `check`, then again after each change under `paths`, until the
/// process is interrupted; returns only when watching fails.
pub(super) fn run(paths: &[PathBuf], mut check: impl FnMut() -> Outcome) -> Outcome {
    let (sender, events) = mpsc::channel();
    let watcher = notify::recommended_watcher(move |event| {
        let _ = sender.send(event);
    });
    let mut watcher = match watcher {
        Ok(watcher) => watcher,
        Err(error) => return fail(format!("cannot watch for changes: {error}")),
    };
    for path in paths {
        // A file is watched through its folder: an editor that saves by
        // renaming a new file over the old one would end a watch on the
        // file itself.
        let (target, mode) = if path.is_dir() {
            (path.as_path(), RecursiveMode::Recursive)
        } else {
            let folder = path
                .parent()
                .filter(|folder| !folder.as_os_str().is_empty());
            (
                folder.unwrap_or(Path::new(".")),
                RecursiveMode::NonRecursive,
            )
        };
        if let Err(error) = watcher.watch(target, mode) {
            return fail(format!("cannot watch `{}`: {error}", target.display()));
        }
    }
    loop {
        clear_screen();
        check();
        output::status("watching for changes (Ctrl-C to stop)");
        let Some(changed) = next_change(&events) else {
            return fail("stopped watching: the file events ended");
        };
        output::status(format_args!(
            "`{}` changed: checking again",
            crate::report::terminal::visible(&crate::fs::display_name(&changed))
        ));
    }
}

/// The first file a relevant change touched, once the changes have been
/// quiet for [`QUIET`]; `None` when the events end.
fn next_change(events: &mpsc::Receiver<notify::Result<Event>>) -> Option<PathBuf> {
    let changed = loop {
        match events.recv().ok()? {
            Ok(event) => {
                if let Some(path) = relevant(&event) {
                    break path;
                }
            }
            Err(error) => output::status(format_args!("warning: watching for changes: {error}")),
        }
    };
    loop {
        match events.recv_timeout(QUIET) {
            Ok(_) => continue,
            Err(mpsc::RecvTimeoutError::Timeout) => return Some(changed),
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
        }
    }
}

/// The file an event changed, if it is one a check reads: a manifest, a
/// `contrib.toml`, an ignore file. Reading a file is no change.
fn relevant(event: &Event) -> Option<PathBuf> {
    if matches!(event.kind, EventKind::Access(_)) {
        return None;
    }
    event
        .paths
        .iter()
        .find(|path| {
            path.extension()
                .is_some_and(|extension| extension == "contrib")
                || path.file_name().is_some_and(|name| {
                    name == crate::config::FILE_NAME
                        || name == crate::fs::IGNORE_FILE
                        || name == ".gitignore"
                })
        })
        .cloned()
}

/// Clears a terminal (and its scroll-back) before a check; elsewhere,
/// nothing.
fn clear_screen() {
    let mut stdout = std::io::stdout();
    if stdout.is_terminal() {
        let _ = stdout.write_all(b"\x1b[2J\x1b[3J\x1b[H");
        let _ = stdout.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, CreateKind, ModifyKind};

    fn event(kind: EventKind, path: &str) -> Event {
        Event::new(kind).add_path(PathBuf::from(path))
    }

    #[test]
    fn only_changes_to_what_a_check_reads_count() {
        let modify = EventKind::Modify(ModifyKind::Any);
        assert_eq!(
            relevant(&event(modify, "/w/a.contrib")),
            Some(PathBuf::from("/w/a.contrib"))
        );
        assert!(relevant(&event(modify, "/w/contrib.toml")).is_some());
        assert!(relevant(&event(
            EventKind::Create(CreateKind::File),
            "/w/.contribignore"
        ))
        .is_some());
        assert!(relevant(&event(modify, "/w/notes.md")).is_none());
        assert!(relevant(&event(modify, "/w/.a.contrib.swp")).is_none());
        assert!(relevant(&event(EventKind::Access(AccessKind::Any), "/w/a.contrib")).is_none());
    }
}

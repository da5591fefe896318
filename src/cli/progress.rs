//! Progress on long work (`check` of a large catalog, `build` of many
//! manifests, `import` of a large tree, `simulate` of a big fleet): one
//! line on standard error, redrawn in place, gone when the work ends.
//!
//! Shown only to a person watching: when standard error is a terminal
//! that can redraw a line, the result is meant for people (never beside
//! JSON, SARIF or annotations, which a program reads), and there is more
//! than one piece of work. Anywhere else the reporter does nothing at all,
//! so logs, pipes and CI stay byte-for-byte what they were.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the line is redrawn at most.
const REDRAW: Duration = Duration::from_millis(80);

/// What decides whether progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Conditions {
    /// Standard error is a terminal.
    pub terminal: bool,
    /// `TERM=dumb`: a terminal that cannot redraw a line.
    pub dumb: bool,
    /// The result is for people (`--format human`).
    pub for_people: bool,
    /// How many pieces of work there are.
    pub total: usize,
}

impl Conditions {
    /// The conditions of this process's standard error.
    pub(crate) fn here(for_people: bool, total: usize) -> Conditions {
        Conditions {
            terminal: io::stderr().is_terminal(),
            dumb: std::env::var_os("TERM").is_some_and(|term| term == "dumb"),
            for_people,
            total,
        }
    }

    /// Whether to show progress at all: stages always, a count only when
    /// there is more than one piece of work (see [`Progress::tick`]).
    pub(crate) fn show(self) -> bool {
        self.terminal && !self.dumb && self.for_people
    }
}

/// A progress line: `label done/total`, redrawn at most every [`REDRAW`].
/// Safe to tick from many threads.
pub(crate) struct Progress {
    label: String,
    total: usize,
    done: AtomicUsize,
    /// `None` when progress is not shown; else the writer and when it last
    /// drew.
    sink: Option<Mutex<Sink>>,
}

struct Sink {
    out: Box<dyn Write + Send>,
    drawn: Option<Instant>,
}

impl Progress {
    /// Progress on standard error under `conditions`.
    pub(crate) fn new(label: impl Into<String>, conditions: Conditions) -> Progress {
        let out: Option<Box<dyn Write + Send>> =
            conditions.show().then(|| Box::new(io::stderr()) as _);
        Progress::to(label, conditions.total, out)
    }

    /// Progress written to `out`, or nowhere.
    fn to(label: impl Into<String>, total: usize, out: Option<Box<dyn Write + Send>>) -> Progress {
        Progress {
            label: label.into(),
            total,
            done: AtomicUsize::new(0),
            sink: out.map(|out| Mutex::new(Sink { out, drawn: None })),
        }
    }

    /// One more piece done.
    pub(crate) fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let Some(sink) = self.sink.as_ref().filter(|_| self.total > 1) else {
            return;
        };
        // A busy lock means another thread is drawing: skip this frame.
        let Ok(mut sink) = sink.try_lock() else {
            return;
        };
        let due = sink
            .drawn
            .is_none_or(|drawn| drawn.elapsed() >= REDRAW || done == self.total);
        if due {
            let line = format!("\r\x1b[K{} {done}/{}", self.label, self.total);
            let _ = sink
                .out
                .write_all(line.as_bytes())
                .and_then(|()| sink.out.flush());
            sink.drawn = Some(Instant::now());
        }
    }

    /// Says what is being done now, for work that cannot be counted.
    pub(crate) fn stage(&self, what: impl std::fmt::Display) {
        let Some(sink) = &self.sink else {
            return;
        };
        let Ok(mut sink) = sink.lock() else {
            return;
        };
        let line = format!("\r\x1b[K{}: {what}", self.label);
        let _ = sink
            .out
            .write_all(line.as_bytes())
            .and_then(|()| sink.out.flush());
        sink.drawn = Some(Instant::now());
    }

    /// Removes the line, so that what is written next starts clean; the
    /// next tick draws it again.
    pub(crate) fn clear(&self) {
        let Some(sink) = &self.sink else {
            return;
        };
        let Ok(mut sink) = sink.lock() else {
            return;
        };
        if sink.drawn.take().is_some() {
            let _ = sink
                .out
                .write_all(b"\r\x1b[K")
                .and_then(|()| sink.out.flush());
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn conditions() -> Conditions {
        Conditions {
            terminal: true,
            dumb: false,
            for_people: true,
            total: 10,
        }
    }

    #[test]
    fn shown_only_to_a_person_at_a_terminal_with_work_to_wait_for() {
        assert!(conditions().show());
        for hidden in [
            Conditions {
                terminal: false,
                ..conditions()
            },
            Conditions {
                dumb: true,
                ..conditions()
            },
            Conditions {
                for_people: false,
                ..conditions()
            },
        ] {
            assert!(!hidden.show(), "{hidden:?}");
        }
    }

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn not_shown_writes_nothing() {
        let progress = Progress::new(
            "checking",
            Conditions {
                terminal: false,
                ..conditions()
            },
        );
        assert!(progress.sink.is_none());
        progress.tick();
        progress.clear();
        assert_eq!(progress.done.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn one_piece_of_work_is_not_counted_but_stages_are_shown() {
        let written = Shared::default();
        let progress = Progress::to("simulating", 1, Some(Box::new(written.clone())));
        progress.tick();
        progress.stage("under `anthropic`");
        drop(progress);
        let text = String::from_utf8(written.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text, "\r\x1b[Ksimulating: under `anthropic`\r\x1b[K");
    }

    #[test]
    fn draws_the_count_and_clears_it_at_the_end() {
        let written = Shared::default();
        let progress = Progress::to("checking", 3, Some(Box::new(written.clone())));
        progress.tick();
        progress.tick();
        progress.tick();
        drop(progress);
        let text = String::from_utf8(written.0.lock().unwrap().clone()).unwrap();
        assert!(text.starts_with("\r\x1b[Kchecking 1/3"), "{text:?}");
        assert!(
            text.contains("checking 3/3"),
            "the last tick is always drawn: {text:?}"
        );
        assert!(
            text.ends_with("\r\x1b[K"),
            "the line is gone at the end: {text:?}"
        );
    }
}

//! Where the command line writes, by one rule (cargo's): a command's
//! *result* (diagnostics, formatted text, diffs, reports, listings) goes to
//! standard output; *status* (what was done: built, wrote, published,
//! fixed, the closing count of a check) and errors go to standard error. A
//! pipe or a redirect then takes exactly the result.
//!
//! A reader that goes away (`contrib import … | head`) is not an error:
//! the command stops writing and ends quietly, as `cat` and `grep` do.

use std::fmt::Display;
use std::io::{self, IsTerminal, Write};
use std::sync::OnceLock;

use super::Outcome;
use crate::report::human::Style;

/// `--color`: when to colour human output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when writing to a terminal and `NO_COLOR` is unset.
    #[default]
    Auto,
    /// Always colour, even into a pipe or a file.
    Always,
    /// Never colour.
    Never,
}

/// `--format` of a command whose result is a report rather than
/// diagnostics (`diff`, `compose`, `simulate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// Text for people.
    Human,
    /// One JSON document.
    Json,
}

static COLOR: OnceLock<ColorChoice> = OnceLock::new();

/// Records `--color` for the whole run (set once, by `cli::main`).
pub(crate) fn set_color(choice: ColorChoice) {
    let _ = COLOR.set(choice);
}

/// The run's `--color`.
pub(crate) fn color_choice() -> ColorChoice {
    COLOR.get().copied().unwrap_or_default()
}

/// Whether to colour what goes to a stream that is (or is not) a terminal.
fn color_for(is_terminal: bool) -> bool {
    match color_choice() {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            is_terminal && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
        }
    }
}

/// How to draw diagnostics written to standard output.
pub(crate) fn stdout_style() -> Style {
    Style {
        color: color_for(io::stdout().is_terminal()),
        width: width(io::stdout().is_terminal()),
    }
}

/// How to draw diagnostics written to standard error.
pub(crate) fn stderr_style() -> Style {
    Style {
        color: color_for(io::stderr().is_terminal()),
        width: width(io::stderr().is_terminal()),
    }
}

/// How to draw diagnostics written to a file (`--output-file`): coloured
/// only under `--color always`.
pub(crate) fn file_style() -> Style {
    Style {
        color: color_for(false),
        width: width(false),
    }
}

/// What would change from `old` to `new` in `name`, as a unified diff
/// (`a/NAME`, `b/NAME`, three lines of context), as `git diff` shows it.
pub(crate) fn unified_diff(name: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

/// The width to wrap prose at: `COLUMNS` when set (so a CI log or a test
/// can choose), else the terminal's, else [`Style::DEFAULT_WIDTH`].
fn width(is_terminal: bool) -> usize {
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|&columns| columns >= Style::MIN_WIDTH);
    columns
        .or_else(|| {
            is_terminal
                .then(terminal_size::terminal_size)
                .flatten()
                .map(|(terminal_size::Width(columns), _)| usize::from(columns))
        })
        .unwrap_or(Style::DEFAULT_WIDTH)
        .max(Style::MIN_WIDTH)
}

/// Why writing a result stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// The reader went away: stop quietly.
    Closed,
    /// Writing failed otherwise (a full disk); already reported.
    Failed,
}

impl Stopped {
    /// The exit status after a stop: a closed pipe keeps the status the
    /// command had reached, a failure is a failure.
    pub(crate) fn outcome(self, reached: Outcome) -> Outcome {
        match self {
            Stopped::Closed => reached,
            Stopped::Failed => Outcome::Failed,
        }
    }
}

/// Classifies a failed write to standard output, reporting a real failure.
pub(crate) fn stopped(error: &io::Error) -> Stopped {
    if error.kind() == io::ErrorKind::BrokenPipe {
        Stopped::Closed
    } else {
        status(format_args!(
            "error: cannot write standard output: {}",
            crate::fs::describe(error)
        ));
        Stopped::Failed
    }
}

/// Writes a result to standard output through `write`, flushing it.
pub(crate) fn write_result(
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), Stopped> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|error| stopped(&error))
}

/// Writes `text` (and a line break) to standard output as a command's
/// result; the outcome is `reached` unless writing failed.
pub(crate) fn result(text: impl Display, reached: Outcome) -> Outcome {
    match write_result(|out| writeln!(out, "{text}")) {
        Ok(()) => reached,
        Err(stopped) => stopped.outcome(reached),
    }
}

/// Writes a status line to standard error. A closed standard error is
/// ignored: there is nowhere left to say so.
pub(crate) fn status(text: impl Display) {
    let _ = writeln!(io::stderr().lock(), "{text}");
}

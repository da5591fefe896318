//! The `contrib` command line.
//!
//! Exit status: 0 when no errors were found (warnings allowed), 1 when a
//! manifest has errors (or warnings under `--deny-warnings`), 2 when the
//! command could not run: bad usage, a missing file, an I/O failure.

mod check;
mod explain;
mod files;
mod fmt;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "contrib", version, about = "Compile and check prompt-contributor manifests")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check manifests (files, or folders searched for `*.contrib`).
    Check(check::CheckArgs),
    /// Rewrite manifests in the canonical layout (`-` for standard input).
    Fmt(fmt::FmtArgs),
    /// Explain a rule, by name or code.
    Explain {
        /// A rule's name (`placement-too-wide`) or code (`C0101`).
        rule: String,
    },
    /// List every rule with its code, name and default level.
    Rules,
}

/// How diagnostics are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The graphical report, for people.
    Human,
    /// One JSON document.
    Json,
}

/// The outcome of a command, as an exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Clean,
    Problems,
    Failed,
}

impl From<Outcome> for ExitCode {
    fn from(outcome: Outcome) -> Self {
        ExitCode::from(match outcome {
            Outcome::Clean => 0,
            Outcome::Problems => 1,
            Outcome::Failed => 2,
        })
    }
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                Outcome::Failed.into()
            } else {
                Outcome::Clean.into()
            };
        }
    };
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Fmt(args) => fmt::run(&args),
        Command::Explain { rule } => explain::explain(&rule),
        Command::Rules => explain::list(),
    }
    .into()
}

/// Prints a one-line error for a command that could not run.
fn fail(message: impl std::fmt::Display) -> Outcome {
    eprintln!("error: {message}");
    Outcome::Failed
}

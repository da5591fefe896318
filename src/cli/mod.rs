//! The `contrib` command line.
//!
//! Exit status: 0 when no errors were found (warnings allowed), 1 when a
//! manifest has errors (or warnings under `--deny-warnings`), 2 when the
//! command could not run: bad usage, a missing file, an I/O failure; 3 from
//! `diff` when the new version needs a person's approval.

mod build;
mod catalog;
pub mod check;
mod compile;
mod explain;
pub mod files;
mod fmt;
mod import;
mod lsp;
mod migrate;
mod rewrite;
mod runtime;
mod sign;
mod simulate;
mod usage;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "contrib",
    version,
    about = "Compile and check prompt-contributor manifests"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check manifests (files, or folders searched for `*.contrib`).
    Check(check::CheckArgs),
    /// Build bundles from manifests that check without errors.
    Build(build::BuildArgs),
    /// Build a manifest into a catalog and record it in `catalog.lock`.
    Publish(build::PublishArgs),
    /// Mark a published version withdrawn (new installs skip it).
    Yank(catalog::YankArgs),
    /// Catalog commands.
    #[command(subcommand)]
    Catalog(catalog::CatalogCommand),
    /// What a new version asks for beyond an old one (exit 3: needs approval).
    Diff(catalog::DiffArgs),
    /// What a person approves by installing a bundle or manifest.
    Preview(catalog::PreviewArgs),
    /// Make an ed25519 key pair for signing bundles.
    Keygen(sign::KeygenArgs),
    /// Sign a bundle's digest (writes `BUNDLE.sig`).
    Sign(sign::SignArgs),
    /// Verify a bundle's signature (fails closed).
    Verify(sign::VerifyArgs),
    /// Write other tools' skills, plugins, rules and instruction files as
    /// manifests.
    Import(import::ImportArgs),
    /// Print the request layout the runtime composes, turn by turn.
    Compose(runtime::ComposeArgs),
    /// What the eager loads that choose from usage load, and why.
    Usage(usage::UsageArgs),
    /// Simulate a fleet of conversations and compare the cache cost of
    /// contrib's layout with a careful engineer's, a naive one and none.
    Simulate(simulate::SimulateArgs),
    /// Rewrite manifests in the canonical layout (`-` for standard input).
    Fmt(fmt::FmtArgs),
    /// Rewrite manifests and `contrib.toml` files of the language's first
    /// version in the current one, comments kept.
    Migrate(migrate::MigrateArgs),
    /// Explain a rule, by name or code.
    Explain {
        /// A rule's name (`placement-too-wide`) or code (`C0101`).
        rule: String,
    },
    /// List every rule with its code, name and default level.
    Rules,
    /// Run the language server, speaking LSP over stdin and stdout.
    Lsp(lsp::LspArgs),
}

/// The outcome of a command, as an exit status; the worse of two is the
/// greater.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    Clean,
    Problems,
    Failed,
    /// `diff`: the new version asks for more than the old one.
    NeedsApproval,
}

impl From<Outcome> for ExitCode {
    fn from(outcome: Outcome) -> Self {
        ExitCode::from(match outcome {
            Outcome::Clean => 0,
            Outcome::Problems => 1,
            Outcome::Failed => 2,
            Outcome::NeedsApproval => 3,
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
        Command::Build(args) => build::build(&args),
        Command::Publish(args) => build::publish(&args),
        Command::Yank(args) => catalog::yank(&args),
        Command::Catalog(command) => catalog::run(&command),
        Command::Diff(args) => catalog::diff(&args),
        Command::Preview(args) => catalog::preview(&args),
        Command::Keygen(args) => sign::keygen(&args),
        Command::Sign(args) => sign::sign(&args),
        Command::Verify(args) => sign::verify(&args),
        Command::Import(args) => import::run(&args),
        Command::Compose(args) => runtime::compose(&args),
        Command::Simulate(args) => simulate::simulate(&args),
        Command::Usage(args) => usage::run(&args),
        Command::Fmt(args) => fmt::run(&args),
        Command::Migrate(args) => migrate::run(&args),
        Command::Explain { rule } => explain::explain(&rule),
        Command::Rules => explain::list(),
        Command::Lsp(args) => return lsp::run(&args),
    }
    .into()
}

/// Whether to colour human output: on a terminal, unless `NO_COLOR` is set.
pub(crate) fn use_color() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
}

/// Prints a one-line error for a command that could not run.
fn fail(message: impl std::fmt::Display) -> Outcome {
    eprintln!("error: {message}");
    Outcome::Failed
}

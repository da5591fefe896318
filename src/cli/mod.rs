//! The `contrib` command line.
//!
//! Exit status: 0 when no errors were found (warnings allowed), 1 when a
//! manifest has errors (or warnings under `--deny-warnings`), 2 when the
//! command could not run: bad usage, a missing file, an I/O failure; 3 from
//! `diff`, `install` and `update` when a version needs a person's approval
//! that was not given.

mod baseline;
mod build;
mod catalog;
pub mod check;
mod clock;
mod compile;
mod compose;
mod explain;
mod export;
mod fmt;
mod generate;
mod import;
mod init;
mod install;
mod installed;
mod lsp;
mod migrate;
mod oci;
pub mod output;
mod progress;
mod rewrite;
mod runtime;
mod screen;
mod sign;
mod simulate;
mod sources;
mod usage;
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use generate::command;
pub use init::{manifest as scaffold_manifest, CONFIG as SCAFFOLD_CONFIG, SCHEMA_URL};

#[derive(Parser)]
#[command(
    name = "contrib",
    version,
    about = "Compile and check prompt-contributor manifests"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to colour output: `auto` colours a terminal unless `NO_COLOR`
    /// is set.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t)]
    color: output::ColorChoice,
    /// Allow plain HTTP to registry catalogs (`oci://…`) that are not on
    /// this machine (those on the loopback are reached over HTTP anyway).
    #[arg(long, global = true)]
    plain_http: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Check manifests (files, or folders searched for `*.contrib`).
    Check(check::CheckArgs),
    /// Write a first manifest and a `contrib.toml` to start from.
    Init(init::InitArgs),
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
    /// Write manifests as packages other harnesses load: Agent Plugins or
    /// Claude Code plugins.
    Export(export::ExportArgs),
    /// Install a plugin version from a catalog into a workspace, after a
    /// re-check under the workspace's policy (exit 3: needs approval).
    Install(install::InstallArgs),
    /// Apply newer versions that ask for nothing more than was approved;
    /// stop with the delta for those that do (exit 3).
    Update(install::UpdateArgs),
    /// Remove an installed plugin from a workspace.
    Uninstall(install::UninstallArgs),
    /// Print the request layout the runtime composes, turn by turn.
    Compose(compose::ComposeArgs),
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
    /// Print a shell's completion script.
    Completions(generate::CompletionsArgs),
    /// Print the man page, or write one per command with `--out`.
    Man(generate::ManArgs),
}

/// The outcome of a command, as an exit status; the worse of two is the
/// greater.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    Clean,
    Problems,
    Failed,
    /// `diff`, `install`, `update`: a version asks for more than was
    /// approved.
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
    output::set_color(cli.color);
    oci::allow_plain_http(cli.plain_http);
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Init(args) => init::run(&args),
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
        Command::Export(args) => export::run(&args),
        Command::Install(args) => install::install(&args),
        Command::Update(args) => install::update(&args),
        Command::Uninstall(args) => install::uninstall(&args),
        Command::Compose(args) => compose::compose(&args),
        Command::Simulate(args) => simulate::simulate(&args),
        Command::Usage(args) => usage::run(&args),
        Command::Fmt(args) => fmt::run(&args),
        Command::Migrate(args) => migrate::run(&args),
        Command::Explain { rule } => explain::explain(&rule),
        Command::Rules => explain::list(),
        Command::Lsp(args) => return lsp::run(&args),
        Command::Completions(args) => generate::completions(&args),
        Command::Man(args) => generate::man(&args),
    }
    .into()
}

/// The manifests `paths` name (see [`crate::fs::discover`]), less those a
/// search found that their workspace's `exclude` leaves out (the
/// configuration is the one `resolver` gives each manifest), with a
/// warning on standard error for each file skipped that a person may not
/// expect to be, and for each folder in which nothing was found. The
/// outcome is [`Outcome::Failed`] when a folder held no manifest, so that
/// a path mistyped in CI fails instead of checking nothing.
fn manifests(
    paths: &[PathBuf],
    resolver: &mut crate::config::Resolver,
) -> Result<(Vec<PathBuf>, Outcome), String> {
    let mut found = crate::fs::manifests(paths)?;
    let mut kept = Vec::with_capacity(found.files.len());
    let mut seen = std::collections::HashSet::new();
    for file in std::mem::take(&mut found.files) {
        // A file named and also found in a folder named is read once.
        if !seen.insert(file.clone()) {
            continue;
        }
        // A path named on the command line is always read.
        let excluded = !paths.contains(&file) && resolver.peek(&file)?.excludes(&file);
        if !excluded {
            kept.push(file);
        }
    }
    for path in paths {
        let emptied = path.is_dir()
            && !found.empty.contains(path)
            && !kept.iter().any(|file| file.starts_with(path));
        if emptied {
            found.empty.push(path.clone());
        }
    }
    for warning in &found.warnings {
        output::status(format_args!(
            "warning: {}",
            crate::report::terminal::visible(warning)
        ));
    }
    for folder in &found.empty {
        output::status(format_args!(
            "warning: no manifests (`*.contrib`) in `{}`, or all are ignored (`.gitignore`, `{}`, `exclude` in `{}`)",
            crate::report::terminal::visible(&folder.display().to_string()),
            crate::fs::IGNORE_FILE,
            crate::config::FILE_NAME
        ));
    }
    let outcome = if found.empty.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Failed
    };
    Ok((kept, outcome))
}

/// Standard input as a manifest's bytes: at most one byte over the size
/// limit, so that a larger one is refused as a file would be.
fn read_stdin() -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(crate::limits::MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| {
            format!(
                "cannot read standard input: {}",
                crate::fs::describe(&error)
            )
        })?;
    Ok(bytes)
}

/// Whether the file that standard input stands for (`--stdin-filename`) is
/// one a search would leave out: its workspace's `exclude` (the
/// configuration `resolver` gives it), or an ignore file above it. A
/// linter piped every file by an editor or a hook then treats it as it
/// treats the file on disk.
fn stdin_excluded(
    path: &std::path::Path,
    resolver: &mut crate::config::Resolver,
) -> Result<bool, String> {
    let excluded = resolver.peek(path)?.excludes(path);
    Ok(excluded || crate::fs::listed_in_ignore_files(path))
}

/// Prints a one-line error for a command that could not run.
fn fail(message: impl std::fmt::Display) -> Outcome {
    output::status(format_args!(
        "error: {}",
        crate::report::terminal::visible(&message.to_string())
    ));
    Outcome::Failed
}

//! `contrib completions SHELL` and `contrib man`: generated from the same
//! definition the parser uses, so they never disagree with it.

use std::path::PathBuf;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::output::{self, status};
use super::{fail, Cli, Outcome};
use crate::fs;

#[derive(Args)]
pub(super) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

#[derive(Args)]
pub(super) struct ManArgs {
    /// Write `contrib.1` and one page per command (`contrib-check.1`, …)
    /// into this folder instead of printing `contrib.1`.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// The command line's definition, for completions, the man page and the
/// tests that hold every option to having help.
pub fn command() -> clap::Command {
    Cli::command()
}

pub(super) fn completions(args: &CompletionsArgs) -> Outcome {
    let mut command = command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "contrib", &mut script);
    match output::write_result(|out| out.write_all(&script)) {
        Ok(()) => Outcome::Clean,
        Err(stopped) => stopped.outcome(Outcome::Clean),
    }
}

pub(super) fn man(args: &ManArgs) -> Outcome {
    let command = command();
    let Some(folder) = &args.out else {
        let mut page = Vec::new();
        if let Err(error) = clap_mangen::Man::new(command).render(&mut page) {
            return fail(format!("cannot render the man page: {error}"));
        }
        return match output::write_result(|out| out.write_all(&page)) {
            Ok(()) => Outcome::Clean,
            Err(stopped) => stopped.outcome(Outcome::Clean),
        };
    };
    if let Err(error) = std::fs::create_dir_all(folder) {
        return fail(format!(
            "cannot create `{}`: {}",
            folder.display(),
            fs::describe(&error)
        ));
    }
    let mut pages = Vec::new();
    collect_pages(command, "contrib", &mut pages);
    for (name, command) in pages {
        let mut page = Vec::new();
        if let Err(error) = clap_mangen::Man::new(command).render(&mut page) {
            return fail(format!("cannot render `{name}.1`: {error}"));
        }
        let path = folder.join(format!("{name}.1"));
        if let Err(message) = fs::write_atomically(&path, &page) {
            return fail(message);
        }
    }
    status(format_args!("wrote the man pages to {}", folder.display()));
    Outcome::Clean
}

/// `command` and every visible subcommand under it, each titled as its
/// man page is named (`contrib-catalog-check`) and with its synopsis as it
/// is typed (`contrib catalog check`).
fn collect_pages(command: clap::Command, bin: &str, pages: &mut Vec<(String, clap::Command)>) {
    let children: Vec<clap::Command> = command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
        .cloned()
        .collect();
    let name = bin.replace(' ', "-");
    pages.push((
        name.clone(),
        command
            .display_name(name)
            .bin_name(bin.to_string())
            .version(env!("CARGO_PKG_VERSION")),
    ));
    for child in children {
        let child_bin = format!("{bin} {}", child.get_name());
        collect_pages(child, &child_bin, pages);
    }
}

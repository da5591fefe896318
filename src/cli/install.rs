//! `contrib install`, `contrib update`, `contrib uninstall`: a workspace
//! approves plugin versions from a catalog.
//!
//! Exit status: 0 installed (or nothing to do), 1 refused (the diagnostics
//! say why), 2 could not run, 3 needs an approval that was not given
//! (`--yes`, or a confirmation typed at a terminal; `update` never asks,
//! it stops with the delta).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;

use super::build::print_changes;
use super::clock::now;
use super::screen::{screen_text, write_page};
use super::{fail, output, Outcome};
use crate::bundle::oci::OciCatalog;
use crate::ir::Owner;
use crate::report::{self, Format, Totals};
use crate::trust::install::{Candidate, Install, Workspace};
use crate::trust::lock::catalog_path;
use crate::trust::screen::Screen;
use crate::trust::Refused;

#[derive(Args)]
pub(super) struct InstallArgs {
    /// `scope/name@version`.
    plugin: String,
    /// The catalog: a folder (holding `catalog.lock`) or a registry,
    /// `oci://HOST[:PORT]/NAMESPACE`.
    #[arg(long)]
    catalog: PathBuf,
    /// Approve what the preview shows without asking.
    #[arg(long)]
    yes: bool,
    /// Also write the approval screen as one self-contained HTML page to
    /// FILE, before anything is asked or installed.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    #[command(flatten)]
    workspace: WorkspaceArgs,
}

#[derive(Args)]
pub(super) struct UpdateArgs {
    /// The plugin (`scope/name`); every installed plugin when left out.
    plugin: Option<String>,
    #[command(flatten)]
    workspace: WorkspaceArgs,
}

#[derive(Args)]
pub(super) struct UninstallArgs {
    /// The plugin (`scope/name`).
    plugin: String,
    /// The workspace whose `contrib.lock` forgets the plugin.
    #[arg(long, value_name = "DIR", default_value = ".")]
    workspace: PathBuf,
}

#[derive(Args)]
struct WorkspaceArgs {
    /// The workspace: the folder holding `contrib.toml`, where
    /// `contrib.lock` is written.
    #[arg(long, value_name = "DIR", default_value = ".")]
    workspace: PathBuf,
    /// Who installs: the most authority the plugin's contributors get
    /// (`operator`, `agent-author`, `workspace`, `person`). By default
    /// `[trust] as` in `contrib.toml`, else `person`; `update` keeps who
    /// approved the version it updates.
    #[arg(long = "as", value_name = "AUTHORITY", value_parser = parse_owner)]
    authority: Option<Owner>,
}

fn parse_owner(text: &str) -> Result<Owner, String> {
    Owner::parse(text).ok_or_else(|| {
        let owners: Vec<&str> = Owner::spellings().collect();
        format!("`{text}` is not an authority; write {}", owners.join(", "))
    })
}

/// Opens the workspace for a change, holding its lock until the command
/// is done, and shows what is wrong with its `contrib.toml`: a policy half
/// understood decides nothing, so errors there stop here.
fn open(folder: &std::path::Path) -> Result<Workspace, Outcome> {
    let waiting = |message: &str| super::output::status(format_args!("note: {message}"));
    let workspace = Workspace::open_for_change(folder, &waiting).map_err(fail)?;
    if !workspace.config_diagnostics.is_empty() {
        if let Some(source) = &workspace.config.source {
            let mut emitter = report::emitter(Format::Human, output::stdout_style());
            let _ = emitter.file(
                &mut std::io::stdout().lock(),
                source,
                &workspace.config_diagnostics,
            );
        }
        if workspace.config_diagnostics.iter().any(|d| d.is_error()) {
            return Err(fail(
                "the workspace's `contrib.toml` has errors; fix them before installing",
            ));
        }
    }
    Ok(workspace)
}

pub(super) fn install(args: &InstallArgs) -> Outcome {
    let mut workspace = match open(&args.workspace.workspace) {
        Ok(workspace) => workspace,
        Err(outcome) => return outcome,
    };
    let Some((plugin, version)) = args.plugin.rsplit_once('@') else {
        return fail(format!("`{}` is not `scope/name@version`", args.plugin));
    };
    let Ok(version) = semver::Version::parse(version) else {
        return fail(format!("`{version}` is not a semantic version"));
    };
    let installer = workspace.authority(args.workspace.authority);
    let (folder, registry) =
        match catalog_folder(&workspace.folder, &args.catalog, plugin, Some(&version)) {
            Ok(found) => found,
            Err(message) => return fail(message),
        };
    let candidate = match workspace.candidate(&folder, plugin, &version, installer) {
        Ok(candidate) => from_registry(candidate, registry.as_ref()),
        Err(refused) => return refuse(&refused),
    };
    show(&candidate);
    if let Some(unrecorded) = &candidate.unrecorded {
        print_refused(unrecorded);
    }
    if let Some(path) = &args.html {
        if let Err(message) = write_page(path, &Screen::of_candidate(&candidate)) {
            return fail(message);
        }
    }
    if candidate.refused() {
        println!("\nrefused: {} is not installed", candidate.bundle.id());
        return Outcome::Problems;
    }
    let how = if !candidate.needs_approval() {
        format!(
            "within the approval of {}",
            candidate
                .previous
                .as_ref()
                .map_or_else(String::new, |previous| previous.id())
        )
    } else if args.yes {
        "approved with --yes".to_string()
    } else if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        if !confirm(&candidate) {
            println!("not installed");
            return Outcome::NeedsApproval;
        }
        "confirmed at a terminal".to_string()
    } else {
        println!(
            "\n{} needs approval: read the above, then run again with `--yes`",
            candidate.bundle.id()
        );
        return Outcome::NeedsApproval;
    };
    record(&mut workspace, &candidate, installer, &how)
}

pub(super) fn update(args: &UpdateArgs) -> Outcome {
    let mut workspace = match open(&args.workspace.workspace) {
        Ok(workspace) => workspace,
        Err(outcome) => return outcome,
    };
    let targets: Vec<_> = match &args.plugin {
        Some(plugin) => match workspace.lock.get(plugin) {
            Some(entry) => vec![entry.clone()],
            None => return fail(format!("`{plugin}` is not installed in this workspace")),
        },
        None => workspace.lock.installed.clone(),
    };
    let mut outcome = Outcome::Clean;
    for installed in targets {
        let registry = match crate::bundle::oci::OciCatalog::parse(&installed.catalog) {
            Some(Ok(registry)) => {
                let catalog = PathBuf::from(registry.to_string());
                if let Err(message) =
                    catalog_folder(&workspace.folder, &catalog, &installed.plugin, None)
                {
                    return fail(message);
                }
                Some(registry)
            }
            Some(Err(message)) => return fail(message),
            None => None,
        };
        let newer = match workspace.newer(&installed) {
            Ok(Some(version)) => version,
            Ok(None) => {
                println!("{} is up to date", installed.id());
                continue;
            }
            Err(message) => return fail(message),
        };
        let installer = args.workspace.authority.unwrap_or(installed.approved_by);
        let catalog = catalog_path(&workspace.folder, &installed);
        let candidate = match workspace.candidate(&catalog, &installed.plugin, &newer, installer) {
            Ok(candidate) => from_registry(candidate, registry.as_ref()),
            Err(refused) => {
                outcome = outcome.max(refuse(&refused));
                continue;
            }
        };
        if candidate.refused() {
            show(&candidate);
            println!("\nrefused: {} is not installed", candidate.bundle.id());
            outcome = outcome.max(Outcome::Problems);
            continue;
        }
        if let Some(unrecorded) = &candidate.unrecorded {
            println!();
            print_refused(unrecorded);
        }
        if candidate.needs_approval() {
            println!();
            let _ = print_changes(
                &mut std::io::stdout().lock(),
                &installed.id(),
                &candidate.bundle.id(),
                &candidate.changes,
            );
            println!(
                "{} asks for more than {} was approved for: approve it with {}",
                candidate.bundle.id(),
                installed.id(),
                crate::trust::approved::approve_again(
                    &workspace.folder,
                    &installed,
                    &candidate.bundle.id()
                )
            );
            outcome = outcome.max(Outcome::NeedsApproval);
            continue;
        }
        let how = format!("update within the approval of {}", installed.id());
        outcome = outcome.max(record(&mut workspace, &candidate, installer, &how));
    }
    outcome
}

pub(super) fn uninstall(args: &UninstallArgs) -> Outcome {
    let mut workspace = match open(&args.workspace) {
        Ok(workspace) => workspace,
        Err(outcome) => return outcome,
    };
    let version = workspace.lock.get(&args.plugin).map(|entry| entry.id());
    match workspace.uninstall(&args.plugin) {
        Ok(true) => {
            println!(
                "uninstalled {}: running conversations drop it at their next turn",
                version.unwrap_or_default()
            );
            Outcome::Clean
        }
        Ok(false) => fail(format!(
            "`{}` is not installed in this workspace",
            args.plugin
        )),
        Err(message) => fail(message),
    }
}

/// The folder catalog to read `catalog` through: itself, or for a
/// registry the workspace's mirror of it, refreshed with `plugin`'s
/// version (`version`, else the newest installable) pulled by digest.
fn catalog_folder(
    workspace: &std::path::Path,
    catalog: &std::path::Path,
    plugin: &str,
    version: Option<&semver::Version>,
) -> Result<(PathBuf, Option<OciCatalog>), String> {
    match super::oci::catalog_of(catalog) {
        Some(Ok(registry)) => {
            let (folder, _) =
                super::oci::mirror_for_install(workspace, &registry, plugin, version)?;
            Ok((folder, Some(registry)))
        }
        Some(Err(message)) => Err(message),
        None => Ok((catalog.to_path_buf(), None)),
    }
}

/// A candidate read through a registry's mirror names the registry, which
/// is what `contrib.lock` records.
fn from_registry(mut candidate: Candidate, registry: Option<&OciCatalog>) -> Candidate {
    if let Some(registry) = registry {
        candidate.catalog = PathBuf::from(registry.to_string());
    }
    candidate
}

fn record(workspace: &mut Workspace, candidate: &Candidate, by: Owner, how: &str) -> Outcome {
    match workspace.record_candidate(candidate, by, &now(), how) {
        Ok(entry) => {
            println!(
                "installed {} ({}, granted `{}`) → {}",
                entry.id(),
                how,
                entry.granted_owner,
                workspace.folder.join(crate::trust::LOCK_FILE).display()
            );
            Outcome::Clean
        }
        Err(message) => fail(message),
    }
}

/// A refusal before anything could be re-checked: a missing, edited or
/// withdrawn version.
fn refuse(refused: &Refused) -> Outcome {
    print_refused(refused);
    Outcome::Problems
}

fn print_refused(refused: &Refused) {
    let line = format!(
        "error[{}]: {} is refused: {}",
        refused.rule.name, refused.plugin, refused.reason
    );
    println!("{}", crate::report::terminal::visible(&line));
}

/// The install preview, then the re-check's diagnostics.
fn show(candidate: &Candidate) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let screen = screen_text(&Screen::of_candidate(candidate));
    let _ = out.write_all(crate::report::terminal::visible(&screen).as_bytes());
    let checked = &candidate.recheck;
    if !checked.diagnostics.is_empty() {
        let _ = writeln!(out);
        let mut emitter = report::emitter(Format::Human, output::stdout_style());
        let mut totals = Totals::default();
        totals.add(&checked.diagnostics);
        let _ = emitter.file(&mut out, &checked.source, &checked.diagnostics);
        let _ = emitter.finish(&mut out, totals);
    }
}

/// Asks at the terminal; only a typed `y` or `yes` approves.
fn confirm(candidate: &Candidate) -> bool {
    print!(
        "\nInstall {} with `{}` authority? [y/N] ",
        candidate.bundle.id(),
        candidate.recheck.granted
    );
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

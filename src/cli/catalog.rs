//! `contrib catalog check`, `contrib yank`, `contrib diff`, `contrib preview`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::build::print_changes;
use super::compile::{bundle_or_manifest, compile, Compiled, NotBuilt};
use super::output::{self, status, ReportFormat};
use super::rewrite::{print_update, RewriteArgs};
use super::screen::{screen_text, write_page};
use super::{fail, Outcome};
use crate::bundle::catalog::{self, Lock};
use crate::bundle::diff;
use crate::codes::SOURCE_CHANGED;
use crate::config::{Config, Resolver};
use crate::diagnostic::Diagnostic;
use crate::report::{self, Format, Totals};
use crate::trust::install::{Install, Workspace};
use crate::trust::recheck::{recheck, Relaxations};
use crate::trust::screen::Screen;

#[derive(Subcommand)]
pub(super) enum CatalogCommand {
    /// Check a catalog: digests, lock, signatures, catalog-wide rules and
    /// the approval delta between consecutive versions.
    Check(CatalogCheckArgs),
    /// Trust a public key: its signatures are then required on every
    /// bundle (copies it to `keys/ed25519-<id>.pub`, lists it in the lock).
    Trust(KeyArgs),
    /// Stop trusting a key, named by its id or its `.pub` file.
    Untrust(KeyArgs),
    /// Mirror a registry catalog (`oci://…`) into a folder catalog, every
    /// version pulled by digest: for offline and air-gapped installs.
    Pull(MirrorArgs),
    /// Publish a folder catalog's versions (and its yanks) into a registry
    /// catalog, each judged as `publish` judges it.
    Push(MirrorArgs),
}

#[derive(Args)]
pub(super) struct MirrorArgs {
    /// For `pull`, the registry catalog; for `push`, the folder.
    from: PathBuf,
    /// For `pull`, the folder; for `push`, the registry catalog.
    to: PathBuf,
}

#[derive(Args)]
pub(super) struct KeyArgs {
    /// A public key file (`NAME.pub`, from `contrib keygen`); for
    /// `untrust`, also a key id (`ed25519:…`).
    key: String,
    /// The catalog folder (holding `catalog.lock`), or a registry catalog
    /// (`oci://HOST[:PORT]/NAMESPACE`) with `--workspace`.
    #[arg(long)]
    catalog: PathBuf,
    /// For a registry catalog, the workspace that trusts the key: a
    /// registry's keys are its readers' to choose, never the registry's.
    #[arg(long)]
    workspace: Option<PathBuf>,
}

#[derive(Args)]
pub(super) struct CatalogCheckArgs {
    /// The catalog: a folder, or a registry (`oci://HOST[:PORT]/NAMESPACE`),
    /// whose index and every bundle are read.
    catalog: PathBuf,
    /// Manifests (or folders of them) that must still match what was
    /// published for their version.
    sources: Vec<PathBuf>,
    /// The policy the catalog-wide rules are judged by; by default the
    /// catalog's own (its `contrib.toml`, else the platform's).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// How to write diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// For a registry: how many versions' bundles to pull and compare
    /// with what their publish events record (a random sample, new each
    /// run), or `all`.
    #[arg(long, value_name = "N|all", default_value_t = super::oci::check::Sample::Some(super::oci::check::DEFAULT_SAMPLE))]
    bundles: super::oci::check::Sample,
    #[command(flatten)]
    rewrite: RewriteArgs,
}

#[derive(Args)]
pub(super) struct YankArgs {
    /// `scope/name@version`.
    plugin: String,
    /// The catalog: a folder (holding `catalog.lock`) or a registry,
    /// `oci://HOST[:PORT]/NAMESPACE`.
    #[arg(long, value_name = "DIR")]
    catalog: PathBuf,
    /// Make the version installable again.
    #[arg(long)]
    undo: bool,
}

#[derive(Args)]
pub(super) struct DiffArgs {
    /// The approved version: a bundle or a manifest; with `--workspace`,
    /// the installed plugin (`scope/name`).
    old: PathBuf,
    /// The new version: a bundle or a manifest.
    new: PathBuf,
    /// Compare with what this workspace approved: its own copy of the
    /// installed version, both read under its policy as `update` reads
    /// them.
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// The workspace configuration manifests are built with; by default
    /// the nearest `contrib.toml`.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// How to write the delta.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    format: ReportFormat,
    #[command(flatten)]
    rewrite: RewriteArgs,
}

#[derive(Args)]
pub(super) struct PreviewArgs {
    /// A bundle or a manifest.
    path: PathBuf,
    /// Write the approval screen as one self-contained HTML page to FILE
    /// (no script, nothing loaded) instead of printing it.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// The workspace configuration a manifest is built with; by default
    /// the nearest `contrib.toml`.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

pub(super) fn run(command: &CatalogCommand) -> Outcome {
    match command {
        CatalogCommand::Check(args) => check(args),
        CatalogCommand::Trust(args) => trust(args),
        CatalogCommand::Untrust(args) => untrust(args),
        CatalogCommand::Pull(args) => pull(args),
        CatalogCommand::Push(args) => push(args),
    }
}

fn pull(args: &MirrorArgs) -> Outcome {
    let registry = match super::oci::catalog_of(&args.from) {
        Some(Ok(registry)) => registry,
        Some(Err(message)) => return fail(message),
        None => {
            return fail(format!(
                "`{}` is not a registry catalog (`oci://HOST[:PORT]/NAMESPACE`)",
                args.from.display()
            ))
        }
    };
    match super::oci::pull_catalog(&registry, &args.to) {
        Ok((_, versions)) => {
            println!(
                "pulled {versions} version(s) of `{registry}` into `{}`",
                args.to.display()
            );
            Outcome::Clean
        }
        Err(message) => fail(message),
    }
}

fn push(args: &MirrorArgs) -> Outcome {
    let registry = match super::oci::catalog_of(&args.to) {
        Some(Ok(registry)) => registry,
        Some(Err(message)) => return fail(message),
        None => {
            return fail(format!(
                "`{}` is not a registry catalog (`oci://HOST[:PORT]/NAMESPACE`)",
                args.to.display()
            ))
        }
    };
    match super::oci::push_catalog(&args.from, &registry) {
        Ok((new, kept)) => {
            println!(
                "pushed `{}` into `{registry}`: {new} versions published, {kept} already there",
                args.from.display()
            );
            Outcome::Clean
        }
        Err(message) => fail(message),
    }
}

/// The folder catalog whose lock holds the keys: the catalog itself, or
/// for a registry the workspace's mirror of it, which install, update and
/// every load verify signatures under.
fn key_folder(args: &KeyArgs) -> Result<PathBuf, String> {
    let Some(registry) = super::oci::catalog_of(&args.catalog) else {
        return Ok(args.catalog.clone());
    };
    let registry = registry?;
    let workspace = args.workspace.as_deref().ok_or_else(|| {
        format!("a registry's trusted keys are a workspace's: name it with `--workspace` (`{registry}` itself is not trusted to choose them)")
    })?;
    let folder = crate::bundle::oci::mirror_folder(workspace, &registry);
    crate::fs::create_folder(&folder)?;
    Ok(folder)
}

fn trust(args: &KeyArgs) -> Outcome {
    let text = match std::fs::read_to_string(&args.key) {
        Ok(text) => text,
        Err(error) => return fail(format!("cannot read `{}`: {error}", args.key)),
    };
    let folder = match key_folder(args) {
        Ok(folder) => folder,
        Err(message) => return fail(message),
    };
    match crate::bundle::keys::trust(&folder, &text) {
        Ok(trusted) => {
            println!(
                "the catalog trusts {} (public key in `{}`)",
                trusted.id,
                trusted.key_file.display()
            );
            if !trusted.unsigned.is_empty() {
                println!(
                    "not signed by a trusted key, so refused until signed (`contrib sign BUNDLE --key …`): {}",
                    trusted.unsigned.join(", ")
                );
            }
            Outcome::Clean
        }
        Err(message) => fail(message),
    }
}

fn untrust(args: &KeyArgs) -> Outcome {
    let folder = match key_folder(args) {
        Ok(folder) => folder,
        Err(message) => return fail(message),
    };
    match crate::bundle::keys::untrust(&folder, &args.key) {
        Ok(id) => {
            println!("the catalog no longer trusts {id}");
            Outcome::Clean
        }
        Err(message) => fail(message),
    }
}

fn check(args: &CatalogCheckArgs) -> Outcome {
    match super::oci::catalog_of(&args.catalog) {
        Some(Ok(registry)) => check_registry(args, &registry),
        Some(Err(message)) => fail(message),
        None => check_folder(args, &args.catalog, Vec::new()),
    }
}

/// A registry catalog is checked from its index ([`super::oci::check`]);
/// with sources to compare, which need the bundles, as a mirror of it
/// (its index and every bundle, pulled by digest), then for what only a
/// registry can get wrong.
fn check_registry(args: &CatalogCheckArgs, registry: &crate::bundle::oci::OciCatalog) -> Outcome {
    if args.sources.is_empty() {
        return match check_config(args, None) {
            Ok((config, diagnostics)) => super::oci::check::from_index(
                registry,
                args.format,
                &config,
                &diagnostics,
                args.bundles,
            ),
            Err(message) => fail(message),
        };
    }
    super::oci::check::mirrored(registry, &|folder, found| check_folder(args, folder, found))
}

/// The policy a check judges by: `--config`, else the folder catalog's
/// own (a registry has none: the platform's), with the configuration's
/// diagnostics (reported with the catalog's, so the run fails rather than
/// checking against the platform's defaults).
fn check_config(
    args: &CatalogCheckArgs,
    folder: Option<&std::path::Path>,
) -> Result<(Config, Vec<Diagnostic>), String> {
    match (&args.config, folder) {
        (Some(path), _) => Config::load(path).map_err(String::from),
        (None, Some(folder)) => crate::bundle::catalog::consistency::policy_of(folder)
            .map(|config| (config, Vec::new()))
            .map_err(String::from),
        (None, None) => Ok((Config::platform(), Vec::new())),
    }
}

/// Checks the folder catalog `catalog`, reporting `also` (a registry's
/// own findings, when the folder mirrors one) in the same summary.
fn check_folder(
    args: &CatalogCheckArgs,
    catalog: &std::path::Path,
    also: Vec<super::oci::check::Located>,
) -> Outcome {
    let (config, config_diagnostics) = match check_config(args, Some(catalog)) {
        Ok(loaded) => loaded,
        Err(message) => return fail(message),
    };
    let report = match catalog::check(catalog, &config) {
        Ok(report) => report,
        Err(message) => return fail(message),
    };
    for skipped in &report.skipped {
        status(format_args!(
            "warning: skipped {}",
            crate::report::terminal::visible(&skipped.to_string())
        ));
    }
    let mut emitter = report::emitter(args.format, output::stdout_style());
    let mut totals = Totals::default();
    let mut files = report.files;
    files.extend(also);
    if !args.sources.is_empty() {
        match sources_against_catalog(args, catalog) {
            Ok(sources) => files.extend(sources),
            Err(message) => return fail(message),
        }
    }
    let (traffic, price) = match args.rewrite.pricing() {
        Ok(pricing) => pricing,
        Err(message) => return fail(message),
    };
    let reached = |totals: Totals| {
        if totals.errors > 0 {
            Outcome::Problems
        } else {
            Outcome::Clean
        }
    };
    let written = output::write_result(|out| {
        if let (Some(source), false) = (&config.source, config_diagnostics.is_empty()) {
            totals.add(&config_diagnostics);
            emitter.file(out, source, &config_diagnostics)?;
        }
        for (source, diagnostics) in &files {
            totals.add(diagnostics);
            emitter.file(out, source, diagnostics)?;
        }
        emitter.finish(out, totals)?;
        if args.format == Format::Human {
            for delta in &report.deltas {
                writeln!(out)?;
                let mut changes = delta.changes.clone();
                diff::estimate(&mut changes, &delta.new, &traffic, &price);
                print_changes(
                    out,
                    &format!("{}@{}", delta.plugin, delta.from),
                    &format!("{}@{}", delta.plugin, delta.to),
                    &changes,
                )?;
                print_update(out, &changes, &delta.new, &traffic, &price)?;
            }
            update_total(out, &report.deltas, &traffic, &price)?;
        }
        Ok(())
    });
    if let Err(stopped) = written {
        return stopped.outcome(reached(totals));
    }
    status(totals.summary());
    reached(totals)
}

/// The catalog's latest update as a whole: each plugin's newest version
/// against the one before, re-written once each.
fn update_total(
    out: &mut dyn std::io::Write,
    deltas: &[catalog::Delta],
    traffic: &diff::Traffic,
    price: &diff::RewritePrice,
) -> std::io::Result<()> {
    let mut latest: Vec<&catalog::Delta> = Vec::new();
    for delta in deltas {
        match latest.last_mut() {
            Some(last) if last.plugin == delta.plugin => *last = delta,
            _ => latest.push(delta),
        }
    }
    let priced: Vec<(String, diff::Rewrite)> = latest
        .iter()
        .filter_map(|delta| {
            let (_, rewrite) = diff::update_rewrite(&delta.changes, &delta.new, traffic, price)?;
            Some((format!("{}@{}", delta.plugin, delta.to), rewrite))
        })
        .collect();
    if priced.is_empty() {
        return Ok(());
    }
    let tokens: u64 = priced.iter().map(|(_, rewrite)| rewrite.tokens).sum();
    let units: f64 = priced.iter().map(|(_, rewrite)| rewrite.extra_cost).sum();
    let usd = priced
        .iter()
        .map(|(_, rewrite)| rewrite.extra_usd)
        .sum::<Option<f64>>()
        .map_or_else(String::new, |usd| format!(" (${usd:.4})"));
    let names: Vec<&str> = priced.iter().map(|(name, _)| name.as_str()).collect();
    writeln!(
        out,
        "\nthe catalog's latest update ({}) writes about {tokens} cached tokens again, {units:.0} uncached-input-token units more{usd}, once, under the same traffic",
        names.join(", ")
    )
}

/// Builds each source and compares it with what the catalog published for
/// its version.
fn sources_against_catalog(
    args: &CatalogCheckArgs,
    catalog: &std::path::Path,
) -> Result<Vec<(crate::source::SourceFile, Vec<Diagnostic>)>, String> {
    let lock = Lock::read(catalog)?;
    let mut resolver = Resolver::new(args.config.clone());
    let mut out = Vec::new();
    let (manifests, _) = super::manifests(&args.sources, &mut resolver)?;
    for path in manifests {
        let compiled = match compile(&path, &mut resolver) {
            Ok(compiled) => compiled,
            Err(NotBuilt::Errors(source, diagnostics)) => {
                out.push((source, diagnostics));
                continue;
            }
            Err(NotBuilt::Config(first)) => {
                if let Some(first) = first {
                    out.push(first);
                }
                continue;
            }
            Err(NotBuilt::Failed(message)) => return Err(message),
        };
        let Compiled {
            source,
            mut diagnostics,
            bundle,
            version_span,
        } = compiled;
        if let Some(entry) = lock.entry(&bundle.plugin, &bundle.version) {
            let built = bundle.digest.clone().unwrap_or_default();
            if entry.digest != built {
                diagnostics.push(
                    Diagnostic::new(
                        &SOURCE_CHANGED,
                        format!(
                            "this manifest no longer matches the published {}",
                            bundle.id()
                        ),
                    )
                    .primary(version_span, format!("published as {}", entry.digest))
                    .help(format!(
                        "it now builds to {built}; bump the version and publish it"
                    )),
                );
            }
        }
        out.push((source, diagnostics));
    }
    Ok(out)
}

pub(super) fn yank(args: &YankArgs) -> Outcome {
    let Some((plugin, version)) = args.plugin.rsplit_once('@') else {
        return fail(format!("`{}` is not `scope/name@version`", args.plugin));
    };
    let Ok(version) = semver::Version::parse(version) else {
        return fail(format!("`{version}` is not a semantic version"));
    };
    let waiting = |message: &str| status(format_args!("note: {message}"));
    let yanked = match super::oci::catalog_of(&args.catalog) {
        Some(Ok(registry)) => super::oci::yank(&registry, plugin, &version, args.undo),
        Some(Err(message)) => Err(message),
        None => catalog::yank(&args.catalog, plugin, &version, args.undo, &waiting)
            .map_err(String::from),
    };
    match yanked {
        Ok(version) => {
            status(format_args!(
                "{} {plugin}@{version}",
                if args.undo { "restored" } else { "yanked" }
            ));
            Outcome::Clean
        }
        Err(message) => fail(message),
    }
}

/// Exit status 3 when the new version needs approval, so CI can gate on it.
pub(super) fn diff(args: &DiffArgs) -> Outcome {
    let mut resolver = Resolver::new(args.config.clone());
    let (old, new) = match &args.workspace {
        Some(folder) => match against_workspace(folder, args, &mut resolver) {
            Ok(pair) => pair,
            Err(outcome) => return outcome,
        },
        None => match (
            bundle_or_manifest(&args.old, &mut resolver),
            bundle_or_manifest(&args.new, &mut resolver),
        ) {
            (Ok(old), Ok(new)) => (old, new),
            (Err(message), _) | (_, Err(message)) => return fail(message),
        },
    };
    if let Err(different) = diff::comparable(&old, &new) {
        return fail(different.to_string());
    }
    let (traffic, price) = match args.rewrite.pricing() {
        Ok(pricing) => pricing,
        Err(message) => return fail(message),
    };
    let mut changes = diff::diff(&old, &new);
    diff::estimate(&mut changes, &new, &traffic, &price);
    let reached = if diff::needs_approval(&changes) {
        Outcome::NeedsApproval
    } else {
        Outcome::Clean
    };
    let written = output::write_result(|out| match args.format {
        ReportFormat::Json => {
            let update = diff::update_rewrite(&changes, &new, &traffic, &price);
            let document = serde_json::json!({
                "old": old.id(),
                "new": new.id(),
                "needs_approval": reached == Outcome::NeedsApproval,
                "changes": changes,
                "cache": {
                    "invalidates": update.as_ref().map(|(placement, _)| placement),
                    "rewrite": update.map(|(_, rewrite)| rewrite),
                    "traffic": traffic,
                    "price": price,
                },
            });
            serde_json::to_writer_pretty(&mut *out, &document)?;
            writeln!(out)
        }
        ReportFormat::Human => {
            print_changes(out, &old.id(), &new.id(), &changes)?;
            print_update(out, &changes, &new, &traffic, &price)
        }
    });
    match written {
        Ok(()) => reached,
        Err(stopped) => stopped.outcome(reached),
    }
}

/// The version `folder` approved of the plugin `args.old` (its own copy,
/// never the catalog's) and `args.new`, both as that workspace reads them.
fn against_workspace(
    folder: &std::path::Path,
    args: &DiffArgs,
    resolver: &mut Resolver,
) -> Result<(crate::bundle::Bundle, crate::bundle::Bundle), Outcome> {
    let workspace = Workspace::open(folder).map_err(fail)?;
    let plugin = args.old.to_string_lossy();
    let Some(installed) = workspace.lock.get(&plugin) else {
        return Err(fail(format!(
            "`{plugin}` is not installed in `{}`",
            folder.display()
        )));
    };
    let old = workspace.approved_as_read(installed).map_err(|refused| {
        println!(
            "error[{}]: {} is refused: {}",
            refused.rule.name, refused.plugin, refused.reason
        );
        Outcome::NeedsApproval
    })?;
    let new = bundle_or_manifest(&args.new, resolver).map_err(fail)?;
    let new = recheck(
        &new,
        &workspace.config,
        installed.approved_by,
        Relaxations::Configured,
    );
    Ok((old.approved, new.approved))
}

pub(super) fn preview(args: &PreviewArgs) -> Outcome {
    let mut resolver = Resolver::new(args.config.clone());
    match bundle_or_manifest(&args.path, &mut resolver) {
        Ok(bundle) => {
            let screen = Screen::of_bundle(&bundle);
            match &args.html {
                Some(path) => write_page(path, &screen).map_or_else(fail, |()| Outcome::Clean),
                // What the person sees must be what the model gets, so
                // nothing in it may act on the terminal.
                None => output::result(
                    crate::report::terminal::visible(&screen_text(&screen)).trim_end(),
                    Outcome::Clean,
                ),
            }
        }
        Err(message) => fail(message),
    }
}

//! `contrib catalog check`, `contrib yank`, `contrib diff`, `contrib preview`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::build::print_changes;
use super::compile::{bundle_or_manifest, compile, Compiled, NotBuilt};
use super::output::{self, status, ReportFormat};
use super::rewrite::{print_update, RewriteArgs};
use super::{fail, files, Outcome};
use crate::bundle::catalog::{self, Lock};
use crate::bundle::diff;
use crate::bundle::Bundle;
use crate::config::{Config, Resolver};
use crate::diagnostic::Diagnostic;
use crate::report::{self, Format, Totals};
use crate::rules::SOURCE_CHANGED;

#[derive(Subcommand)]
pub enum CatalogCommand {
    /// Check a catalog: digests, lock, signatures, catalog-wide rules and
    /// the approval delta between consecutive versions.
    Check(CatalogCheckArgs),
    /// Trust a public key: its signatures are then required on every
    /// bundle (copies it to `keys/ed25519-<id>.pub`, lists it in the lock).
    Trust(KeyArgs),
    /// Stop trusting a key, named by its id or its `.pub` file.
    Untrust(KeyArgs),
}

#[derive(Args)]
pub struct KeyArgs {
    /// A public key file (`NAME.pub`, from `contrib keygen`); for
    /// `untrust`, also a key id (`ed25519:…`).
    key: String,
    /// The catalog folder (holding `catalog.lock`).
    #[arg(long)]
    catalog: PathBuf,
}

#[derive(Args)]
pub struct CatalogCheckArgs {
    /// The catalog folder.
    catalog: PathBuf,
    /// Manifests (or folders of them) that must still match what was
    /// published for their version.
    sources: Vec<PathBuf>,
    /// The workspace configuration; by default the platform's alone.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// How to write diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    rewrite: RewriteArgs,
}

#[derive(Args)]
pub struct YankArgs {
    /// `scope/name@version`.
    plugin: String,
    /// The catalog folder (holding `catalog.lock`).
    #[arg(long, value_name = "DIR")]
    catalog: PathBuf,
    /// Make the version installable again.
    #[arg(long)]
    undo: bool,
}

#[derive(Args)]
pub struct DiffArgs {
    /// The approved version: a bundle or a manifest.
    old: PathBuf,
    /// The new version: a bundle or a manifest.
    new: PathBuf,
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
pub struct PreviewArgs {
    /// A bundle or a manifest.
    path: PathBuf,
    /// The workspace configuration a manifest is built with; by default
    /// the nearest `contrib.toml`.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

pub fn run(command: &CatalogCommand) -> Outcome {
    match command {
        CatalogCommand::Check(args) => check(args),
        CatalogCommand::Trust(args) => trust(args),
        CatalogCommand::Untrust(args) => untrust(args),
    }
}

fn trust(args: &KeyArgs) -> Outcome {
    let text = match std::fs::read_to_string(&args.key) {
        Ok(text) => text,
        Err(error) => return fail(format!("cannot read `{}`: {error}", args.key)),
    };
    match crate::bundle::keys::trust(&args.catalog, &text) {
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
    match crate::bundle::keys::untrust(&args.catalog, &args.key) {
        Ok(id) => {
            println!("the catalog no longer trusts {id}");
            Outcome::Clean
        }
        Err(message) => fail(message),
    }
}

fn check(args: &CatalogCheckArgs) -> Outcome {
    let config = match &args.config {
        Some(path) => match Config::load(path) {
            Ok((config, _)) => config,
            Err(message) => return fail(message),
        },
        None => Config::platform(),
    };
    let report = match catalog::check(&args.catalog, &config) {
        Ok(report) => report,
        Err(message) => return fail(message),
    };
    let mut emitter = report::emitter(args.format, output::stdout_style());
    let mut totals = Totals::default();
    let mut files = report.files;
    if !args.sources.is_empty() {
        match sources_against_catalog(args) {
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
) -> Result<Vec<(crate::source::SourceFile, Vec<Diagnostic>)>, String> {
    let lock = Lock::read(&args.catalog)?;
    let mut resolver = Resolver::new(args.config.clone());
    let mut out = Vec::new();
    for path in files::manifests(&args.sources)? {
        let compiled = match compile(&path, &mut resolver) {
            Ok(compiled) => compiled,
            Err(NotBuilt::Errors(source, diagnostics)) => {
                out.push((source, diagnostics));
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

pub fn yank(args: &YankArgs) -> Outcome {
    let Some((plugin, version)) = args.plugin.rsplit_once('@') else {
        return fail(format!("`{}` is not `scope/name@version`", args.plugin));
    };
    let Ok(version) = semver::Version::parse(version) else {
        return fail(format!("`{version}` is not a semantic version"));
    };
    match catalog::yank(&args.catalog, plugin, &version, args.undo) {
        Ok(()) => {
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
pub fn diff(args: &DiffArgs) -> Outcome {
    let mut resolver = Resolver::new(args.config.clone());
    let (old, new) = match (
        bundle_or_manifest(&args.old, &mut resolver),
        bundle_or_manifest(&args.new, &mut resolver),
    ) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(message), _) | (_, Err(message)) => return fail(message),
    };
    if let Err(message) = diff::comparable(&old, &new) {
        return fail(message);
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

pub fn preview(args: &PreviewArgs) -> Outcome {
    let mut resolver = Resolver::new(args.config.clone());
    match bundle_or_manifest(&args.path, &mut resolver) {
        Ok(bundle) => output::result(preview_text(&bundle).trim_end(), Outcome::Clean),
        Err(message) => fail(message),
    }
}

/// The approval screen: everything a person agrees to by installing.
pub fn preview_text(bundle: &Bundle) -> String {
    let mut text = String::new();
    let permissions = &bundle.permissions;
    text.push_str(&format!(
        "{} (owner: {})\n",
        bundle.id(),
        bundle.requested_owner
    ));
    if let Some(summary) = &bundle.summary {
        text.push_str(&format!("{summary}\n"));
    }
    text.push_str(&format!(
        "digest: {}\n\n",
        bundle.digest.as_deref().unwrap_or("none")
    ));
    text.push_str("It asks for:\n");
    for (placement, budget) in &permissions.budgets {
        text.push_str(&format!(
            "  {budget:>6} tokens at {placement} placement ({})\n",
            placement.shared_by()
        ));
    }
    text.push_str(&format!(
        "  highest priority: {}\n",
        permissions.highest_priority
    ));
    let reaches: Vec<String> = permissions
        .reaches
        .iter()
        .map(ToString::to_string)
        .collect();
    text.push_str(&format!("  reaches: {}\n", reaches.join(", ")));
    if !permissions.tools_loaded.is_empty() {
        text.push_str(&format!(
            "  loads when a conversation starts: {}\n",
            permissions.tools_loaded.join(", ")
        ));
    }
    for run in &permissions.tools_run {
        text.push_str(&format!(
            "  runs with nobody asking: {} ({}{})\n",
            run.tool,
            run.effect.as_str(),
            if run.gated {
                ", gated: waits for approval"
            } else {
                ""
            }
        ));
    }
    if !permissions.egress_hosts.is_empty() {
        text.push_str(&format!(
            "  may reach: {}\n",
            permissions.egress_hosts.join(", ")
        ));
    }
    for requirement in &bundle.requires {
        text.push_str(&format!(
            "  requires skill {} {}\n",
            requirement.0, requirement.1
        ));
    }
    for contributor in &bundle.contributors {
        text.push_str(&format!(
            "\n── {} {} · {} placement · {} priority · reach {} · budget {} (measured {})\n",
            contributor.kind,
            contributor.id,
            contributor.placement,
            contributor.priority,
            contributor.reach,
            contributor.budget,
            contributor.measured_tokens
        ));
        if let Some(framing) = &contributor.framing {
            text.push_str(&format!("{framing}\n"));
        }
        if contributor.template.is_some() {
            text.push_str(&contributor.render(|variable| format!("{{{variable}}}")));
            text.push('\n');
        }
        if let Some(condition) = &contributor.condition {
            text.push_str(&format!("when: {}", condition.kind));
            if let Some(seconds) = condition.idle_seconds {
                text.push_str(&format!(" > {}", crate::ir::Duration { seconds }));
            }
            if let Some(skill) = &condition.skill {
                text.push_str(&format!(" {skill}"));
            }
            text.push('\n');
        }
        if !contributor.tools.is_empty() {
            text.push_str(&format!("loads tools: {}\n", contributor.tools.join(", ")));
        }
        if let Some(operations) = &contributor.operations {
            text.push_str(&format!(
                "loads skill {}: {}\n",
                operations.skill,
                operations.operations.join(", ")
            ));
        }
        if let Some(choice) = &contributor.choice {
            text.push_str(&format!(
                "chosen from usage `{}` ({} conversations, {}); candidates left out: {}\n",
                choice.usage,
                choice.conversations,
                choice.usage_digest,
                choice
                    .candidates
                    .iter()
                    .filter(|candidate| !candidate.chosen)
                    .map(|candidate| candidate.item.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(call) = &contributor.call {
            let arguments = serde_json::to_string(&call.arguments).unwrap_or_default();
            let effect = bundle
                .run_effect(&call.tool)
                .map_or("unknown", |effect| effect.as_str());
            text.push_str(&format!("calls: {} {arguments} ({effect})\n", call.tool));
        }
        if let (Some(source), Some(origin)) = (&contributor.source, &contributor.origin) {
            text.push_str(&format!("retrieved from: {origin} ({source})\n"));
        }
        if !contributor.says.is_empty() {
            let says: Vec<String> = contributor.says.iter().map(ToString::to_string).collect();
            text.push_str(&format!("states: {}\n", says.join(", ")));
        }
    }
    text
}

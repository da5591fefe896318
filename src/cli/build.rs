//! `contrib build` and `contrib publish`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::compile::{compile, Compiled, NotBuilt};
use super::{fail, use_color, Outcome};
use crate::bundle::catalog::{self, Published};
use crate::bundle::diff::{self, Class};
use crate::bundle::{write_bundle, Written};
use crate::config::Resolver;
use crate::diagnostic::Diagnostic;
use crate::report::{self, Format, Totals};
use crate::rules::FROZEN_VERSION_CHANGED;
use crate::source::SourceFile;

#[derive(Args)]
pub struct BuildArgs {
    /// Manifests to build.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Where bundles go: `DIR/<scope>/<name>/<version>.bundle.json`.
    #[arg(short, long, default_value = "dist")]
    out: PathBuf,
    /// The workspace configuration; by default the nearest `contrib.toml`.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// How to write diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

#[derive(Args)]
pub struct PublishArgs {
    /// The manifest to publish.
    file: PathBuf,
    /// The catalog folder (holding `catalog.lock`).
    #[arg(long)]
    catalog: PathBuf,
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// Diagnostics on stdout, in the chosen format, as `check` writes them.
struct Diagnostics {
    emitter: Box<dyn report::Emitter>,
    totals: Totals,
}

impl Diagnostics {
    fn new(format: Format) -> Self {
        Diagnostics {
            emitter: report::emitter(format, use_color()),
            totals: Totals::default(),
        }
    }

    fn show(&mut self, source: &SourceFile, diagnostics: &[Diagnostic]) {
        self.totals.add(diagnostics);
        let _ = self
            .emitter
            .file(&mut std::io::stdout().lock(), source, diagnostics);
    }

    fn finish(mut self) -> Totals {
        if self.totals.errors + self.totals.warnings > 0 {
            let _ = self
                .emitter
                .finish(&mut std::io::stdout().lock(), self.totals);
        }
        self.totals
    }
}

pub fn build(args: &BuildArgs) -> Outcome {
    let mut resolver = Resolver::new(args.config.clone());
    let mut shown = Diagnostics::new(args.format);
    let mut built = Vec::new();
    for path in &args.files {
        match compile(path, &mut resolver) {
            Ok(compiled) => {
                shown.show(&compiled.source, &compiled.diagnostics);
                match write_bundle(&args.out, &compiled.bundle) {
                    Ok(Written::Frozen {
                        path,
                        published,
                        built: digest,
                    }) => {
                        let diagnostic = Diagnostic::new(
                            &FROZEN_VERSION_CHANGED,
                            format!("{} is already built with other content", compiled.bundle.id()),
                        )
                        .primary(compiled.version_span, format!("`{}` holds {published}", path.display()))
                        .help(format!("this build is {digest}; a built version never changes: bump the version"));
                        shown.show(&compiled.source, &[diagnostic]);
                    }
                    Ok(Written::Created(path)) => built.push(format!(
                        "built {} → {} ({})",
                        compiled.bundle.id(),
                        path.display(),
                        digest(&compiled)
                    )),
                    Ok(Written::Unchanged(path)) => built.push(format!(
                        "unchanged {} → {}",
                        compiled.bundle.id(),
                        path.display()
                    )),
                    Err(message) => return fail(message),
                }
            }
            Err(NotBuilt::Errors(source, diagnostics)) => shown.show(&source, &diagnostics),
            Err(NotBuilt::Failed(message)) => return fail(message),
        }
    }
    let totals = shown.finish();
    for line in built {
        eprintln!("{line}");
    }
    if totals.errors > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    }
}

fn digest(compiled: &Compiled) -> &str {
    compiled.bundle.digest.as_deref().unwrap_or_default()
}

pub fn publish(args: &PublishArgs) -> Outcome {
    let mut resolver = Resolver::new(args.config.clone());
    let mut shown = Diagnostics::new(Format::Human);
    let compiled = match compile(&args.file, &mut resolver) {
        Ok(compiled) => compiled,
        Err(NotBuilt::Errors(source, diagnostics)) => {
            shown.show(&source, &diagnostics);
            shown.finish();
            return Outcome::Problems;
        }
        Err(NotBuilt::Failed(message)) => return fail(message),
    };
    shown.show(&compiled.source, &compiled.diagnostics);
    match catalog::publish(&compiled.bundle, &args.catalog) {
        Ok(Published::AlreadyPublished(path)) => {
            println!(
                "{} is already published as {}",
                compiled.bundle.id(),
                path.display()
            );
            Outcome::Clean
        }
        Ok(Published::New {
            path,
            previous,
            changes,
        }) => {
            println!(
                "published {} → {} ({})",
                compiled.bundle.id(),
                path.display(),
                digest(&compiled)
            );
            if let Some(previous) = previous {
                println!();
                print_changes(
                    &mut std::io::stdout().lock(),
                    &format!("{}@{previous}", compiled.bundle.plugin),
                    &compiled.bundle.id(),
                    &changes,
                );
            }
            Outcome::Clean
        }
        Err(refusal) => {
            let diagnostic = refusal.diagnostic(&compiled.bundle, compiled.version_span);
            shown.show(&compiled.source, &[diagnostic]);
            shown.finish();
            Outcome::Problems
        }
    }
}

/// The approval delta, for people.
pub fn print_changes(out: &mut dyn Write, old: &str, new: &str, changes: &[diff::Change]) {
    let needs: Vec<&diff::Change> = changes
        .iter()
        .filter(|c| c.class == Class::NeedsApproval)
        .collect();
    let updates: Vec<&diff::Change> = changes
        .iter()
        .filter(|c| c.class == Class::Update)
        .collect();
    let _ = writeln!(out, "{old} → {new}");
    if changes.is_empty() {
        let _ = writeln!(out, "  no changes");
        return;
    }
    for (title, group) in [
        ("needs approval", needs),
        ("update (no new approval)", updates),
    ] {
        if group.is_empty() {
            continue;
        }
        let _ = writeln!(out, "  {title}:");
        for change in group {
            match &change.contributor {
                Some(id) => {
                    let _ = writeln!(out, "    - {id}: {}", change.message);
                }
                None => {
                    let _ = writeln!(out, "    - {}", change.message);
                }
            }
            let cache = &change.cache;
            let cost = cache.rewrite.as_ref().map_or_else(String::new, |rewrite| {
                format!(
                    "; about {} tokens written again, {:.0} units more{}",
                    rewrite.tokens,
                    rewrite.extra_cost,
                    rewrite
                        .extra_usd
                        .map_or_else(String::new, |usd| format!(" (${usd:.4})"))
                )
            });
            let _ = writeln!(out, "      cache: {}{cost}", cache.prefixes);
        }
    }
}

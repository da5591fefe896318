//! `contrib build` and `contrib publish`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::compile::{compile, Compiled, NotBuilt};
use super::output::{self, status};
use super::{fail, Outcome};
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
    #[arg(long, value_name = "DIR")]
    catalog: PathBuf,
    /// The workspace configuration; by default the nearest `contrib.toml`.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// Diagnostics on stdout, in the chosen format, as `check` writes them;
/// the closing count on stderr.
struct Diagnostics {
    emitter: Box<dyn report::Emitter>,
    totals: Totals,
}

impl Diagnostics {
    fn new(format: Format) -> Self {
        Diagnostics {
            emitter: report::emitter(format, output::stdout_style()),
            totals: Totals::default(),
        }
    }

    fn show(&mut self, source: &SourceFile, diagnostics: &[Diagnostic]) {
        self.totals.add(diagnostics);
        let emitter = &mut self.emitter;
        // A closed standard output only stops the report: the build goes on.
        let _ = output::write_result(|out| emitter.file(out, source, diagnostics));
    }

    fn finish(mut self) -> Totals {
        let (emitter, totals) = (&mut self.emitter, self.totals);
        let _ = output::write_result(|out| emitter.finish(out, totals));
        if totals.errors + totals.warnings > 0 {
            status(totals.summary());
        }
        totals
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
        status(line);
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
            status(format_args!(
                "{} is already published as {}",
                compiled.bundle.id(),
                path.display()
            ));
            Outcome::Clean
        }
        Ok(Published::New {
            path,
            previous,
            changes,
        }) => {
            status(format_args!(
                "published {} → {} ({})",
                compiled.bundle.id(),
                path.display(),
                digest(&compiled)
            ));
            // What changed since the previous version is the result.
            match previous {
                Some(previous) => {
                    let old = format!("{}@{previous}", compiled.bundle.plugin);
                    match output::write_result(|out| {
                        print_changes(out, &old, &compiled.bundle.id(), &changes)
                    }) {
                        Ok(()) => Outcome::Clean,
                        Err(stopped) => stopped.outcome(Outcome::Clean),
                    }
                }
                None => Outcome::Clean,
            }
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
pub fn print_changes(
    out: &mut dyn Write,
    old: &str,
    new: &str,
    changes: &[diff::Change],
) -> std::io::Result<()> {
    writeln!(out, "{old} → {new}")?;
    if changes.is_empty() {
        return writeln!(out, "  no changes");
    }
    for (title, class) in [
        ("needs approval", Class::NeedsApproval),
        ("update (no new approval)", Class::Update),
    ] {
        let mut group = changes
            .iter()
            .filter(|change| change.class == class)
            .peekable();
        if group.peek().is_none() {
            continue;
        }
        writeln!(out, "  {title}:")?;
        for change in group {
            match &change.contributor {
                Some(id) => writeln!(out, "    - {id}: {}", change.message)?,
                None => writeln!(out, "    - {}", change.message)?,
            }
        }
    }
    Ok(())
}

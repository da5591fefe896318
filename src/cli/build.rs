//! `contrib build` and `contrib publish`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::compile::{compile, Compiled, NotBuilt};
use super::output::{self, status};
use super::progress::{Conditions, Progress};
use super::{fail, Outcome};
use crate::bundle::catalog::{self, PublishError, Published};
use crate::bundle::diff::{self, Class};
use crate::bundle::{write_bundle, Written};
use crate::codes::FROZEN_VERSION_CHANGED;
use crate::config::Resolver;
use crate::diagnostic::Diagnostic;
use crate::fs::Root;
use crate::report::{self, Format, Totals};
use crate::source::SourceFile;

#[derive(Args)]
pub(super) struct BuildArgs {
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
pub(super) struct PublishArgs {
    /// The manifest to publish.
    file: PathBuf,
    /// The catalog: a folder (holding `catalog.lock`) or a registry,
    /// `oci://HOST[:PORT]/NAMESPACE`.
    #[arg(long, value_name = "DIR")]
    catalog: PathBuf,
    /// The author's configuration the manifest is checked and built with;
    /// by default the nearest `contrib.toml`. The catalog-wide rules are
    /// judged by the catalog's own policy, never by this.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Sign the published bundle with this secret key (`contrib keygen`);
    /// required when the catalog trusts keys.
    #[arg(long, value_name = "FILE")]
    key: Option<PathBuf>,
}

/// Diagnostics on stdout, in the chosen format, as `check` writes them;
/// the closing count on stderr.
struct Diagnostics {
    emitter: Box<dyn report::Emitter>,
    totals: Totals,
    /// A manifest was not built for a reason counted elsewhere (its
    /// configuration's errors, shown once).
    refused: bool,
}

impl Diagnostics {
    fn new(format: Format) -> Self {
        Diagnostics {
            emitter: report::emitter(format, output::stdout_style()),
            totals: Totals::default(),
            refused: false,
        }
    }

    fn refused(&mut self) {
        self.refused = true;
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

pub(super) fn build(args: &BuildArgs) -> Outcome {
    let mut resolver = Resolver::new(args.config.clone());
    let mut shown = Diagnostics::new(args.format);
    let mut built = Vec::new();
    let progress = Progress::new(
        "building",
        Conditions::here(args.format == Format::Human, args.files.len()),
    );
    let mut out: Option<Root> = None;
    for path in &args.files {
        let compiled = compile(path, &mut resolver);
        progress.tick();
        progress.clear();
        match compiled {
            Ok(compiled) => {
                shown.show(&compiled.source, &compiled.diagnostics);
                let root = match &out {
                    Some(root) => root.clone(),
                    None => match Root::create(&args.out) {
                        Ok(root) => out.insert(root).clone(),
                        Err(message) => return fail(message),
                    },
                };
                match write_bundle(&root, &compiled.bundle) {
                    Ok(Written::Frozen {
                        path,
                        published,
                        built: digest,
                        ..
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
            Err(NotBuilt::Config(first)) => {
                shown.refused();
                if let Some((source, diagnostics)) = first {
                    shown.show(&source, &diagnostics);
                }
            }
            Err(NotBuilt::Failed(message)) => return fail(message),
        }
    }
    drop(progress);
    let refused = shown.refused;
    let totals = shown.finish();
    for line in built {
        status(line);
    }
    if totals.errors > 0 || refused {
        Outcome::Problems
    } else {
        Outcome::Clean
    }
}

fn digest(compiled: &Compiled) -> &str {
    compiled.bundle.digest.as_deref().unwrap_or_default()
}

pub(super) fn publish(args: &PublishArgs) -> Outcome {
    let mut resolver = Resolver::new(args.config.clone());
    let mut shown = Diagnostics::new(Format::Human);
    let compiled = match compile(&args.file, &mut resolver) {
        Ok(compiled) => compiled,
        Err(
            NotBuilt::Errors(source, diagnostics) | NotBuilt::Config(Some((source, diagnostics))),
        ) => {
            shown.show(&source, &diagnostics);
            shown.finish();
            return Outcome::Problems;
        }
        Err(NotBuilt::Config(None)) => return Outcome::Problems,
        Err(NotBuilt::Failed(message)) => return fail(message),
    };
    shown.show(&compiled.source, &compiled.diagnostics);
    let key = match args
        .key
        .as_deref()
        .map(super::sign::read_secret_key)
        .transpose()
    {
        Ok(key) => key,
        Err(message) => return fail(message),
    };
    match admitted(args, &compiled, key.as_ref()) {
        Ok(refusals) if refusals.is_empty() => {}
        Ok(refusals) => {
            shown.show(&compiled.source, &refusals);
            shown.finish();
            return Outcome::Problems;
        }
        Err(message) => return fail(message),
    }
    let outcome = publish_compiled(args, &compiled);
    match (&key, outcome) {
        (Some(key), Outcome::Clean) => {
            if let Some(registry) = super::oci::catalog_of(&args.catalog) {
                let signed = registry.and_then(|registry| {
                    super::oci::signatures::sign_published(&registry, &compiled.bundle, key)
                });
                return match signed {
                    Ok(key_id) => {
                        status(format_args!(
                            "signed with {key_id} → a referrer of {}",
                            compiled.bundle.id()
                        ));
                        Outcome::Clean
                    }
                    Err(message) => fail(message),
                };
            }
            let file = crate::bundle::bundle_path(
                &args.catalog,
                &compiled.bundle.plugin,
                &compiled.bundle.version,
            );
            match super::sign::write_signature(&file, &compiled.bundle, key) {
                Ok((path, key_id)) => {
                    status(format_args!("signed with {key_id} → {}", path.display()));
                    Outcome::Clean
                }
                Err(message) => fail(message),
            }
        }
        (_, outcome) => outcome,
    }
}

/// Why the catalog would not take this version before it is published:
/// a missing or untrusted signature when the catalog requires one, as a
/// diagnostic on the manifest's version. The catalog-wide rules are
/// judged by [`catalog::publish`] itself, inside the catalog's lock and
/// under the catalog's own policy.
fn admitted(
    args: &PublishArgs,
    compiled: &Compiled,
    key: Option<&crate::bundle::sign::SigningKey>,
) -> Result<Vec<Diagnostic>, String> {
    let mut refusals = Vec::new();
    let trusted = catalog::Lock::read(&args.catalog)?.trusted_keys;
    let signer = key.map(|key| crate::bundle::sign::key_id(&key.verifying_key()));
    if !trusted.is_empty() && !signer.as_ref().is_some_and(|id| trusted.contains(id)) {
        let why = match &signer {
            Some(id) => format!("it would be signed by {id}, which the catalog does not trust"),
            None => "the catalog requires signatures and no `--key` was given".to_string(),
        };
        refusals.push(
            Diagnostic::new(&crate::codes::UNTRUSTED_SIGNATURE, format!("{} would not be signed by a trusted key: {why}", compiled.bundle.id()))
                .primary(compiled.version_span, "unsigned")
                .help("publish with `--key FILE`, the secret key of a key the catalog trusts (`contrib catalog trust`)"),
        );
    }
    Ok(refusals)
}

fn publish_compiled(args: &PublishArgs, compiled: &Compiled) -> Outcome {
    let mut shown = Diagnostics::new(Format::Human);
    let waiting = |message: &str| status(format_args!("note: {message}"));
    let published = match super::oci::catalog_of(&args.catalog) {
        Some(Ok(registry)) => super::oci::publish(&compiled.bundle, &registry),
        Some(Err(message)) => return fail(message),
        None => catalog::publish(&compiled.bundle, &args.catalog, &waiting),
    };
    match published {
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
                digest(compiled)
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
        Err(PublishError::Refused(refusal)) => {
            let diagnostics = refusal.diagnostics(&compiled.bundle, compiled.version_span);
            shown.show(&compiled.source, &diagnostics);
            shown.finish();
            Outcome::Problems
        }
        Err(PublishError::Io(message)) => fail(message),
    }
}

/// The approval delta, for people.
pub(super) fn print_changes(
    out: &mut dyn Write,
    old: &str,
    new: &str,
    changes: &[diff::Change],
) -> std::io::Result<()> {
    use crate::report::terminal::visible;
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
                Some(id) => writeln!(out, "    - {}: {}", visible(id), visible(&change.message))?,
                None => writeln!(out, "    - {}", visible(&change.message))?,
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
            writeln!(out, "      cache: {}{cost}", cache.prefixes)?;
        }
    }
    Ok(())
}

//! `contrib check PATH…`
//!
//! Files are checked in parallel, in chunks, and reported in the order they
//! were found, so output is deterministic and memory stays bounded however
//! large the catalog. Unchanged files are answered from the cache.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use rayon::prelude::*;

use super::output;
use super::progress::{Conditions, Progress};
use super::{fail, Outcome};
use crate::cache::{self, Cache};
use crate::config::{Config, Loaded, Resolver};
use crate::diagnostic::{self, Diagnostic};
use crate::fs;
use crate::limits::MAX_FILE_BYTES;
use crate::report::{self, Format, Totals};
use crate::source::SourceFile;
use crate::Analysis;

/// How many rounds of fixes `--fix` applies before it stops, as ruff does.
const MAX_FIX_ROUNDS: usize = 8;

/// How many files are checked in parallel before their results are written.
const CHUNK: usize = 256;

#[derive(Args)]
pub struct CheckArgs {
    /// Files and folders to check; folders are searched for `*.contrib`. A
    /// `contrib.toml` named here is checked as configuration. A folder with
    /// no manifest is checked as the skills, plugins and rules it holds.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// How to write diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Fail (exit 1) on warnings too, saying so.
    #[arg(long)]
    deny_warnings: bool,
    /// The workspace configuration; by default the nearest `contrib.toml`
    /// in each manifest's folder or above.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Apply safe fixes in place, then report what remains.
    #[arg(long)]
    fix: bool,
    /// With `--fix`, also apply unsafe fixes (those that change what a person
    /// approves, such as a larger budget).
    #[arg(long, requires = "fix")]
    unsafe_fixes: bool,
    /// Where results are cached between runs; by default the user's cache
    /// folder (`$CONTRIB_CACHE_DIR`, else `$XDG_CACHE_HOME/contrib`).
    /// Entries are authenticated with a key kept in the user's cache
    /// folder, so a cache inside a checkout cannot be forged.
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Check everything afresh, neither reading nor writing the cache.
    #[arg(long)]
    no_cache: bool,
}

/// One checked file, ready to report.
struct Checked {
    source: SourceFile,
    diagnostics: Vec<Diagnostic>,
    /// The cache entry to store, when the result was computed afresh.
    store: Option<cache::Key>,
    /// The diagnostics `--fix` fixed, for the status line that says so.
    fixed: Vec<Diagnostic>,
}

pub fn run(args: &CheckArgs) -> Outcome {
    // A `contrib.toml` named on the command line is checked as the
    // configuration it is, not parsed as a manifest.
    let (configs, paths): (Vec<PathBuf>, Vec<PathBuf>) = args
        .paths
        .iter()
        .cloned()
        .partition(|path| is_config_file(path));
    let (paths, sources) = match super::sources::in_place(paths) {
        Ok(split) => split,
        Err(message) => return fail(message),
    };
    let (manifests, found) = match super::manifests(&paths) {
        Ok(found) => found,
        Err(message) => return fail(message),
    };
    let mut cache = (!args.no_cache && !args.fix)
        .then(|| open_cache(args.cache_dir.as_deref()))
        .flatten();
    let mut emitter = report::emitter(args.format, output::stdout_style());
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut totals = Totals::default();
    let mut fixed = Totals::default();
    let mut resolver = Resolver::new(args.config.clone());
    let progress = Progress::new(
        "checking",
        Conditions::here(args.format == Format::Human, manifests.len()),
    );
    let written = (|| {
        for path in &configs {
            let (loaded, first_use) = resolver.config_file(path).map_err(fail)?;
            if let (true, Some(source)) = (first_use, &loaded.config.source) {
                totals.add(&loaded.diagnostics);
                emit(&mut *emitter, &mut out, source, &loaded.diagnostics, totals)?;
            }
        }
        for (source, diagnostics) in &sources {
            totals.add(diagnostics);
            emit(&mut *emitter, &mut out, source, diagnostics, totals)?;
        }
        for chunk in manifests.chunks(CHUNK) {
            let mut jobs: Vec<(&Path, Arc<Loaded>)> = Vec::with_capacity(chunk.len());
            for path in chunk {
                let (loaded, first_use) = resolver.for_manifest(path).map_err(fail)?;
                if first_use && !loaded.diagnostics.is_empty() {
                    if let Some(source) = &loaded.config.source {
                        totals.add(&loaded.diagnostics);
                        emit(&mut *emitter, &mut out, source, &loaded.diagnostics, totals)?;
                    }
                }
                jobs.push((path, loaded));
            }
            let results: Vec<Result<Checked, String>> = jobs
                .par_iter()
                .map(|(path, loaded)| {
                    let checked = check_path(path, &loaded.config, args, cache.as_ref());
                    progress.tick();
                    checked
                })
                .collect();
            progress.clear();
            for result in results {
                let checked = result.map_err(fail)?;
                if let (Some(cache), Some(key)) = (cache.as_mut(), checked.store) {
                    cache.insert(key, &checked.diagnostics);
                }
                if !checked.fixed.is_empty() {
                    fixed.add(&checked.fixed);
                    output::status(fixed_line(&checked.source.name, &checked.fixed));
                }
                totals.add(&checked.diagnostics);
                emit(
                    &mut *emitter,
                    &mut out,
                    &checked.source,
                    &checked.diagnostics,
                    totals,
                )?;
            }
        }
        emitter
            .finish(&mut out, totals)
            .and_then(|()| out.flush())
            .map_err(|error| output::stopped(&error).outcome(outcome(totals, false)))
    })();
    drop(progress);
    if let Err(outcome) = written {
        return outcome;
    }
    if let Some(cache) = &cache {
        if let Err(message) = cache.save() {
            output::status(format_args!("warning: {message}"));
        }
    }
    let mut summary = totals.summary();
    if fixed.files > 0 {
        let count = fixed.errors + fixed.warnings;
        summary.push_str(&format!(" ({} fixed)", report::plural(count, "problem")));
    }
    output::status(summary);
    if totals.errors == 0 && totals.warnings > 0 && args.deny_warnings {
        output::status(format_args!(
            "error: failing on {} because of `--deny-warnings`",
            report::plural(totals.warnings, "warning")
        ));
    }
    outcome(totals, args.deny_warnings).max(found)
}

/// Whether `path` names a workspace configuration file.
fn is_config_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name == crate::config::FILE_NAME)
        && !path.is_dir()
}

/// Exit 1 on errors, or on warnings under `--deny-warnings`.
fn outcome(totals: Totals, deny_warnings: bool) -> Outcome {
    if totals.errors > 0 || (deny_warnings && totals.warnings > 0) {
        Outcome::Problems
    } else {
        Outcome::Clean
    }
}

/// The cache, or `None` (with a warning) when it cannot be used: there is
/// no user cache folder to keep its key in, or the key cannot be made.
fn open_cache(explicit: Option<&Path>) -> Option<Cache> {
    let Some(location) = cache::Location::resolve(explicit) else {
        output::status(format_args!(
            "warning: not caching results: there is no user cache folder (set `{}`)",
            cache::ROOT_VARIABLE
        ));
        return None;
    };
    match Cache::open(&location) {
        Ok(cache) => Some(cache),
        Err(message) => {
            output::status(format_args!("warning: not caching results: {message}"));
            None
        }
    }
}

/// Writes one file's diagnostics; a closed or failed standard output ends
/// the run with the status reached so far.
fn emit(
    emitter: &mut dyn report::Emitter,
    out: &mut dyn Write,
    source: &SourceFile,
    diagnostics: &[Diagnostic],
    totals: Totals,
) -> Result<(), Outcome> {
    emitter
        .file(out, source, diagnostics)
        .map_err(|error| output::stopped(&error).outcome(outcome(totals, false)))
}

/// `fixed 2 problems in a.contrib: unknown-field, budget-unused ×2`, naming
/// each rule once with how often it was fixed.
fn fixed_line(name: &str, fixed: &[Diagnostic]) -> String {
    let mut rules: Vec<(&str, usize)> = Vec::new();
    for diagnostic in fixed {
        match rules
            .iter_mut()
            .find(|(rule, _)| *rule == diagnostic.rule.name)
        {
            Some((_, count)) => *count += 1,
            None => rules.push((diagnostic.rule.name, 1)),
        }
    }
    let named: Vec<String> = rules
        .into_iter()
        .map(|(rule, count)| match count {
            1 => rule.to_string(),
            _ => format!("{rule} ×{count}"),
        })
        .collect();
    format!(
        "fixed {} in {name}: {}",
        report::plural(fixed.len(), "problem"),
        named.join(", ")
    )
}

/// Checks one manifest: from the cache when it has this content under this
/// configuration, afresh otherwise, applying fixes first when asked.
fn check_path(
    path: &Path,
    config: &Config,
    args: &CheckArgs,
    cache: Option<&Cache>,
) -> Result<Checked, String> {
    let bytes = fs::read_up_to(path, MAX_FILE_BYTES as u64 + 1)?;
    let name = fs::display_name(path);
    let key = cache.map(|_| cache::key(&bytes, &config.fingerprint));
    if let (Some(cache), Some(key)) = (cache, &key) {
        if let Some(diagnostics) = cache.get(key) {
            let source = match crate::decode_bytes(&name, &bytes) {
                Ok(source) => source,
                Err(undecodable) => undecodable.0,
            };
            return Ok(Checked {
                source,
                diagnostics,
                store: None,
                fixed: Vec::new(),
            });
        }
    }
    let (mut source, mut diagnostics) = check_bytes(&name, &bytes, config);
    let mut fixed = Vec::new();
    if args.fix {
        for _ in 0..MAX_FIX_ROUNDS {
            let (text, applied) = crate::fix::apply(&source.text, &diagnostics, args.unsafe_fixes);
            if applied.is_empty() || text == *source.text {
                break;
            }
            fixed.extend(applied.into_iter().map(|index| diagnostics[index].clone()));
            (source, diagnostics) = check_bytes(&name, text.as_bytes(), config);
        }
        if !fixed.is_empty() {
            fs::write_atomically(path, source.text.as_bytes())?;
        }
    }
    Ok(Checked {
        source,
        diagnostics,
        store: key,
        fixed,
    })
}

/// One file's diagnostics, from its bytes.
pub fn check_bytes(name: &str, bytes: &[u8], config: &Config) -> (SourceFile, Vec<Diagnostic>) {
    let (source, analysis) = analyze_bytes(name, bytes, config);
    (source, analysis.diagnostics)
}

/// One file's analysis, from its bytes: bytes that are not a manifest's
/// text yield no plugin and the diagnostic that says why.
pub fn analyze_bytes(name: &str, bytes: &[u8], config: &Config) -> (SourceFile, Analysis) {
    match crate::decode_bytes(name, bytes) {
        Ok(source) => {
            let analysis = crate::analyze(&source, config);
            (source, analysis)
        }
        Err((source, diagnostic)) => {
            let mut diagnostics = vec![diagnostic];
            diagnostic::sort(&mut diagnostics);
            (
                source,
                Analysis {
                    plugin: None,
                    diagnostics,
                    waived: Vec::new(),
                },
            )
        }
    }
}

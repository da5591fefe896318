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

use super::{fail, use_color, Outcome};
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
    /// Files and folders to check; folders are searched for `*.contrib`.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// How to write diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Fail (exit 1) on warnings too.
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
}

pub fn run(args: &CheckArgs) -> Outcome {
    let (manifests, found) = match super::manifests(&args.paths) {
        Ok(found) => found,
        Err(message) => return fail(message),
    };
    let mut cache = (!args.no_cache && !args.fix)
        .then(|| open_cache(args.cache_dir.as_deref()))
        .flatten();
    let mut emitter = report::emitter(args.format, use_color());
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut totals = Totals::default();
    let mut resolver = Resolver::new(args.config.clone());
    for chunk in manifests.chunks(CHUNK) {
        let mut jobs: Vec<(&Path, Arc<Loaded>)> = Vec::with_capacity(chunk.len());
        for path in chunk {
            let (loaded, first_use) = match resolver.for_manifest(path) {
                Ok(found) => found,
                Err(message) => return fail(message),
            };
            if first_use && !loaded.diagnostics.is_empty() {
                if let Some(source) = &loaded.config.source {
                    totals.add(&loaded.diagnostics);
                    if emitter.file(&mut out, source, &loaded.diagnostics).is_err() {
                        return Outcome::Failed;
                    }
                }
            }
            jobs.push((path, loaded));
        }
        let results: Vec<Result<Checked, String>> = jobs
            .par_iter()
            .map(|(path, loaded)| check_path(path, &loaded.config, args, cache.as_ref()))
            .collect();
        for result in results {
            let checked = match result {
                Ok(checked) => checked,
                Err(message) => return fail(message),
            };
            if let (Some(cache), Some(key)) = (cache.as_mut(), checked.store) {
                cache.insert(key, &checked.diagnostics);
            }
            totals.add(&checked.diagnostics);
            if emitter
                .file(&mut out, &checked.source, &checked.diagnostics)
                .is_err()
            {
                return Outcome::Failed;
            }
        }
    }
    if emitter
        .finish(&mut out, totals)
        .and_then(|()| out.flush())
        .is_err()
    {
        return Outcome::Failed;
    }
    if let Some(cache) = &cache {
        if let Err(message) = cache.save() {
            eprintln!("warning: {message}");
        }
    }
    let outcome = if totals.errors > 0 || (args.deny_warnings && totals.warnings > 0) {
        Outcome::Problems
    } else {
        Outcome::Clean
    };
    outcome.max(found)
}

/// The cache, or `None` (with a warning) when it cannot be used: there is
/// no user cache folder to keep its key in, or the key cannot be made.
fn open_cache(explicit: Option<&Path>) -> Option<Cache> {
    let Some(location) = cache::Location::resolve(explicit) else {
        eprintln!(
            "warning: not caching results: there is no user cache folder (set `{}`)",
            cache::ROOT_VARIABLE
        );
        return None;
    };
    match Cache::open(&location) {
        Ok(cache) => Some(cache),
        Err(message) => {
            eprintln!("warning: not caching results: {message}");
            None
        }
    }
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
            });
        }
    }
    let (mut source, mut diagnostics) = check_bytes(&name, &bytes, config);
    if args.fix {
        let mut changed = false;
        for _ in 0..MAX_FIX_ROUNDS {
            let (fixed, applied) = crate::fix::apply(&source.text, &diagnostics, args.unsafe_fixes);
            if applied == 0 || fixed == *source.text {
                break;
            }
            changed = true;
            (source, diagnostics) = check_bytes(&name, fixed.as_bytes(), config);
        }
        if changed {
            fs::write_atomically(path, source.text.as_bytes())?;
        }
    }
    Ok(Checked {
        source,
        diagnostics,
        store: key,
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
                },
            )
        }
    }
}

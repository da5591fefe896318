//! `contrib check PATH…`
//!
//! Files are checked in parallel, in chunks, and reported in the order they
//! were found, so output is deterministic and memory stays bounded however
//! large the catalog. Unchanged files are answered from the cache.
//!
//! `-` checks standard input, named by `--stdin-filename` (which also finds
//! its `contrib.toml` and says whether it is excluded), as editors and
//! hooks pipe files. `--fix --diff` shows the fixes without writing them;
//! `--output-file` writes the diagnostics to a file; `--baseline` reports
//! only what a recorded baseline does not hold (`cli/baseline.rs`);
//! `--watch` checks again on every change (`cli/watch.rs`).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use rayon::prelude::*;

use super::output;
use super::progress::{Conditions, Progress};
use super::{fail, Outcome};
use crate::cache::{self, Cache};
use crate::config::{Config, Loaded, Resolver};
use crate::diagnostic::Diagnostic;
use crate::fs;
use crate::limits::MAX_FILE_BYTES;
use crate::report::Format;
use crate::source::SourceFile;

mod report;

use report::Report;

/// How many files are checked in parallel before their results are written.
const CHUNK: usize = 256;

/// How standard input is named in diagnostics without `--stdin-filename`.
const STDIN_NAME: &str = "<stdin>";

#[derive(Args)]
pub struct CheckArgs {
    /// Files and folders to check; folders are searched for `*.contrib`. A
    /// `contrib.toml` named here is checked as configuration. A folder with
    /// no manifest is checked as the skills, plugins and rules it holds.
    /// `-` checks standard input.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The path that standard input (`-`) stands for: the name diagnostics
    /// give, where its `contrib.toml` is looked for, and what its
    /// workspace's `exclude` and ignore files are matched against.
    #[arg(long, value_name = "PATH")]
    stdin_filename: Option<PathBuf>,
    /// How to write diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Write the diagnostics to FILE (replaced whole, atomically) instead
    /// of standard output; the closing count still goes to standard error.
    #[arg(long, value_name = "FILE")]
    output_file: Option<PathBuf>,
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
    /// With `--fix`, write nothing: print the fixes as a unified diff, and
    /// exit 1 if there are any.
    #[arg(long, requires = "fix")]
    diff: bool,
    /// Report only the findings that the baseline FILE does not record
    /// (lines may move: findings are recognised by their file, rule and
    /// underlined text).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Record every finding of this run in the `--baseline` FILE instead of
    /// reporting them.
    #[arg(long, requires = "baseline", conflicts_with = "fix")]
    write_baseline: bool,
    /// Check again whenever a manifest, a `contrib.toml` or an ignore file
    /// under the paths changes, until interrupted.
    #[arg(long, conflicts_with_all = ["fix", "write_baseline"])]
    watch: bool,
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

impl CheckArgs {
    /// Whether the one path is `-`.
    fn reads_stdin(&self) -> bool {
        self.paths.iter().any(|path| path.as_os_str() == "-")
    }

    /// What clap cannot say about the arguments.
    fn usage(&self) -> Result<(), &'static str> {
        let stdin = self.reads_stdin();
        if stdin && self.paths.len() > 1 {
            Err("`-` (standard input) cannot be combined with other paths")
        } else if self.stdin_filename.is_some() && !stdin {
            Err("`--stdin-filename` names standard input: give `-` as the path")
        } else if stdin && self.fix && !self.diff {
            Err("`--fix` cannot write standard input back: add `--diff` to see the fixes")
        } else if stdin && self.watch {
            Err("`--watch` cannot watch standard input")
        } else {
            Ok(())
        }
    }

    /// What `--watch` watches: the paths, and the configuration named.
    fn watched(&self) -> Vec<PathBuf> {
        self.paths.iter().chain(&self.config).cloned().collect()
    }
}

/// One checked file, ready to report.
struct Checked {
    source: SourceFile,
    diagnostics: Vec<Diagnostic>,
    /// The cache entry to store, when the result was computed afresh.
    store: Option<cache::Key>,
    /// The diagnostics `--fix` fixed, for the status line that says so.
    fixed: Vec<Diagnostic>,
    /// The text before the fixes, for `--diff`.
    original: Arc<str>,
}

/// A manifest to check: a file, or standard input under a name.
enum Input<'a> {
    File(&'a Path),
    Stdin { name: String, bytes: &'a [u8] },
}

pub fn run(args: &CheckArgs) -> Outcome {
    if let Err(message) = args.usage() {
        return fail(message);
    }
    if args.watch {
        return super::watch::run(&args.watched(), || run_once(args));
    }
    run_once(args)
}

/// One check of everything the arguments name.
fn run_once(args: &CheckArgs) -> Outcome {
    let mut report = match Report::new(args) {
        Ok(report) => report,
        Err(message) => return fail(message),
    };
    let mut resolver = Resolver::new(args.config.clone());
    let checked = if args.reads_stdin() {
        check_stdin(args, &mut resolver, &mut report)
    } else {
        check_paths(args, &mut resolver, &mut report)
    };
    match checked {
        Ok(found) => report.finish(args).max(found),
        Err(outcome) => outcome,
    }
}

/// Checks standard input, as the file `--stdin-filename` names.
fn check_stdin(
    args: &CheckArgs,
    resolver: &mut Resolver,
    report: &mut Report,
) -> Result<Outcome, Outcome> {
    let bytes = super::read_stdin().map_err(fail)?;
    let path = args
        .stdin_filename
        .clone()
        .unwrap_or_else(|| PathBuf::from("-"));
    if let Some(named) = &args.stdin_filename {
        if super::stdin_excluded(named, resolver).map_err(fail)? {
            output::status(format_args!(
                "not checking `{}`: its workspace excludes it, or an ignore file lists it",
                crate::report::terminal::visible(&fs::display_name(named))
            ));
            return Ok(Outcome::Clean);
        }
    }
    let name = match &args.stdin_filename {
        Some(named) => fs::display_name(named),
        None => STDIN_NAME.to_string(),
    };
    let (loaded, first_use) = resolver.for_manifest(&path).map_err(fail)?;
    if first_use && !loaded.diagnostics.is_empty() {
        report.config(&loaded)?;
    }
    let input = Input::Stdin {
        name,
        bytes: &bytes,
    };
    let checked = check_input(&input, &loaded.config, args, None).map_err(fail)?;
    report.checked(&path, checked)?;
    Ok(Outcome::Clean)
}

/// Checks the files and folders named, and the `contrib.toml` files named.
fn check_paths(
    args: &CheckArgs,
    resolver: &mut Resolver,
    report: &mut Report,
) -> Result<Outcome, Outcome> {
    // A `contrib.toml` named on the command line is checked as the
    // configuration it is, not parsed as a manifest.
    let (configs, paths): (Vec<PathBuf>, Vec<PathBuf>) = args
        .paths
        .iter()
        .cloned()
        .partition(|path| is_config_file(path));
    let (paths, sources) = super::sources::in_place(paths).map_err(fail)?;
    let (manifests, found) = super::manifests(&paths, resolver).map_err(fail)?;
    let mut cache = (!args.no_cache && !args.fix)
        .then(|| open_cache(args.cache_dir.as_deref()))
        .flatten();
    let progress = Progress::new(
        "checking",
        Conditions::here(
            args.format == Format::Human && args.output_file.is_none(),
            manifests.len(),
        ),
    );
    let checked = (|| {
        for path in &configs {
            let (loaded, first_use) = resolver.config_file(path).map_err(fail)?;
            if first_use {
                report.config(&loaded)?;
            }
        }
        for (source, diagnostics) in sources {
            report.source(&source, diagnostics)?;
        }
        for chunk in manifests.chunks(CHUNK) {
            let mut jobs: Vec<(&Path, Arc<Loaded>)> = Vec::with_capacity(chunk.len());
            for path in chunk {
                let (loaded, first_use) = resolver.for_manifest(path).map_err(fail)?;
                if first_use && !loaded.diagnostics.is_empty() {
                    report.config(&loaded)?;
                }
                jobs.push((path, loaded));
            }
            let results: Vec<Result<Checked, String>> = jobs
                .par_iter()
                .map(|(path, loaded)| {
                    let checked =
                        check_input(&Input::File(path), &loaded.config, args, cache.as_ref());
                    progress.tick();
                    checked
                })
                .collect();
            progress.clear();
            for ((path, _), result) in jobs.iter().zip(results) {
                let checked = result.map_err(fail)?;
                if let (Some(cache), Some(key)) = (cache.as_mut(), &checked.store) {
                    cache.insert(*key, &checked.diagnostics);
                }
                report.checked(path, checked)?;
            }
        }
        Ok(found)
    })();
    drop(progress);
    if let (Some(cache), Ok(_)) = (&cache, &checked) {
        if let Err(message) = cache.save() {
            output::status(format_args!("warning: {message}"));
        }
    }
    checked
}

/// Whether `path` names a workspace configuration file.
fn is_config_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name == crate::config::FILE_NAME)
        && !path.is_dir()
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

/// Checks one manifest: from the cache when it has this content under this
/// configuration, afresh otherwise, applying fixes first when asked (and
/// writing them to the file unless `--diff` only shows them).
fn check_input(
    input: &Input<'_>,
    config: &Config,
    args: &CheckArgs,
    cache: Option<&Cache>,
) -> Result<Checked, String> {
    let (name, bytes) = match input {
        Input::File(path) => (
            fs::display_name(path),
            Cow::Owned(fs::read_up_to(path, MAX_FILE_BYTES as u64 + 1)?),
        ),
        Input::Stdin { name, bytes } => (name.clone(), Cow::Borrowed(*bytes)),
    };
    let key = cache.map(|_| cache::key(&bytes, &config.fingerprint));
    if let (Some(cache), Some(key)) = (cache, &key) {
        if let Some(diagnostics) = cache.get(key) {
            let source = match crate::decode_bytes(&name, &bytes) {
                Ok(source) => source,
                Err(undecodable) => undecodable.0,
            };
            return Ok(Checked {
                original: source.text.clone(),
                source,
                diagnostics,
                store: None,
                fixed: Vec::new(),
            });
        }
    }
    let (mut source, mut diagnostics) = crate::check_bytes(&name, &bytes, config);
    let original = source.text.clone();
    let mut fixed = Vec::new();
    if args.fix {
        let mut last = None;
        let recheck = |text: &str| {
            let (source, diagnostics) = crate::check_bytes(&name, text.as_bytes(), config);
            last = Some(source);
            Ok::<_, std::convert::Infallible>(diagnostics)
        };
        let Ok((_, now)) = crate::fix::until_stable(
            source.text.to_string(),
            diagnostics,
            args.unsafe_fixes,
            recheck,
            |_, diagnostic| fixed.push(diagnostic.clone()),
        );
        diagnostics = now;
        source = last.unwrap_or(source);
        if let (false, false, Input::File(path)) = (fixed.is_empty(), args.diff, input) {
            fs::write_atomically(path, source.text.as_bytes())?;
        }
    }
    Ok(Checked {
        source,
        diagnostics,
        store: key,
        fixed,
        original,
    })
}

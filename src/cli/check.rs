//! `contrib check PATH…`

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use super::{fail, files, use_color, Outcome};
use crate::config::{Config, Resolver};
use crate::diagnostic::{self, Diagnostic};
use crate::report::{self, Format, Totals};
use crate::source::SourceFile;

/// How many rounds of fixes `--fix` applies before it stops, as ruff does.
const MAX_FIX_ROUNDS: usize = 8;

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
}

pub fn run(args: &CheckArgs) -> Outcome {
    let manifests = match files::manifests(&args.paths) {
        Ok(manifests) => manifests,
        Err(message) => return fail(message),
    };
    let mut emitter = report::emitter(args.format, use_color());
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut totals = Totals::default();
    let mut resolver = Resolver::new(args.config.clone());
    for path in &manifests {
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
        let checked = match check_path(path, &loaded.config, args) {
            Ok(checked) => checked,
            Err(message) => return fail(message),
        };
        totals.add(&checked.1);
        if emitter.file(&mut out, &checked.0, &checked.1).is_err() {
            return Outcome::Failed;
        }
    }
    if emitter
        .finish(&mut out, totals)
        .and_then(|()| out.flush())
        .is_err()
    {
        return Outcome::Failed;
    }
    if totals.errors > 0 || (args.deny_warnings && totals.warnings > 0) {
        Outcome::Problems
    } else {
        Outcome::Clean
    }
}

/// Checks one manifest, applying fixes first when asked.
fn check_path(
    path: &Path,
    config: &Config,
    args: &CheckArgs,
) -> Result<(SourceFile, Vec<Diagnostic>), String> {
    let bytes = files::read_limited(path)?;
    let name = files::display_name(path);
    let (mut source, mut diagnostics) = check_bytes(&name, &bytes, config);
    if !args.fix {
        return Ok((source, diagnostics));
    }
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
        files::write_atomically(path, source.text.as_bytes())?;
    }
    Ok((source, diagnostics))
}

/// One file's diagnostics, from its bytes.
pub fn check_bytes(name: &str, bytes: &[u8], config: &Config) -> (SourceFile, Vec<Diagnostic>) {
    match crate::decode_bytes(name, bytes) {
        Ok(source) => {
            let analysis = crate::analyze(&source, config);
            (source, analysis.diagnostics)
        }
        Err((source, diagnostic)) => {
            let mut diagnostics = vec![diagnostic];
            diagnostic::sort(&mut diagnostics);
            (source, diagnostics)
        }
    }
}

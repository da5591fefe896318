//! `contrib check PATH…`

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;

use super::{fail, files, Format, Outcome};
use crate::diagnostic::Diagnostic;
use crate::report::{human::Human, json::Json, Emitter, Totals};
use crate::source::SourceFile;

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
}

pub fn run(args: &CheckArgs) -> Outcome {
    let manifests = match files::manifests(&args.paths) {
        Ok(manifests) => manifests,
        Err(message) => return fail(message),
    };
    let mut emitter: Box<dyn Emitter> = match args.format {
        Format::Human => Box::new(Human::new(use_color())),
        Format::Json => Box::new(Json::default()),
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut totals = Totals::default();
    for path in &manifests {
        let bytes = match files::read_limited(path) {
            Ok(bytes) => bytes,
            Err(message) => return fail(message),
        };
        let (source, diagnostics) = check_bytes(&files::display_name(path), &bytes);
        totals.add(&diagnostics);
        if emitter.file(&mut out, &source, &diagnostics).is_err() {
            return Outcome::Failed;
        }
    }
    if emitter.finish(&mut out, totals).and_then(|()| out.flush()).is_err() {
        return Outcome::Failed;
    }
    if totals.errors > 0 || (args.deny_warnings && totals.warnings > 0) {
        Outcome::Problems
    } else {
        Outcome::Clean
    }
}

/// One file's diagnostics, from its bytes.
pub fn check_bytes(name: &str, bytes: &[u8]) -> (SourceFile, Vec<Diagnostic>) {
    match crate::decode_bytes(name, bytes) {
        Ok(source) => {
            let analysis = crate::analyze(&source);
            (source, analysis.diagnostics)
        }
        Err((source, diagnostic)) => (source, vec![diagnostic]),
    }
}

fn use_color() -> bool {
    io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
}

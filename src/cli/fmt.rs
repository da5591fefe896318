//! `contrib fmt PATH…`: rewrite manifests in the canonical layout.
//!
//! Without flags, each file that is not already formatted is replaced
//! atomically: the new text goes to a temporary file in the same folder,
//! which takes the original's permissions and is then renamed over it, so a
//! crash or a full disk leaves either the old file or the new one, never
//! half of each. A read-only file is not replaced.
//!
//! Symbolic links: a link named on the command line is followed, and the
//! file it points to is replaced (the link stays a link). A link found by
//! searching a folder is read (so `--check` sees it) but never written
//! through: it may point anywhere, and the person did not ask about it.
//!
//! `--check` and `--diff` change nothing: `--check` lists the files that
//! would change, `--diff` prints what would change as a unified diff; both
//! exit 1 if anything would. `-` formats standard input to standard output,
//! for editors and hooks; `--stdin-filename` names it (in diagnostics and
//! diffs, and for its workspace's `exclude`: an excluded file is written
//! back unchanged, as prettier does).
//!
//! Exit status: 0 when every file is formatted (or was rewritten), 1 when a
//! file would change under `--check`/`--diff` or cannot be formatted (a
//! syntax error, shown like `check` shows it, leaves the file untouched), 2
//! when the command could not run (usage, I/O).

use std::io;
use std::path::{Path, PathBuf};

use clap::Args;

use super::output;
use super::{fail, Outcome};
use crate::diagnostic::Diagnostic;
use crate::fs;
use crate::limits::MAX_FILE_BYTES;
use crate::report::human::Human;
use crate::source::SourceFile;

#[derive(Args)]
pub(super) struct FmtArgs {
    /// Files and folders to format (folders are searched for `*.contrib`),
    /// or `-` to format standard input to standard output.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Change nothing; list the files that would change, and exit 1 if any
    /// would.
    #[arg(long)]
    check: bool,
    /// Change nothing; print a unified diff of what would change, and exit
    /// 1 if anything would.
    #[arg(long)]
    diff: bool,
    /// The path that standard input (`-`) stands for: the name in
    /// diagnostics and diffs, and what its workspace's `exclude` and ignore
    /// files are matched against (an excluded file is written back as it
    /// came).
    #[arg(long, value_name = "PATH")]
    stdin_filename: Option<PathBuf>,
}

/// What to do with a file that is not formatted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Write,
    Check,
    Diff,
}

impl FmtArgs {
    fn mode(&self) -> Mode {
        if self.diff {
            Mode::Diff
        } else if self.check {
            Mode::Check
        } else {
            Mode::Write
        }
    }
}

pub(super) fn run(args: &FmtArgs) -> Outcome {
    if args.paths.iter().any(|path| path.as_os_str() == "-") {
        if args.paths.len() > 1 {
            return fail("`-` (standard input) cannot be combined with other paths");
        }
        return standard_input(args.mode(), args.stdin_filename.as_deref());
    }
    if args.stdin_filename.is_some() {
        return fail("`--stdin-filename` names standard input: give `-` as the path");
    }
    let (manifests, found) =
        match super::manifests(&args.paths, &mut crate::config::Resolver::new(None)) {
            Ok(found) => found,
            Err(message) => return fail(message),
        };
    manifests
        .into_iter()
        .map(|path| {
            // A path found by searching a folder is never one of those given.
            let named = args.paths.contains(&path);
            one_file(&Found { path, named }, args.mode())
        })
        .fold(found, Outcome::max)
}

/// A manifest to format, and whether the person named it.
struct Found {
    path: PathBuf,
    /// Named on the command line rather than found in a folder: only then
    /// is a symbolic link written through.
    named: bool,
}

fn one_file(found: &Found, mode: Mode) -> Outcome {
    let path = &found.path;
    let bytes = match fs::read_up_to(path, MAX_FILE_BYTES as u64 + 1) {
        Ok(bytes) => bytes,
        Err(message) => return fail(message),
    };
    let name = fs::display_name(path);
    let (source, formatted) = match format_bytes(&name, &bytes) {
        Ok(pair) => pair,
        Err(outcome) => return outcome,
    };
    if *source.text == *formatted {
        return Outcome::Clean;
    }
    match mode {
        Mode::Check => output::result(name, Outcome::Problems),
        Mode::Diff => print_diff(&name, &source.text, &formatted),
        Mode::Write => match write(found, &formatted) {
            Ok(()) => Outcome::Clean,
            Err(message) => fail(message),
        },
    }
}

fn standard_input(mode: Mode, named: Option<&Path>) -> Outcome {
    let bytes = match super::read_stdin() {
        Ok(bytes) => bytes,
        Err(message) => return fail(message),
    };
    if let Some(path) = named {
        match super::stdin_excluded(path, &mut crate::config::Resolver::new(None)) {
            // As prettier does: an excluded file comes back as it came.
            Ok(true) => {
                return match mode {
                    Mode::Write => write_stdout(&bytes),
                    Mode::Check | Mode::Diff => Outcome::Clean,
                }
            }
            Ok(false) => {}
            Err(message) => return fail(message),
        }
    }
    let name = named.map_or_else(|| "<stdin>".to_string(), fs::display_name);
    let (source, formatted) = match format_bytes(&name, &bytes) {
        Ok(pair) => pair,
        Err(outcome) => return outcome,
    };
    let changed = *source.text != *formatted;
    match mode {
        Mode::Write => write_stdout(formatted.as_bytes()),
        Mode::Check if changed => output::result(name, Outcome::Problems),
        Mode::Diff if changed => print_diff(&name, &source.text, &formatted),
        Mode::Check | Mode::Diff => Outcome::Clean,
    }
}

/// Writes the formatted text (or the text as it came) to standard output.
fn write_stdout(bytes: &[u8]) -> Outcome {
    match output::write_result(|out| out.write_all(bytes)) {
        Ok(()) => Outcome::Clean,
        Err(stopped) => stopped.outcome(Outcome::Clean),
    }
}

/// The file's source and its formatted text; on failure the diagnostic is
/// shown on standard error and the outcome returned.
fn format_bytes(name: &str, bytes: &[u8]) -> Result<(SourceFile, String), Outcome> {
    let source = match crate::decode_bytes(name, bytes) {
        Ok(source) => source,
        Err((source, diagnostic)) => return Err(show(&source, &diagnostic)),
    };
    match crate::fmt::format(&source.text) {
        Ok(formatted) => Ok((source, formatted)),
        Err(diagnostic) => Err(show(&source, &diagnostic)),
    }
}

/// Shows why a file cannot be formatted, on standard error: the result
/// (formatted text, a diff) is on standard output.
fn show(source: &SourceFile, diagnostic: &Diagnostic) -> Outcome {
    let human = Human::styled(output::stderr_style());
    output::status(human.render(source, diagnostic));
    Outcome::Problems
}

fn print_diff(name: &str, old: &str, new: &str) -> Outcome {
    let text = output::unified_diff(name, old, new);
    match output::write_result(|out| out.write_all(text.as_bytes())) {
        Ok(()) => Outcome::Problems,
        Err(stopped) => stopped.outcome(Outcome::Problems),
    }
}

/// Replaces the manifest's text, through a symbolic link only if the link
/// was named on the command line.
fn write(found: &Found, text: &str) -> Result<(), String> {
    let path = &found.path;
    let cannot = |error: io::Error| {
        format!(
            "cannot write `{}`: {}",
            path.display(),
            fs::describe(&error)
        )
    };
    let is_link = std::fs::symlink_metadata(path)
        .map_err(cannot)?
        .file_type()
        .is_symlink();
    let target = match (is_link, found.named) {
        (false, _) => path.clone(),
        (true, true) => std::fs::canonicalize(path).map_err(cannot)?,
        (true, false) => {
            return Err(format!(
                "not writing through the symbolic link `{}`, found in a folder; name it on the command line to format the file it points to",
                path.display()
            ))
        }
    };
    fs::write_atomically(&target, text.as_bytes()).map_err(String::from)
}

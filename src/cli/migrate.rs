//! `contrib migrate PATH…`: rewrite manifests (and `contrib.toml` files) of
//! the language's first version in the current one, in place.
//!
//! Folders are searched for `*.contrib` and `contrib.toml`. Each file that
//! would change is rewritten atomically, comments kept; a file already in
//! the current language is left alone, so running it twice changes nothing.
//! `--check` changes nothing and lists the files that would change.
//!
//! Exit status: 0 when nothing needed migrating (or everything was
//! migrated), 1 when a file would change under `--check` or cannot be read
//! as a manifest (its syntax error is shown), 2 when the command could not
//! run.

use std::path::{Path, PathBuf};

use clap::Args;

use super::output;
use super::{fail, Outcome};
use crate::config::FILE_NAME;
use crate::fs;
use crate::limits::MAX_FILE_BYTES;
use crate::migrate::{self, Migrated};
use crate::report::human::Human;
use crate::source::SourceFile;

#[derive(Args)]
pub(super) struct MigrateArgs {
    /// Manifests, `contrib.toml` files, and folders searched for both.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Change nothing; list the files that would change, and exit 1 if any
    /// would.
    #[arg(long)]
    check: bool,
}

pub(super) fn run(args: &MigrateArgs) -> Outcome {
    let (mut targets, found) =
        match super::manifests(&args.paths, &mut crate::config::Resolver::new(None)) {
            Ok(found) => found,
            Err(message) => return fail(message),
        };
    for path in &args.paths {
        if path.is_dir() {
            targets.extend(configurations(path));
        }
    }
    let mut outcome = found;
    let mut migrated = 0;
    for path in &targets {
        match one_file(path, args.check) {
            Ok(true) => migrated += 1,
            Ok(false) => {}
            Err(failed) => outcome = outcome.max(failed),
        }
    }
    if args.check && migrated > 0 {
        output::status(format_args!(
            "{migrated} file(s) would be migrated; run `contrib migrate` without `--check`"
        ));
        return outcome.max(Outcome::Problems);
    }
    if migrated > 0 {
        output::status(format_args!("migrated {migrated} file(s)"));
    }
    outcome
}

/// Every `contrib.toml` under `folder`, found as manifests are, in path
/// order; links are left alone, since migrating rewrites the file.
fn configurations(folder: &Path) -> Vec<PathBuf> {
    let is_config = |path: &Path| path.file_name().is_some_and(|name| name == FILE_NAME);
    fs::files_under(folder, &is_config)
        .files
        .into_iter()
        .filter(|path| {
            !path
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink())
        })
        .collect()
}

/// Migrates one file: `Ok(true)` when it changed (or would).
fn one_file(path: &Path, check: bool) -> Result<bool, Outcome> {
    let bytes = fs::read_up_to(path, MAX_FILE_BYTES as u64 + 1).map_err(fail)?;
    let name = fs::display_name(path);
    let Ok(text) = String::from_utf8(bytes) else {
        return Err(fail(format!("`{name}` is not UTF-8 text")));
    };
    let is_config = path.file_name().is_some_and(|file| file == FILE_NAME);
    let migrated: Migrated = if is_config {
        migrate::configuration(&name, &text)
    } else {
        match migrate::manifest(&name, &text) {
            Ok(migrated) => migrated,
            Err(diagnostic) => {
                let source = SourceFile::new(name.as_str(), text);
                output::status(
                    Human::styled(output::stderr_style())
                        .render(&source, &diagnostic)
                        .trim_end(),
                );
                return Err(Outcome::Problems);
            }
        }
    };
    if !migrated.changed(&text) {
        return Ok(false);
    }
    if check {
        return match output::result(&name, Outcome::Problems) {
            Outcome::Problems => Ok(true),
            failed => Err(failed),
        };
    }
    fs::write_atomically(path, migrated.text.as_bytes()).map_err(fail)?;
    output::status(format_args!("{name}:"));
    for change in &migrated.changes {
        output::status(format_args!("  {change}"));
    }
    Ok(true)
}

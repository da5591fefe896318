//! `contrib import FORMAT PATH…`

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::output::{self, status};
use super::progress::{Conditions, Progress};
use super::{fail, Outcome};
use crate::config::{self, Config};
use crate::fs::{self, Root};
use crate::import::{self, report, Format, Options};
use crate::ir::Owner;

#[derive(Args)]
pub(super) struct ImportArgs {
    /// The source format; `auto` detects it per file from names and contents.
    #[arg(value_enum)]
    format: Format,
    /// Source folders (or single files); each is one source in the report.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Write the manifests here, as `DIR/SCOPE/NAME.contrib`; without it
    /// they are printed.
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    out: Option<PathBuf>,
    /// Who owns what is imported: operator, workspace, agent-author or person.
    #[arg(long, default_value = "agent-author", value_parser = owner)]
    owner: Owner,
    /// The plugins' scope; by default each source folder's name.
    #[arg(long, value_name = "NAME")]
    scope: Option<String>,
    /// Print the import report (Markdown) with what `contrib check` finds;
    /// with `-o`, the detailed report is also written to
    /// `DIR/import-report.md`.
    #[arg(long)]
    report: bool,
    /// The workspace configuration that measures and checks the result; by
    /// default the nearest `contrib.toml` at or above DIR (or the current
    /// folder), as `contrib check DIR` would find it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

fn owner(text: &str) -> Result<Owner, String> {
    Owner::parse(text).ok_or_else(|| {
        format!("`{text}` is not an owner: write operator, workspace, agent-author or person")
    })
}

pub(super) fn run(args: &ImportArgs) -> Outcome {
    let config = match workspace(args) {
        Ok(config) => config,
        Err(message) => return fail(message),
    };
    let progress = Progress::new("importing", Conditions::here(true, args.paths.len()));
    let mut trees = Vec::new();
    for path in &args.paths {
        progress.stage(format_args!("reading `{}`", path.display()));
        match import::read_tree(path) {
            Ok(tree) => trees.push(tree),
            Err(message) => return fail(message),
        }
    }
    let options = Options {
        format: args.format,
        owner: args.owner,
        scope: args.scope.clone(),
    };
    let files: usize = trees.iter().map(|tree| tree.files.len()).sum();
    progress.stage(format_args!("converting {} files", files));
    let imports = import::import_all(&trees, &options, &config);
    drop(progress);
    let written = match &args.out {
        Some(out) => write(out, &imports),
        None => print(&imports),
    };
    match written {
        Ok(()) => {}
        Err(Stop::Failed(message)) => return fail(message),
        Err(Stop::Output(stopped)) => return stopped.outcome(Outcome::Clean),
    }
    if args.report {
        let summaries: Vec<report::Summary> = imports
            .iter()
            .map(|imported| report::summarize(imported, &config))
            .collect();
        if let Some(out) = &args.out {
            let detailed = report::render(&summaries, &imports, true);
            if let Err(message) =
                fs::write_atomically(&out.join("import-report.md"), detailed.as_bytes())
            {
                return fail(message);
            }
        }
        let text = report::render(&summaries, &imports, false);
        if let Err(stopped) = output::write_result(|out| out.write_all(text.as_bytes())) {
            return stopped.outcome(Outcome::Clean);
        }
    }
    let mut outcome = Outcome::Clean;
    for imported in &imports {
        for failure in &imported.failures {
            status(format_args!(
                "error: cannot import `{}/{}`: {}",
                imported.source, failure.file, failure.message
            ));
            outcome = Outcome::Problems;
        }
        if imported.manifests.is_empty() && imported.failures.is_empty() {
            status(nothing_imported(imported, args.format));
            outcome = Outcome::Problems;
        } else {
            status(imported_line(imported));
        }
    }
    outcome
}

/// `imported skills: 3 manifests from 7 files, 2 files skipped`.
fn imported_line(imported: &import::Imported) -> String {
    let mut line = format!(
        "imported {}: {} from {}",
        imported.source,
        crate::report::plural(imported.manifests.len(), "manifest"),
        crate::report::plural(imported.files_read, "file"),
    );
    if !imported.skipped.is_empty() {
        line.push_str(&format!(
            ", {} skipped (`--report` lists them)",
            crate::report::plural(imported.skipped.len(), "file")
        ));
    }
    line
}

/// A source that gave no manifest: an error naming what was skipped and
/// why, so that nothing is dropped silently.
fn nothing_imported(imported: &import::Imported, format: Format) -> String {
    const SHOWN: usize = 5;
    let mut line = format!(
        "error: nothing in `{}` imports as {}",
        imported.source,
        match format {
            Format::Auto => "any format `contrib import` reads".to_string(),
            other => other
                .to_possible_value()
                .map_or_else(String::new, |value| format!("`{}`", value.get_name())),
        }
    );
    if imported.skipped.is_empty() {
        line.push_str(": it holds no files");
        return line;
    }
    let listed: Vec<String> = imported
        .skipped
        .iter()
        .take(SHOWN)
        .map(|skipped| format!("`{}`: {}", skipped.file, skipped.reason))
        .collect();
    line.push_str(&format!("; skipped {}", listed.join("; ")));
    if imported.skipped.len() > SHOWN {
        line.push_str(&format!(" and {} more", imported.skipped.len() - SHOWN));
    }
    line
}

/// The configuration `contrib check` would use on the written manifests.
fn workspace(args: &ImportArgs) -> Result<Config, String> {
    let found = match &args.config {
        Some(path) => Some(path.clone()),
        None => {
            let start = args.out.clone().unwrap_or_else(|| PathBuf::from("."));
            config::discover(&std::path::absolute(&start).unwrap_or(start))
        }
    };
    let Some(path) = found else {
        return Ok(Config::platform());
    };
    let (config, diagnostics) = Config::load(&path)?;
    if diagnostics.iter().any(|diagnostic| diagnostic.is_error()) {
        // Budgets measured against defaults would not be the workspace's.
        return Err(format!(
            "`{}` has errors; run `contrib check` on a manifest to see them",
            path.display()
        ));
    }
    Ok(config)
}

/// Why writing the manifests stopped.
enum Stop {
    Failed(String),
    Output(output::Stopped),
}

/// Writes the manifests under `out`, which is created even when there is
/// nothing to write, as `-o` promises.
fn write(out: &Path, imports: &[import::Imported]) -> Result<(), Stop> {
    let mut count = 0;
    let root = Root::create(out).map_err(|error| Stop::Failed(error.into()))?;
    for manifest in imports.iter().flat_map(|imported| &imported.manifests) {
        let path = out.join(&manifest.path);
        if let Some(folder) = path.parent() {
            root.create_folders(folder)
                .map_err(|error| Stop::Failed(error.into()))?;
        }
        fs::write_atomically(&path, manifest.text.as_bytes())
            .map_err(|error| Stop::Failed(error.into()))?;
        count += 1;
    }
    status(format_args!(
        "wrote {} to {}",
        crate::report::plural(count, "manifest"),
        out.display()
    ));
    Ok(())
}

fn print(imports: &[import::Imported]) -> Result<(), Stop> {
    output::write_result(|out| {
        for manifest in imports.iter().flat_map(|imported| &imported.manifests) {
            writeln!(out, "# ==> {} <==\n{}", manifest.path, manifest.text)?;
        }
        Ok(())
    })
    .map_err(Stop::Output)
}

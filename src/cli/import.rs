//! `contrib import FORMAT PATH…`

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{fail, Outcome};
use crate::config::{self, Config};
use crate::fs::{self, Root};
use crate::import::{self, report, Format, Options};
use crate::ir::Owner;

#[derive(Args)]
pub struct ImportArgs {
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

pub fn run(args: &ImportArgs) -> Outcome {
    let config = match workspace(args) {
        Ok(config) => config,
        Err(message) => return fail(message),
    };
    let mut trees = Vec::new();
    for path in &args.paths {
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
    let imports = import::import_all(&trees, &options, &config);
    let written = match &args.out {
        Some(out) => write(out, &imports),
        None => print(&imports),
    };
    if let Err(message) = written {
        return fail(message);
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
        print!("{}", report::render(&summaries, &imports, false));
    }
    let failures: usize = imports.iter().map(|imported| imported.failures.len()).sum();
    for imported in &imports {
        for failure in &imported.failures {
            eprintln!(
                "error: cannot import `{}/{}`: {}",
                imported.source, failure.file, failure.message
            );
        }
    }
    if failures > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    }
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

fn write(out: &Path, imports: &[import::Imported]) -> Result<(), String> {
    let mut count = 0;
    let root = Root::create(out)?;
    for manifest in imports.iter().flat_map(|imported| &imported.manifests) {
        let path = out.join(&manifest.path);
        if let Some(folder) = path.parent() {
            root.create_folders(folder)?;
        }
        fs::write_atomically(&path, manifest.text.as_bytes())?;
        count += 1;
    }
    eprintln!("wrote {count} manifest(s) to {}", out.display());
    Ok(())
}

fn print(imports: &[import::Imported]) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for manifest in imports.iter().flat_map(|imported| &imported.manifests) {
        writeln!(out, "# ==> {} <==\n{}", manifest.path, manifest.text)
            .map_err(|error| format!("cannot write the manifests: {}", fs::describe(&error)))?;
    }
    Ok(())
}

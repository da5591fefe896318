//! `contrib export --format TARGET MANIFEST… -o DIR`

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::output::{self, status};
use super::{fail, Outcome};
use crate::analyze_bytes;
use crate::config::Resolver;
use crate::diagnostic::Diagnostic;
use crate::export::{self, Package, Target};
use crate::fs::{self, Replace};
use crate::limits::MAX_FILE_BYTES;

#[derive(Args)]
pub(super) struct ExportArgs {
    /// The package to write: `agent-plugin` (Agent Plugins 1.0.0) or
    /// `claude-plugin` (a Claude Code plugin).
    #[arg(long, value_enum)]
    format: Target,
    /// Manifests that check without errors.
    #[arg(required = true)]
    manifests: Vec<PathBuf>,
    /// The package's folder; with several manifests, the folder that holds
    /// one package per manifest.
    #[arg(short = 'o', long = "out", value_name = "DIR", required = true)]
    out: PathBuf,
    /// Replace a package already in the folder (never a folder that holds
    /// no plugin manifest).
    #[arg(long)]
    force: bool,
    /// How to print the report of what the package does not express.
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "human")]
    report: ReportFormat,
    /// The workspace configuration the manifests are checked against; by
    /// default each manifest's nearest `contrib.toml`.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    Human,
    Json,
}

pub(super) fn run(args: &ExportArgs) -> Outcome {
    let mut resolver = Resolver::new(args.config.clone());
    let mut packages = Vec::new();
    let mut refused = false;
    for path in &args.manifests {
        match package(path, args.format, &mut resolver) {
            Ok(package) => packages.push(package),
            Err(Refused::Errors(message)) => {
                status(format_args!("error: {message}"));
                refused = true;
            }
            Err(Refused::Failed(message)) => return fail(message),
        }
    }
    // Nothing is written unless every manifest can be.
    if refused {
        status("nothing written: fix the errors (`contrib check` shows them) and export again");
        return Outcome::Problems;
    }
    let placed = match place(&args.out, &packages) {
        Ok(placed) => placed,
        Err(message) => return fail(message),
    };
    for (folder, package) in &placed {
        if let Err(message) = write(folder, package, args.force) {
            return fail(message);
        }
        status(format_args!(
            "wrote {} package `{}` to {}",
            args.format.title(),
            package.report.package,
            folder.display()
        ));
    }
    let text = match args.report {
        ReportFormat::Human => placed
            .iter()
            .map(|(folder, package)| package.report.human(&folder.display().to_string()))
            .collect::<Vec<_>>()
            .join("\n"),
        ReportFormat::Json => {
            #[derive(serde::Serialize)]
            struct Reports {
                packages: Vec<export::Report>,
            }
            let packages = placed
                .iter()
                .map(|(folder, package)| {
                    let mut report = package.report.clone();
                    report.out = Some(folder.display().to_string());
                    report
                })
                .collect();
            let mut text = serde_json::to_string_pretty(&Reports { packages }).unwrap_or_default();
            text.push('\n');
            text
        }
    };
    output::result(text, Outcome::Clean)
}

enum Refused {
    /// The manifest has errors: it is not exported.
    Errors(String),
    /// It could not be read.
    Failed(String),
}

fn package(path: &Path, target: Target, resolver: &mut Resolver) -> Result<Package, Refused> {
    let (loaded, _) = resolver
        .for_manifest(path)
        .map_err(|error| Refused::Failed(error.to_string()))?;
    if loaded.diagnostics.iter().any(Diagnostic::is_error) {
        return Err(Refused::Errors(format!(
            "the configuration for `{}` has errors; run `contrib check {}`",
            path.display(),
            path.display()
        )));
    }
    let bytes = fs::read_up_to(path, MAX_FILE_BYTES as u64 + 1)
        .map_err(|error| Refused::Failed(error.into()))?;
    let (source, analysis) = analyze_bytes(&fs::display_name(path), &bytes, &loaded.config);
    let errors = analysis.diagnostics.iter().filter(|d| d.is_error()).count();
    match analysis.plugin {
        Some(plugin) if errors == 0 => Ok(export::package(&plugin, &loaded.config, target)),
        _ => Err(Refused::Errors(format!(
            "`{}` has {}, so it is not exported; run `contrib check {}`",
            source.name,
            crate::report::plural(errors.max(1), "error"),
            path.display()
        ))),
    }
}

/// Where each package goes: `DIR` for one manifest, `DIR/NAME` for each of
/// several.
fn place<'a>(out: &Path, packages: &'a [Package]) -> Result<Vec<(PathBuf, &'a Package)>, String> {
    if let [package] = packages {
        return Ok(vec![(out.to_path_buf(), package)]);
    }
    let mut placed: Vec<(PathBuf, &Package)> = Vec::new();
    for package in packages {
        let folder = out.join(&package.name);
        if placed.iter().any(|(taken, _)| *taken == folder) {
            return Err(format!(
                "two manifests are both the package `{}`; export them to different folders",
                package.name
            ));
        }
        placed.push((folder, package));
    }
    Ok(placed)
}

/// Writes one package as the whole of `folder`. A folder with files in it
/// is replaced only with `--force`, and only when it is a package (it
/// holds a plugin manifest): `--force` never empties a folder of other
/// work.
fn write(folder: &Path, package: &Package, force: bool) -> Result<(), String> {
    let holds_files = std::fs::read_dir(folder).is_ok_and(|mut entries| entries.next().is_some());
    if holds_files {
        if !force {
            return Err(format!(
                "`{}` is not empty; give `--force` to replace the package in it, or choose a new folder",
                folder.display()
            ));
        }
        let is_package = Target::manifest_paths()
            .iter()
            .any(|manifest| folder.join(manifest).is_file());
        if !is_package {
            return Err(format!(
                "`{}` holds files but no plugin manifest (`plugin.json`, `.claude-plugin/plugin.json`), so even `--force` does not replace it; choose a new or empty folder",
                folder.display()
            ));
        }
    }
    let files: Vec<(&str, &[u8])> = package
        .files
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_bytes()))
        .collect();
    fs::write_folder(folder, &files, Replace::Whole).map_err(String::from)
}

//! Manifest → bundle, shared by `build`, `publish`, `diff` and `preview`.

use std::path::Path;

use crate::analyze_bytes;
use crate::bundle::{self, Bundle};
use crate::config::Resolver;
use crate::diagnostic::Diagnostic;
use crate::fs;
use crate::limits::MAX_FILE_BYTES;
use crate::source::{SourceFile, Span};

/// A manifest that checked without errors, built.
pub(super) struct Compiled {
    pub source: SourceFile,
    /// Its warnings.
    pub diagnostics: Vec<Diagnostic>,
    pub bundle: Bundle,
    /// Where the version is written, for refusals about it.
    pub version_span: Span,
}

/// Why a manifest did not build.
pub(super) enum NotBuilt {
    /// It has errors (shown with its other diagnostics).
    Errors(SourceFile, Vec<Diagnostic>),
    /// Its configuration has errors: nothing is built under a
    /// configuration that could not be read whole (failing open would
    /// build against the platform's defaults). The configuration and its
    /// diagnostics come the first time it is met, `None` after.
    Config(Option<(SourceFile, Vec<Diagnostic>)>),
    /// It could not be read.
    Failed(String),
}

pub(super) fn compile(path: &Path, resolver: &mut Resolver) -> Result<Compiled, NotBuilt> {
    compile_with_usage(path, resolver, None)
}

/// [`compile`], with `usage` read instead of the file each eager load that
/// chooses from usage names.
pub(super) fn compile_with_usage(
    path: &Path,
    resolver: &mut Resolver,
    usage: Option<&Path>,
) -> Result<Compiled, NotBuilt> {
    let (loaded, first_use) = resolver
        .for_manifest(path)
        .map_err(|error| NotBuilt::Failed(error.to_string()))?;
    if loaded.diagnostics.iter().any(Diagnostic::is_error) {
        let shown = first_use
            .then(|| loaded.config.source.as_deref().cloned())
            .flatten()
            .map(|source| (source, loaded.diagnostics.clone()));
        return Err(NotBuilt::Config(shown));
    }
    let bytes = fs::read_up_to(path, MAX_FILE_BYTES as u64 + 1)
        .map_err(|error| NotBuilt::Failed(error.into()))?;
    let (source, analysis) = analyze_bytes(&fs::display_name(path), &bytes, &loaded.config);
    let diagnostics = analysis.diagnostics;
    let plugin = match analysis.plugin {
        Some(plugin) if !diagnostics.iter().any(Diagnostic::is_error) => plugin,
        _ => return Err(NotBuilt::Errors(source, diagnostics)),
    };
    let usages = bundle::usages_for(path, &plugin, usage)
        .map_err(|error| NotBuilt::Failed(error.to_string()))?;
    Ok(Compiled {
        bundle: bundle::build_with_usage(&plugin, &loaded.config, &analysis.waived, &usages)
            .map_err(|error| NotBuilt::Failed(error.to_string()))?,
        version_span: plugin.version.span,
        source,
        diagnostics,
    })
}

/// A bundle from a `.bundle.json` file, or built from a manifest.
pub(super) fn bundle_or_manifest(path: &Path, resolver: &mut Resolver) -> Result<Bundle, String> {
    if let Some(pulled) = path.to_str().and_then(super::oci::bundle_at) {
        return pulled;
    }
    if path.to_string_lossy().ends_with(".json") {
        return Bundle::load(path).map_err(|error| match error {
            bundle::LoadError::Io(message) => message,
            other => format!("`{}`: {other}", path.display()),
        });
    }
    match compile(path, resolver) {
        Ok(compiled) => Ok(compiled.bundle),
        Err(NotBuilt::Failed(message)) => Err(message),
        Err(NotBuilt::Config(_)) => Err(format!(
            "the configuration for `{}` has errors; run `contrib check {}`",
            path.display(),
            path.display()
        )),
        Err(NotBuilt::Errors(source, diagnostics)) => {
            let errors = diagnostics.iter().filter(|d| d.is_error()).count();
            Err(format!(
                "`{}` has {errors} error(s); run `contrib check {}`",
                source.name,
                path.display()
            ))
        }
    }
}

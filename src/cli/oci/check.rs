//! `catalog check oci://…`: the catalog-wide rules judged from the
//! registry's index alone. Each publish event records what those rules
//! read of its version ([`Facts`]), so no bundle is pulled, however many
//! versions there are; only versions whose publish events predate the
//! recorded facts are pulled and read, as a folder catalog's are. What
//! only a registry can get wrong (publishes set aside, events that cannot
//! be read, tags that moved) is reported beside.

use std::path::Path;

use crate::bundle::catalog::consistency;
use crate::bundle::oci::OciCatalog;
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::report::{self, Format, Totals};
use crate::source::SourceFile;

use super::super::output::{self, status};
use super::super::{fail, Outcome};

/// Checks `catalog` from its index under `config` (whose own diagnostics
/// are `config_diagnostics`), reporting in `format`.
pub(crate) fn from_index(
    catalog: &OciCatalog,
    format: Format,
    config: &Config,
    config_diagnostics: &[Diagnostic],
) -> Outcome {
    let scratch = match tempfile::tempdir() {
        Ok(scratch) => scratch,
        Err(error) => return fail(format!("cannot make a folder: {error}")),
    };
    let folder = scratch.path().join("catalog");
    let read = super::connect(catalog).and_then(|registry| {
        let index = registry.index()?;
        let older = super::facts::unrecorded(&index);
        super::mirror(&registry, &index, &folder, &older)?;
        let facts = super::facts::of_every_version(&index, &folder)?;
        let findings = super::registry_findings(&registry, &index);
        let older = older.len();
        Ok((index, facts, findings, older))
    });
    let (index, facts, findings, older) = match read {
        Ok(read) => read,
        Err(message) => return fail(message),
    };
    status(format_args!(
        "note: `{catalog}` checked from its index: {} version(s), {older} of them read as bundles (published before the index recorded what the catalog-wide rules read)",
        index.lock.published.len()
    ));
    let lock_file = folder.join(crate::bundle::catalog::LOCK_FILE);
    let lock_text = std::fs::read_to_string(&lock_file).unwrap_or_default();
    let diagnostics = consistency::check_facts(&index.lock, &lock_text, &facts, config);
    let source = SourceFile::new(format!("{catalog}/catalog.lock"), lock_text);
    let outcome = emit(format, config, config_diagnostics, &source, &diagnostics);
    with_findings(outcome, &findings)
}

/// Checks `catalog` as a mirror of it, its index and every bundle pulled
/// by digest, by `check_folder` (for what needs the bundles: comparing
/// sources with what was published).
pub(crate) fn mirrored(catalog: &OciCatalog, check_folder: &dyn Fn(&Path) -> Outcome) -> Outcome {
    let scratch = match tempfile::tempdir() {
        Ok(scratch) => scratch,
        Err(error) => return fail(format!("cannot make a folder: {error}")),
    };
    let folder = scratch.path().join("catalog");
    let findings = super::connect(catalog).and_then(|registry| {
        let index = registry.index()?;
        let wanted: Vec<_> = index.lock.published.iter().collect();
        super::mirror(&registry, &index, &folder, &wanted)?;
        Ok(super::registry_findings(&registry, &index))
    });
    match findings {
        Ok(findings) => with_findings(check_folder(&folder), &findings),
        Err(message) => fail(message),
    }
}

/// `outcome`, with what only a registry can get wrong printed after it.
fn with_findings(outcome: Outcome, findings: &[String]) -> Outcome {
    for finding in findings {
        println!(
            "{}",
            crate::report::terminal::visible(&format!("error: {finding}"))
        );
    }
    if findings.is_empty() {
        outcome
    } else {
        outcome.max(Outcome::Problems)
    }
}

/// Writes the configuration's and the catalog's diagnostics; problems
/// when there is an error among them.
fn emit(
    format: Format,
    config: &Config,
    config_diagnostics: &[Diagnostic],
    source: &SourceFile,
    diagnostics: &[Diagnostic],
) -> Outcome {
    let mut emitter = report::emitter(format, output::stdout_style());
    let mut totals = Totals::default();
    let written = output::write_result(|out| {
        if let (Some(config_source), false) = (&config.source, config_diagnostics.is_empty()) {
            totals.add(config_diagnostics);
            emitter.file(out, config_source, config_diagnostics)?;
        }
        totals.add(diagnostics);
        emitter.file(out, source, diagnostics)?;
        emitter.finish(out, totals)
    });
    let reached = if totals.errors > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    };
    if let Err(stopped) = written {
        return stopped.outcome(reached);
    }
    status(totals.summary());
    reached
}

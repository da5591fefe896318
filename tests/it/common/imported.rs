//! What every import test asks of a produced manifest.

use contrib::config::Config;
use contrib::diagnostic::RuleKind;
use contrib::import::{Imported, Manifest};
use contrib::ir::ContributorBody;
use contrib::source::SourceFile;

/// The manifest lowers with no language error and is in the canonical
/// layout: the importer writes that layout by construction, so the
/// formatter must change nothing.
pub fn assert_canonical(manifest: &Manifest) {
    let source = SourceFile::new(manifest.path.clone(), manifest.text.clone());
    let analysis = contrib::analyze(&source, &Config::platform());
    let language: Vec<String> = analysis
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.rule.kind == RuleKind::Language)
        .map(|diagnostic| {
            format!(
                "{} {}: {}",
                diagnostic.rule.code, diagnostic.rule.name, diagnostic.message
            )
        })
        .collect();
    assert!(
        language.is_empty(),
        "{}: language errors {language:#?}",
        manifest.path
    );
    assert!(analysis.plugin.is_some(), "{}: no plugin", manifest.path);
    let formatted = contrib::fmt::format(&manifest.text).expect("an imported manifest formats");
    assert!(
        formatted == manifest.text,
        "{}: not in the canonical layout",
        manifest.path
    );
}

/// Every `text` body decodes to what was imported, byte for byte, every
/// contributor applies when the import says it does, and no budget is
/// under what the checker measures.
pub fn assert_faithful(manifest: &Manifest, config: &Config) {
    let source = SourceFile::new(manifest.path.clone(), manifest.text.clone());
    let analysis = contrib::analyze(&source, config);
    let plugin = analysis.plugin.expect("the manifest lowers to a plugin");
    assert_eq!(
        plugin.contributors.len(),
        manifest.contributors.len(),
        "{}: every contributor lowers",
        manifest.path
    );
    for (lowered, produced) in plugin.contributors.iter().zip(&manifest.contributors) {
        assert_eq!(lowered.id.value, produced.id);
        assert_eq!(lowered.budget.value, produced.budget);
        assert_eq!(
            lowered.placement.value, produced.placement,
            "{}",
            produced.id
        );
        assert_eq!(
            lowered.activation.value.kind(),
            produced.activation,
            "{}: `{}`",
            manifest.path,
            produced.id
        );
        if let (ContributorBody::Text { body }, Some(imported)) = (&lowered.body, &produced.body) {
            assert!(
                body.literals().collect::<String>() == *imported,
                "{}: the body of `{}` does not decode to its source text",
                manifest.path,
                produced.id
            );
        }
    }
    let over: Vec<&str> = analysis
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.rule.name == "over-budget")
        .map(|diagnostic| diagnostic.message.as_str())
        .collect();
    assert!(over.is_empty(), "{}: {over:#?}", manifest.path);
}

/// An import with no file that failed.
pub fn assert_imported(imported: &Imported) {
    assert!(
        imported.failures.is_empty(),
        "{}: {:#?}",
        imported.source,
        imported.failures
    );
}

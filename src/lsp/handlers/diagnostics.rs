//! `textDocument/publishDiagnostics`: the compiler's diagnostics, as LSP
//! sees them.
//!
//! One compiler diagnostic is one LSP diagnostic: its primary label is the
//! range; its code is the rule's code (`C0118`), linked through
//! `codeDescription` to the rule's explanation (see [`RuleDocs`]); its
//! message is the one `contrib check` prints, followed on a second line by
//! the help, as the terminal shows it below the snippet; each secondary
//! label is a `relatedInformation` entry at its own range. Suppressions
//! and requirements that do nothing are tagged `Unnecessary`, which
//! editors show faded.

use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, Location,
    NumberOrString, PublishDiagnosticsParams, Uri,
};

use crate::diagnostic::{Diagnostic, Severity};
use crate::lsp::convert;
use crate::lsp::rule_docs::RuleDocs;
use crate::source::SourceFile;

/// What the server publishes for one file.
pub fn publish(
    uri: &Uri,
    version: Option<i32>,
    source: &SourceFile,
    diagnostics: &[Diagnostic],
    docs: &RuleDocs,
) -> PublishDiagnosticsParams {
    PublishDiagnosticsParams {
        uri: uri.clone(),
        diagnostics: diagnostics
            .iter()
            .map(|diagnostic| to_lsp(uri, source, diagnostic, docs))
            .collect(),
        version,
    }
}

pub fn to_lsp(
    uri: &Uri,
    source: &SourceFile,
    diagnostic: &Diagnostic,
    docs: &RuleDocs,
) -> lsp_types::Diagnostic {
    let rule = diagnostic.rule;
    let message = match &diagnostic.help {
        Some(help) => format!("{}\nhelp: {help}", diagnostic.message),
        None => diagnostic.message.clone(),
    };
    let related: Vec<DiagnosticRelatedInformation> = diagnostic
        .labels
        .iter()
        .filter(|label| !label.primary)
        .map(|label| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), convert::range(source, label.span)),
            message: label.message.clone(),
        })
        .collect();
    let unnecessary = matches!(rule.name, "unused-suppression" | "unused-requirement");
    lsp_types::Diagnostic {
        range: convert::range(source, diagnostic.span()),
        severity: Some(match diagnostic.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(rule.code.to_string())),
        code_description: docs.href(rule).map(|href| CodeDescription { href }),
        source: Some("contrib".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: unnecessary.then(|| vec![DiagnosticTag::UNNECESSARY]),
        data: None,
    }
}

//! The front end as one call: bytes → source → syntax → IR → diagnostics.
//! [`check_bytes`] is the whole of it for callers that hold only bytes
//! (the command line, the fuzzers).

use crate::codes::UNUSED_REQUIREMENT;
use crate::config::Config;
use crate::diagnostic::{self, Diagnostic};
use crate::ir::Plugin;
use crate::source::SourceFile;
use crate::{check, lower, syntax};

/// A file's plugin, if it could be read, and everything found wrong with it.
#[derive(Debug)]
pub struct Analysis {
    pub plugin: Option<Plugin>,
    /// Sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// What the manifest's suppression comments silenced: recorded in its
    /// bundle so that an installer sees it (and never obeyed at install).
    pub waived: Vec<check::suppress::Waived>,
}

/// Parses, lowers and checks one manifest against a workspace's
/// configuration: the language's diagnostics, then the checker's with
/// `[lints]` levels and the manifest's suppressions applied.
pub fn analyze(source: &SourceFile, config: &Config) -> Analysis {
    analyze_parsed(source, &syntax::parse_recovering(&source.text), config)
}

/// [`analyze`] for a file already parsed, as the language server keeps it.
///
/// A syntax error costs only its construct (see `syntax::recover`): the
/// rest of the file is lowered and checked as it would be without it.
pub fn analyze_parsed(
    source: &SourceFile,
    parsed: &syntax::Parsed<'_>,
    config: &Config,
) -> Analysis {
    let mut diagnostics = parsed.errors.clone();
    let Some(tree) = &parsed.file else {
        return Analysis {
            plugin: None,
            diagnostics,
            waived: Vec::new(),
        };
    };
    let lowered = lower::lower(tree);
    diagnostics.extend(lowered.diagnostics);
    diagnostics.extend(check::check_text(source, tree, config));
    if let Some(plugin) = &lowered.plugin {
        diagnostics.extend(check::bounds::check(plugin));
        diagnostics.extend(check::check(plugin, config));
    }
    // A language error keeps its contributor out of the IR, and so from
    // the checker: a suppression may then look unused only because what it
    // covers was never checked, and a requirement only because what uses
    // it was left out.
    let checked_whole = !diagnostics.iter().any(|diagnostic| {
        diagnostic.is_error() && diagnostic.rule.kind == crate::diagnostic::RuleKind::Language
    });
    if !checked_whole {
        diagnostics.retain(|diagnostic| diagnostic.rule != &UNUSED_REQUIREMENT);
    }
    let waived = check::suppress::apply(tree, source, &mut diagnostics, checked_whole);
    check::apply_levels(&mut diagnostics, config);
    diagnostic::sort(&mut diagnostics);
    Analysis {
        plugin: lowered.plugin,
        diagnostics,
        waived,
    }
}

/// One file's diagnostics, from its bytes.
pub fn check_bytes(name: &str, bytes: &[u8], config: &Config) -> (SourceFile, Vec<Diagnostic>) {
    let (source, analysis) = analyze_bytes(name, bytes, config);
    (source, analysis.diagnostics)
}

/// One file's analysis, from its bytes: bytes that are not a manifest's
/// text yield no plugin and the diagnostic that says why.
pub fn analyze_bytes(name: &str, bytes: &[u8], config: &Config) -> (SourceFile, Analysis) {
    match crate::decode_bytes(name, bytes) {
        Ok(source) => {
            let analysis = analyze(&source, config);
            (source, analysis)
        }
        Err((source, diagnostic)) => {
            let mut diagnostics = vec![diagnostic];
            diagnostic::sort(&mut diagnostics);
            (
                source,
                Analysis {
                    plugin: None,
                    diagnostics,
                    waived: Vec::new(),
                },
            )
        }
    }
}

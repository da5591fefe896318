//! The front end as one call: bytes → source → syntax → IR → diagnostics.

use crate::config::Config;
use crate::diagnostic::{self, Diagnostic};
use crate::ir::Plugin;
use crate::limits::MAX_FILE_BYTES;
use crate::rules::{INVALID_ENCODING, LIMIT_EXCEEDED, UNUSED_REQUIREMENT};
use crate::source::{SourceFile, Span};
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

/// Turns a file's bytes into a source, or into the diagnostic that says why
/// they are not a manifest's text: too large, not UTF-8, or holding NUL.
///
/// On error the returned source holds the text decoded lossily, so the
/// diagnostic can still be shown against it.
// Called once per file, never in a loop: the large error costs nothing.
#[allow(clippy::result_large_err)]
pub fn decode_bytes(name: &str, bytes: &[u8]) -> Result<SourceFile, (SourceFile, Diagnostic)> {
    if bytes.len() > MAX_FILE_BYTES {
        let diagnostic = Diagnostic::new(
            &LIMIT_EXCEEDED,
            // Readers stop one byte past the limit, so the size is not known.
            format!("the file is over the limit of {MAX_FILE_BYTES} bytes (4 MiB)"),
        )
        .primary(Span::point(0), "file too large")
        .help("split the manifest into several plugins; real manifests are a few kilobytes");
        return Err((SourceFile::new(name, ""), diagnostic));
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            let offset = error.valid_up_to();
            // Shown against the lossy text, where the bad bytes became one
            // U+FFFD; the bytes before it keep their offsets.
            let len = char::REPLACEMENT_CHARACTER.len_utf8();
            let diagnostic = Diagnostic::new(
                &INVALID_ENCODING,
                format!("the file is not valid UTF-8 at byte {offset}"),
            )
            .primary(Span::new(offset, offset + len), "not UTF-8")
            .help("save the manifest as UTF-8 text");
            let text = String::from_utf8_lossy(bytes).replace('\0', " ");
            return Err((SourceFile::new(name, text), diagnostic));
        }
    };
    if let Some(offset) = text.find('\0') {
        let diagnostic = Diagnostic::new(
            &INVALID_ENCODING,
            format!("the file holds a NUL byte at byte {offset}"),
        )
        .primary(Span::new(offset, offset + 1), "NUL byte")
        .help("manifests are text; remove the NUL byte, or check that this is the file you meant");
        return Err((SourceFile::new(name, text.replace('\0', " ")), diagnostic));
    }
    Ok(SourceFile::new(name, text))
}

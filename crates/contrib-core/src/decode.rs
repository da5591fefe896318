//! Bytes to a source: the first step of every front end (the checker, the
//! formatter, the language server, the configuration and the catalog's
//! re-reading of manifests), kept below all of them so none depends on
//! another for it.

use crate::codes::{INVALID_ENCODING, LIMIT_EXCEEDED};
use crate::diagnostic::Diagnostic;
use crate::limits::MAX_FILE_BYTES;
use crate::source::{SourceFile, Span};

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

//! `check --baseline FILE`: adopting the checker on a catalog that has
//! findings today. `--baseline FILE --write-baseline` records every finding
//! of the run in FILE; `--baseline FILE` then reports only the findings
//! that FILE does not record, so a pull request is held to what it adds.
//!
//! A finding is recognised by a fingerprint of its file (relative to the
//! baseline's folder), its rule's code, the text it underlines and its
//! message with numbers left out, never by its line: lines moved by an
//! edit elsewhere in the file do not make an old finding new, and a
//! measured size that drifts (`adds 52 tokens`) does not either. Two
//! findings with the same fingerprint are counted: a baseline that
//! records one lets one through, and the second is new.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::fs;
use crate::source::SourceFile;

/// The version of the file's format.
const VERSION: u32 = 1;

/// How much of the underlined text a recorded finding shows a person.
const SHOWN: usize = 80;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    version: u32,
    findings: Vec<Entry>,
}

/// One recorded finding. Only `file` and `fingerprint` are compared; the
/// rest says what it was, for the person reviewing the file.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[serde(deny_unknown_fields)]
struct Entry {
    file: String,
    code: String,
    name: String,
    underlined: String,
    message: String,
    fingerprint: String,
}

/// A baseline read from its file: what is still to be matched.
pub(super) struct Baseline {
    /// Fingerprint → the file it is in, and how many findings it stands for.
    remaining: HashMap<String, (String, usize)>,
    /// The files of this run, whose unmatched findings are gone.
    seen: Vec<String>,
}

impl Baseline {
    pub(super) fn read(path: &Path) -> Result<Baseline, String> {
        let text = fs::read_text(path, crate::limits::files::BASELINE)?;
        let document: Document = serde_json::from_str(&text).map_err(|error| {
            format!(
                "`{}` is not a baseline (`contrib check --baseline FILE --write-baseline` writes one): {error}",
                path.display()
            )
        })?;
        if document.version != VERSION {
            return Err(format!(
                "`{}` is a baseline of version {}; this `contrib` reads version {VERSION}: write it again with `--write-baseline`",
                path.display(),
                document.version
            ));
        }
        let mut remaining: HashMap<String, (String, usize)> = HashMap::new();
        for entry in document.findings {
            remaining
                .entry(entry.fingerprint)
                .or_insert_with(|| (entry.file, 0))
                .1 += 1;
        }
        Ok(Baseline {
            remaining,
            seen: Vec::new(),
        })
    }

    /// Takes out of `diagnostics` those the baseline records for `file`
    /// (a key from [`file_key`]); returns how many it took.
    pub(super) fn filter(
        &mut self,
        file: &str,
        source: &SourceFile,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> usize {
        self.seen.push(file.to_string());
        let before = diagnostics.len();
        diagnostics.retain(|diagnostic| {
            let print = fingerprint(file, source, diagnostic);
            match self.remaining.get_mut(&print) {
                Some((_, count)) if *count > 0 => {
                    *count -= 1;
                    false
                }
                _ => true,
            }
        });
        before - diagnostics.len()
    }

    /// Recorded findings of this run's files that no longer occur.
    pub(super) fn gone(&self) -> usize {
        self.remaining
            .values()
            .filter(|(file, _)| self.seen.contains(file))
            .map(|(_, count)| count)
            .sum()
    }
}

/// The findings of a run, for `--write-baseline`.
#[derive(Default)]
pub(super) struct Recorder {
    entries: Vec<Entry>,
    files: Vec<String>,
}

impl Recorder {
    pub(super) fn record(&mut self, file: &str, source: &SourceFile, diagnostics: &[Diagnostic]) {
        if !diagnostics.is_empty() && !self.files.iter().any(|seen| seen == file) {
            self.files.push(file.to_string());
        }
        for diagnostic in diagnostics {
            let underlined = one_line(source.slice(diagnostic.span()));
            self.entries.push(Entry {
                file: file.to_string(),
                code: diagnostic.rule.code.to_string(),
                name: diagnostic.rule.name.to_string(),
                underlined: underlined.chars().take(SHOWN).collect(),
                message: diagnostic.message.clone(),
                fingerprint: fingerprint(file, source, diagnostic),
            });
        }
    }

    /// Writes the baseline (atomically); the status line that says so.
    pub(super) fn write(mut self, path: &Path) -> Result<String, String> {
        self.entries.sort();
        let count = self.entries.len();
        let document = Document {
            version: VERSION,
            findings: self.entries,
        };
        let mut text = serde_json::to_string_pretty(&document)
            .map_err(|error| format!("cannot write the baseline: {error}"))?;
        text.push('\n');
        fs::write_atomically(path, text.as_bytes())?;
        Ok(format!(
            "wrote {}: {} in {}",
            path.display(),
            crate::report::plural(count, "finding"),
            crate::report::plural(self.files.len(), "file")
        ))
    }
}

/// How a baseline at `baseline` names the file at `path`: relative to the
/// baseline's folder (`plugins/a.contrib`, `../plugins/a.contrib`), with
/// `/` separators, so the same baseline serves a checkout wherever it is
/// and whatever folder `contrib` runs from.
pub(super) fn file_key(baseline: &Path, path: &Path) -> String {
    let path = normal(path);
    let folder = normal(baseline)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let shared = path
        .components()
        .zip(folder.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut relative = PathBuf::new();
    for _ in folder.components().skip(shared) {
        relative.push("..");
    }
    for component in path.components().skip(shared) {
        relative.push(component);
    }
    relative.to_string_lossy().replace('\\', "/")
}

/// The absolute form of `path`, with `.` and `..` resolved by their names
/// (the file may not exist: `--stdin-filename` names any path).
fn normal(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut normal = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// What recognises a finding across edits: its file, its rule, what it
/// underlines and its message, with whitespace runs made one space and
/// numbers left out.
fn fingerprint(file: &str, source: &SourceFile, diagnostic: &Diagnostic) -> String {
    let mut hasher = blake3::Hasher::new();
    for part in [
        file,
        diagnostic.rule.code,
        &one_line(source.slice(diagnostic.span())),
        &without_numbers(&diagnostic.message),
    ] {
        hasher.update(part.as_bytes());
        hasher.update(b"\0");
    }
    hasher.finalize().to_hex()[..32].to_string()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn without_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        if character.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else {
            out.push(character);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn findings(text: &str) -> (SourceFile, Vec<Diagnostic>) {
        let source = SourceFile::new("a.contrib", text);
        let diagnostics = crate::analyze(&source, &Config::platform()).diagnostics;
        (source, diagnostics)
    }

    const MANIFEST: &str = "plugin acme/a 1.0.0 {\n    owner agent-author\n\n    text stance {\n        placment agent\n        budget 40 tokens\n        body \"Answer plainly.\"\n    }\n}\n";

    #[test]
    fn a_finding_survives_lines_moving_and_a_new_one_is_reported() {
        let (source, diagnostics) = findings(MANIFEST);
        assert!(!diagnostics.is_empty());
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("baseline.json");
        let mut recorder = Recorder::default();
        recorder.record("a.contrib", &source, &diagnostics);
        recorder.write(&file).unwrap();

        // Lines added above move every finding down.
        let moved = MANIFEST.replace(
            "    owner agent-author\n",
            "    owner agent-author\n    summary \"moved\"\n\n",
        );
        let (source, mut diagnostics) = findings(&moved);
        let mut baseline = Baseline::read(&file).unwrap();
        let taken = baseline.filter("a.contrib", &source, &mut diagnostics);
        assert!(taken > 0);
        assert!(diagnostics.is_empty(), "{diagnostics:#?}");
        assert_eq!(baseline.gone(), 0);

        // The same mistake made a second time is new.
        let twice = MANIFEST.replace(
            "        budget 40 tokens\n",
            "        budget 40 tokens\n        placment agent\n",
        );
        let (source, mut diagnostics) = findings(&twice);
        let mut baseline = Baseline::read(&file).unwrap();
        baseline.filter("a.contrib", &source, &mut diagnostics);
        assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
        assert_eq!(source.slice(diagnostics[0].span()), "placment");

        // In another file, nothing is baselined.
        let (source, mut diagnostics) = findings(MANIFEST);
        let before = diagnostics.len();
        Baseline::read(&file)
            .unwrap()
            .filter("b.contrib", &source, &mut diagnostics);
        assert_eq!(diagnostics.len(), before);
    }

    #[test]
    fn numbers_do_not_change_a_fingerprint_but_words_do() {
        assert_eq!(
            without_numbers("adds 52 tokens over 40"),
            "adds # tokens over #"
        );
        let (source, diagnostics) = findings(MANIFEST);
        let first = fingerprint("a.contrib", &source, &diagnostics[0]);
        assert_eq!(first, fingerprint("a.contrib", &source, &diagnostics[0]));
        assert_ne!(first, fingerprint("b.contrib", &source, &diagnostics[0]));
    }

    #[test]
    fn files_are_named_relative_to_the_baseline() {
        assert_eq!(
            file_key(
                Path::new("/w/ci/baseline.json"),
                Path::new("/w/ci/plugins/a.contrib")
            ),
            "plugins/a.contrib"
        );
        assert_eq!(
            file_key(
                Path::new("/w/ci/../baseline.json"),
                Path::new("/w/x/./a.contrib")
            ),
            "x/a.contrib"
        );
        assert_eq!(
            file_key(
                Path::new("/w/ci/baseline.json"),
                Path::new("/w/plugins/a.contrib")
            ),
            "../plugins/a.contrib"
        );
    }
}

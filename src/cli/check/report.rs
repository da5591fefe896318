//! What one run of `contrib check` writes and says: the diagnostics (or
//! `--fix --diff`'s diffs) to standard output or `--output-file`, held
//! back by a baseline or recorded into one, and the closing line on
//! standard error.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::super::baseline::{self, Baseline, Recorder};
use super::super::{fail, output, Outcome};
use super::{CheckArgs, Checked};
use crate::config::Loaded;
use crate::diagnostic::Diagnostic;
use crate::fs;
use crate::report::{self, Totals};
use crate::source::SourceFile;

/// Where the result goes: standard output as it is made, or a buffer that
/// replaces `--output-file` at the end.
enum Sink {
    Stdout(io::BufWriter<io::StdoutLock<'static>>),
    File(PathBuf, Vec<u8>),
}

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(out) => out.write(bytes),
            Sink::File(_, buffer) => buffer.write(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.flush(),
            Sink::File(..) => Ok(()),
        }
    }
}

/// The run's report: what is written, counted, baselined and fixed.
pub(super) struct Report {
    emitter: Box<dyn report::Emitter>,
    out: Sink,
    totals: Totals,
    fixed: Totals,
    /// `--baseline` without `--write-baseline`: what is not reported.
    baseline: Option<Baseline>,
    /// `--write-baseline`: what is recorded instead of reported.
    recorder: Option<Recorder>,
    /// Findings the baseline held back.
    baselined: usize,
    /// `--fix --diff`: diffs are written instead of diagnostics.
    diff: bool,
    /// The baseline's path, which its file names are relative to.
    baseline_path: Option<PathBuf>,
}

impl Report {
    pub(super) fn new(args: &CheckArgs) -> Result<Report, String> {
        let baseline = match &args.baseline {
            Some(path) if !args.write_baseline => Some(Baseline::read(path)?),
            _ => None,
        };
        let (out, style) = match &args.output_file {
            Some(file) => (Sink::File(file.clone(), Vec::new()), output::file_style()),
            None => (
                Sink::Stdout(io::BufWriter::new(io::stdout().lock())),
                output::stdout_style(),
            ),
        };
        Ok(Report {
            emitter: report::emitter(args.format, style),
            out,
            totals: Totals::default(),
            fixed: Totals::default(),
            baseline,
            recorder: args.write_baseline.then(Recorder::default),
            baselined: 0,
            diff: args.diff,
            baseline_path: args.baseline.clone(),
        })
    }

    /// A configuration's own diagnostics, when it has a file.
    pub(super) fn config(&mut self, loaded: &Loaded) -> Result<(), Outcome> {
        match (&loaded.config.source, &loaded.path) {
            (Some(source), Some(path)) => self.file(path, source, loaded.diagnostics.clone()),
            _ => Ok(()),
        }
    }

    /// A checked manifest: its fixes, then its diagnostics.
    pub(super) fn checked(&mut self, path: &Path, checked: Checked) -> Result<(), Outcome> {
        if !checked.fixed.is_empty() {
            self.fixed.add(&checked.fixed);
            let verb = if self.diff { "would fix" } else { "fixed" };
            output::status(fixed_line(verb, &checked.source.name, &checked.fixed));
            if self.diff {
                let diff = output::unified_diff(
                    &checked.source.name,
                    &checked.original,
                    &checked.source.text,
                );
                let reached = self.outcome(false);
                self.out
                    .write_all(diff.as_bytes())
                    .map_err(|error| output::stopped(&error).outcome(reached))?;
            }
        }
        self.file(path, &checked.source, checked.diagnostics)
    }

    /// Another tool's source checked in place (`SKILL.md`, `plugin.json`),
    /// under the name it was read by.
    pub(super) fn source(
        &mut self,
        source: &SourceFile,
        diagnostics: Vec<Diagnostic>,
    ) -> Result<(), Outcome> {
        self.file(Path::new(&source.name), source, diagnostics)
    }

    /// One file's diagnostics: recorded, held back by the baseline, or
    /// counted and written.
    fn file(
        &mut self,
        path: &Path,
        source: &SourceFile,
        mut diagnostics: Vec<Diagnostic>,
    ) -> Result<(), Outcome> {
        if let Some(baseline_path) = &self.baseline_path {
            let key = baseline::file_key(baseline_path, path);
            if let Some(recorder) = &mut self.recorder {
                recorder.record(&key, source, &diagnostics);
                self.totals.add(&diagnostics);
                return Ok(());
            }
            if let Some(baseline) = &mut self.baseline {
                self.baselined += baseline.filter(&key, source, &mut diagnostics);
            }
        }
        self.totals.add(&diagnostics);
        if self.diff {
            return Ok(());
        }
        let reached = self.outcome(false);
        self.emitter
            .file(&mut self.out, source, &diagnostics)
            .map_err(|error| output::stopped(&error).outcome(reached))
    }

    /// The status reached so far, for a run cut short.
    fn outcome(&self, deny_warnings: bool) -> Outcome {
        if self.diff {
            return if self.fixed.files > 0 {
                Outcome::Problems
            } else {
                Outcome::Clean
            };
        }
        outcome(self.totals, deny_warnings)
    }

    /// Ends the result, writes `--output-file` or the baseline, and says
    /// how the run went.
    pub(super) fn finish(mut self, args: &CheckArgs) -> Outcome {
        if let (Some(recorder), Some(path)) = (self.recorder.take(), &self.baseline_path) {
            return match recorder.write(path) {
                Ok(line) => {
                    output::status(line);
                    Outcome::Clean
                }
                Err(message) => fail(message),
            };
        }
        let reached = self.outcome(args.deny_warnings);
        if !self.diff {
            if let Err(error) = self.emitter.finish(&mut self.out, self.totals) {
                return output::stopped(&error).outcome(reached);
            }
        }
        match &mut self.out {
            Sink::Stdout(out) => {
                if let Err(error) = out.flush() {
                    return output::stopped(&error).outcome(reached);
                }
            }
            Sink::File(file, buffer) => {
                if let Err(message) = fs::write_atomically(file, buffer) {
                    return fail(message);
                }
            }
        }
        output::status(self.summary());
        if self.diff {
            return reached;
        }
        if self.totals.errors == 0 && self.totals.warnings > 0 && args.deny_warnings {
            output::status(format_args!(
                "error: failing on {} because of `--deny-warnings`",
                report::plural(self.totals.warnings, "warning")
            ));
        }
        reached
    }

    /// The closing line: what was checked and found, fixed, or held back.
    fn summary(&self) -> String {
        let fixes = self.fixed.errors + self.fixed.warnings;
        if self.diff {
            return match self.fixed.files {
                0 => format!(
                    "checked {}: nothing to fix",
                    report::plural(self.totals.files, "file")
                ),
                files => format!(
                    "would fix {} in {}; run without `--diff` to apply",
                    report::plural(fixes, "problem"),
                    report::plural(files, "file")
                ),
            };
        }
        let mut summary = self.totals.summary();
        if self.fixed.files > 0 {
            summary.push_str(&format!(" ({} fixed)", report::plural(fixes, "problem")));
        }
        if let Some(baseline) = &self.baseline {
            summary.push_str(&format!(
                " ({} in the baseline",
                report::plural(self.baselined, "finding")
            ));
            match baseline.gone() {
                0 => summary.push(')'),
                gone => summary.push_str(&format!(
                    "; {} no longer found: `--write-baseline` drops {})",
                    report::plural(gone, "recorded finding"),
                    if gone == 1 { "it" } else { "them" }
                )),
            }
        }
        summary
    }
}

/// Exit 1 on errors, or on warnings under `--deny-warnings`.
fn outcome(totals: Totals, deny_warnings: bool) -> Outcome {
    if totals.errors > 0 || (deny_warnings && totals.warnings > 0) {
        Outcome::Problems
    } else {
        Outcome::Clean
    }
}

/// `fixed 2 problems in a.contrib: unknown-field, budget-unused ×2`, naming
/// each rule once with how often it was fixed.
fn fixed_line(verb: &str, name: &str, fixed: &[Diagnostic]) -> String {
    let mut rules: Vec<(&str, usize)> = Vec::new();
    for diagnostic in fixed {
        match rules
            .iter_mut()
            .find(|(rule, _)| *rule == diagnostic.rule.name)
        {
            Some((_, count)) => *count += 1,
            None => rules.push((diagnostic.rule.name, 1)),
        }
    }
    let named: Vec<String> = rules
        .into_iter()
        .map(|(rule, count)| match count {
            1 => rule.to_string(),
            _ => format!("{rule} ×{count}"),
        })
        .collect();
    format!(
        "{verb} {} in {name}: {}",
        report::plural(fixed.len(), "problem"),
        named.join(", ")
    )
}

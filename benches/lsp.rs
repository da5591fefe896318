//! What the language server does after a keystroke, and what each request
//! costs on a document that has not changed since, for a generated
//! 5,000-line manifest and a 50 KB one.
//!
//! - **re-diagnosis**: parse, lower, check with the real tokenizer, convert
//!   the diagnostics to LSP. Each sample edits the text first, as typing
//!   does, so nothing from the sample before is reused. Goal (issue 16):
//!   p95 under 30 ms for 5,000 lines.
//! - **requests on an unchanged document**: the version has been parsed and
//!   analysed (its diagnostics are published); each request is timed
//!   twice: the first time it is asked for this version (what it derives
//!   is computed: semantic tokens, measures, the fix-all text, the
//!   formatting), and again (answered from what the version keeps). Goal:
//!   p95 under 5 ms.
//! - **a manifest full of syntax errors** (98 KB of broken contributors:
//!   stray tokens, braces that never close, strings that never end): the
//!   re-diagnosis after an edit and every request, first asked and again.
//!   Goal (issue 29): no request above 100 ms, so the slowest sample of
//!   each is printed, not a percentile. When one re-diagnosis takes over
//!   a second, a few samples are taken rather than hundreds, so that the
//!   figure is still printed in minutes.
//!
//! The machine is shared, so every figure is the median of `ROUNDS`
//! rounds' 95th percentiles, printed with the date, the load average and
//! the core count: a loaded machine shows up as a high load, and a round
//! hit by a burst does not decide the figure. Each figure is given twice:
//! wall-clock time (what a person waits) and the thread's CPU time (the
//! work done, which a loaded machine does not inflate; on Unix). `cargo
//! bench --bench lsp` prints the table, then criterion's estimates of the
//! re-diagnosis.

use std::hint::black_box;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use contrib::config::Config;
use contrib::lsp::handlers::{
    code_action, code_lens, completion, definition, diagnostics, formatting, hover, inlay_hint,
    semantic_tokens, symbols,
};
use contrib::lsp::rule_docs::RuleDocs;
use contrib::lsp::state::{self, Snapshot};
use contrib::lsp::version::{Checked, Syntax};
use contrib::source::SourceFile;
use criterion::{Criterion, Throughput};
use lsp_types::{
    CodeActionContext, CodeActionParams, PartialResultParams, Position, PublishDiagnosticsParams,
    Range, TextDocumentIdentifier, Uri, WorkDoneProgressParams,
};

/// Rounds per figure, and samples per round.
const ROUNDS: usize = 5;
const SAMPLES: usize = 40;

fn main() {
    let config = Arc::new(Config::platform());
    // Load the vocabulary once, outside the measurements.
    config.tokenizer.count("warm up");
    let docs = RuleDocs::default();
    println!("{}", machine());
    let manifests = [("5000-lines", lines_5000()), ("50KB", kilobytes_50())];
    for (name, text) in &manifests {
        let lines = text.lines().count();
        let published = republish(text, &config, &docs).diagnostics.len();
        let p95 = figure(|round| {
            p95_of(
                (0..SAMPLES)
                    .map(|sample| {
                        let text = edited(text, round * SAMPLES + sample);
                        timed(|| black_box(republish(&text, &config, &docs)))
                    })
                    .collect(),
            )
        });
        println!(
            "{name} ({lines} lines, {} bytes, {published} diagnostics): re-diagnosis p95 {p95} (goal 30 ms)",
            text.len()
        );
        requests(text, &config, &docs);
    }
    syntax_errors(&config, &docs);
    let mut criterion = Criterion::default().sample_size(20).configure_from_args();
    let mut group = criterion.benchmark_group("republish");
    for (name, text) in &manifests {
        group.throughput(Throughput::Bytes(text.len() as u64));
        let mut edit = 0;
        group.bench_function(*name, |bencher| {
            bencher.iter(|| {
                edit += 1;
                let text = edited(text, edit);
                black_box(republish(&text, &config, &docs))
            })
        });
    }
    group.finish();
    criterion.final_summary();
}

/// The date, the load average and the cores, for the figures' context.
fn machine() -> String {
    let date = std::process::Command::new("date")
        .arg("-u")
        .arg("+%Y-%m-%d %H:%M UTC")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "lsp bench, {date}: {cores} cores, load average {load}; each figure is the median of {ROUNDS} rounds' p95 over {SAMPLES} samples ({} for a request first asked)",
        SAMPLES / 2
    )
}

/// One measurement: wall-clock time and the thread's CPU time.
#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    cpu: Option<Duration>,
}

impl std::fmt::Display for Sample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.cpu {
            Some(cpu) => write!(f, "{:.2?} wall, {:.2?} CPU", self.wall, cpu),
            None => write!(f, "{:.2?} wall", self.wall),
        }
    }
}

/// Runs `work` once, timed.
fn timed<T>(work: impl FnOnce() -> T) -> Sample {
    let cpu = thread_cpu();
    let start = Instant::now();
    black_box(work());
    let wall = start.elapsed();
    Sample {
        wall,
        cpu: cpu
            .zip(thread_cpu())
            .map(|(before, after)| after.saturating_sub(before)),
    }
}

/// The CPU time this thread has used so far.
#[cfg(unix)]
fn thread_cpu() -> Option<Duration> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec for the call's duration.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    (status == 0).then(|| {
        Duration::new(
            u64::try_from(now.tv_sec).unwrap_or(0),
            u32::try_from(now.tv_nsec).unwrap_or(0),
        )
    })
}

#[cfg(not(unix))]
fn thread_cpu() -> Option<Duration> {
    None
}

/// The median over rounds of what `round` measures, wall and CPU apart.
fn figure(mut round: impl FnMut(usize) -> Sample) -> Sample {
    let rounds: Vec<Sample> = (0..ROUNDS).map(&mut round).collect();
    let median = |mut values: Vec<Duration>| {
        values.sort();
        values[values.len() / 2]
    };
    let cpu: Option<Vec<Duration>> = rounds.iter().map(|sample| sample.cpu).collect();
    Sample {
        wall: median(rounds.iter().map(|sample| sample.wall).collect()),
        cpu: cpu.map(median),
    }
}

/// The 95th percentiles of wall and CPU time, each over every sample.
fn p95_of(samples: Vec<Sample>) -> Sample {
    let p95 = |mut values: Vec<Duration>| {
        values.sort();
        values[(values.len() * 95 / 100).min(values.len() - 1)]
    };
    let cpu: Option<Vec<Duration>> = samples.iter().map(|sample| sample.cpu).collect();
    Sample {
        wall: p95(samples.iter().map(|sample| sample.wall).collect()),
        cpu: cpu.map(p95),
    }
}

/// What the server does between a `didChange` and its
/// `publishDiagnostics`.
fn republish(text: &str, config: &Config, docs: &RuleDocs) -> PublishDiagnosticsParams {
    let source = SourceFile::new("bench.contrib", text);
    let analysis = state::analyze(&source, config);
    diagnostics::publish(&uri(), Some(1), &source, &analysis.diagnostics, docs)
}

/// One version of a document as the server keeps it once its diagnostics
/// are published.
struct Version {
    source: SourceFile,
    syntax: Syntax,
    checked: Checked,
}

impl Version {
    fn new(text: &str, config: &Config) -> Version {
        let source = SourceFile::new("bench.contrib", text);
        let syntax = Syntax::new(source.text.clone());
        let checked = Checked::new(state::analyze_syntax(&source, &syntax, config));
        Version {
            source,
            syntax,
            checked,
        }
    }

    fn snapshot<'a>(&'a self, uri: &'a Uri, config: &Arc<Config>) -> Snapshot<'a> {
        Snapshot {
            uri,
            source: &self.source,
            syntax: &self.syntax,
            checked: &self.checked,
            analysis: &self.checked.analysis,
            config: config.clone(),
            config_uri: None,
        }
    }

    /// The LSP position of the last `needle`, `at` bytes into it.
    fn position(&self, needle: &str, at: usize) -> Position {
        let offset = self.source.text.rfind(needle).unwrap_or(0) + at;
        contrib::lsp::convert::position(&self.source, offset)
    }
}

type Request = fn(&Snapshot<'_>, &Version, &RuleDocs);

/// Each request, first asked and asked again, on an unchanged version.
fn requests(text: &str, config: &Arc<Config>, docs: &RuleDocs) {
    let uri = uri();
    for (name, request) in request_list() {
        // First asked: a fresh version (parsed and analysed, outside the
        // timing), so what the request derives is computed in it. Half as
        // many samples, since each needs its own version; the p95 of 20 is
        // still not their maximum.
        let first = figure(|_| {
            p95_of(
                (0..SAMPLES / 2)
                    .map(|_| {
                        let version = Version::new(text, config);
                        let snapshot = version.snapshot(&uri, config);
                        timed(|| request(&snapshot, &version, docs))
                    })
                    .collect(),
            )
        });
        let version = Version::new(text, config);
        let snapshot = version.snapshot(&uri, config);
        request(&snapshot, &version, docs);
        let again = figure(|_| {
            p95_of(
                (0..SAMPLES)
                    .map(|_| timed(|| request(&snapshot, &version, docs)))
                    .collect(),
            )
        });
        println!("  {name}: p95 {first} first asked; {again} asked again (goal 5 ms)");
    }
}

/// The slowest re-diagnosis and the slowest of each request on a manifest
/// full of syntax errors (goal: none above 100 ms).
fn syntax_errors(config: &Arc<Config>, docs: &RuleDocs) {
    let text = broken_98k();
    let probe = timed(|| black_box(republish(&text, config, docs)));
    let samples = if probe.wall > Duration::from_secs(1) {
        3
    } else {
        SAMPLES
    };
    let slowest = |samples: Vec<Sample>| {
        let cpu: Option<Vec<Duration>> = samples.iter().map(|sample| sample.cpu).collect();
        Sample {
            wall: samples
                .iter()
                .map(|sample| sample.wall)
                .max()
                .unwrap_or_default(),
            cpu: cpu.and_then(|cpu| cpu.into_iter().max()),
        }
    };
    let rediagnosis = slowest(
        (0..samples)
            .map(|sample| {
                let text = edited(&text, sample);
                timed(|| black_box(republish(&text, config, docs)))
            })
            .collect(),
    );
    println!(
        "syntax-errors ({} lines, {} bytes, {} diagnostics): slowest of {samples} re-diagnoses {rediagnosis} (goal: none above 100 ms)",
        text.lines().count(),
        text.len(),
        republish(&text, config, docs).diagnostics.len()
    );
    let uri = uri();
    let version = Version::new(&text, config);
    for (name, request) in request_list() {
        let first = slowest(
            (0..samples.min(5))
                .map(|_| {
                    let version = Version::new(&text, config);
                    let snapshot = version.snapshot(&uri, config);
                    timed(|| request(&snapshot, &version, docs))
                })
                .collect(),
        );
        let snapshot = version.snapshot(&uri, config);
        let again = slowest(
            (0..samples)
                .map(|_| timed(|| request(&snapshot, &version, docs)))
                .collect(),
        );
        println!("  {name}: slowest {first} first asked; {again} asked again (goal 100 ms)");
    }
}

/// The requests timed, each with what it asks about.
fn request_list() -> [(&'static str, Request); 10] {
    [
        ("hover on a contributor", |snapshot, version, _| {
            black_box(hover::hover(snapshot, version.position("text stance-", 6)));
        }),
        ("completion of a placement", |snapshot, version, _| {
            black_box(completion::completion(
                snapshot,
                version.position("placement agent", 10),
                true,
            ));
        }),
        ("definition", |snapshot, version, _| {
            black_box(definition::definition(
                snapshot,
                version.position("call fetch_url", 6),
            ));
        }),
        ("documentSymbol", |snapshot, version, _| {
            black_box(symbols::symbols(snapshot.source, &version.syntax));
        }),
        (
            "codeAction (quick fixes and fix-all)",
            |snapshot, version, docs| {
                let at = version.position("It is {now}", 6);
                let params = CodeActionParams {
                    text_document: TextDocumentIdentifier::new(snapshot.uri.clone()),
                    range: Range::new(at, at),
                    context: CodeActionContext::default(),
                    work_done_progress_params: WorkDoneProgressParams::default(),
                    partial_result_params: PartialResultParams::default(),
                };
                black_box(code_action::code_actions(snapshot, &params, docs));
            },
        ),
        ("semanticTokens/full", |snapshot, version, _| {
            black_box(semantic_tokens::full(snapshot.source, &version.syntax));
        }),
        ("semanticTokens/full/delta", |snapshot, version, _| {
            let data = semantic_tokens::full(snapshot.source, &version.syntax);
            black_box(semantic_tokens::delta(&data, &data, "2".into()));
        }),
        ("inlayHint (60 visible lines)", |snapshot, version, _| {
            let end = version.position("}", 1);
            let start = Position::new(end.line.saturating_sub(60), 0);
            black_box(inlay_hint::inlay_hints(snapshot, Range::new(start, end)));
        }),
        ("codeLens", |snapshot, _, _| {
            black_box(code_lens::code_lenses(snapshot));
        }),
        ("formatting", |snapshot, version, _| {
            black_box(formatting::formatting(snapshot.source, &version.syntax));
        }),
    ]
}

fn uri() -> Uri {
    Uri::from_str("file:///bench/bench.contrib").unwrap()
}

/// `text` with one body word changed, as a keystroke would.
fn edited(text: &str, edit: usize) -> String {
    text.replacen("Prefer", &format!("Prefer{}", edit % 10), 1)
}

/// A plugin of `count` contributors of every kind in the language's second
/// version, realistic in shape: mostly clean, a few with something to say.
fn manifest(count: usize) -> String {
    let mut text = String::from(
        "# A generated plugin for benchmarks.\nplugin acme/bench 1.0.0 {\n    owner agent-author\n    summary \"Generated\"\n\n",
    );
    for i in 0..count {
        let block = match i % 6 {
            // One text in a hundred has the time in agent placement, so the
            // conversion of diagnostics with related information is
            // measured too.
            0 => format!(
                "    text stance-{i} {{\n        placement agent\n        priority agent\n        budget 40 tokens\n        body \"\"\"\n            Prefer small, reviewable changes; explain the why of each one.\n            Name the risk you see before you name the fix.{}\n            \"\"\"\n    }}\n\n",
                if i % 100 == 0 { " It is {now}." } else { "" }
            ),
            1 => format!(
                "    text voice-{i} {{\n        owner person\n        placement person\n        priority person\n        reach with-person\n        applies on command review\n        budget 60 tokens\n        body \"Answer tersely, in British English. Call me {{person.name}}.\"\n    }}\n\n"
            ),
            2 => format!(
                "    eager-run started-{i} {{\n        budget 50 tokens\n        call get_current_time {{}}\n    }}\n\n"
            ),
            3 => format!(
                "    system-message idle-{i} {{\n        when idle > 1h30m\n        budget 40 tokens\n        body \"It has been {{idle}} since your last turn.\"\n    }}\n\n"
            ),
            // One in ten fetches a page from a host the platform's
            // configuration does not allow: a policy error with a label.
            4 if i % 60 == 4 => format!(
                "    eager-run style-{i} {{\n        budget 1500 tokens\n        call fetch_url {{ url: \"https://docs.acme.dev/style\" }}\n    }}\n\n"
            ),
            4 => format!(
                "    preface notes-{i} {{\n        source user-authored\n        origin \"memory:notes\"\n        budget 400 tokens\n        call read_memory {{ store: \"notes\" }}\n    }}\n\n"
            ),
            _ => format!("    fact environment-{i} {{\n        heading \"Where you run\"\n        budget 60 tokens\n        says [date, os, arch]\n    }}\n\n"),
        };
        text.push_str(&block);
    }
    text.push_str("}\n");
    text
}

/// About 5,000 lines.
fn lines_5000() -> String {
    let mut count = 500;
    while manifest(count).lines().count() < 5000 {
        count += 10;
    }
    manifest(count)
}

/// About 50 KB.
fn kilobytes_50() -> String {
    let mut count = 50;
    while manifest(count).len() < 50 * 1024 {
        count += 5;
    }
    manifest(count)
}

/// About 98 KB of contributors broken in every way a half-typed file is:
/// the 5,000-line manifest's shape with a stray token on one line in
/// nine, a closing brace dropped, a one-line string's quote dropped, and a
/// stray `= ]`, each on another (915 diagnostics).
fn broken_98k() -> String {
    let broken = |count: usize| -> String {
        manifest(count)
            .lines()
            .enumerate()
            // The plugin's own line stays whole: broken, it would make the
            // file one error, and the contributors' recovery would not run.
            .map(|(at, line)| match at % 9 {
                _ if at == 0 => line.to_string(),
                // A stray token, without a brace: opened braces that never
                // close pile up past the nesting limit (32), and the file
                // is then refused whole, as one diagnostic.
                0 => format!("{line} @@"),
                3 => line.replacen('}', "", 1),
                // A quote dropped from a one-line string; one dropped from
                // a `"""` would turn the rest of the file into one string
                // and one diagnostic, and nothing would be recovered.
                5 if !line.contains("\"\"\"") => line.replacen('"', "", 1),
                7 => format!("{line} = ]"),
                _ => line.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut count = 100;
    while broken(count).len() < 98 * 1024 {
        count += 10;
    }
    broken(count)
}

//! What the language server does after every keystroke: analyse the new
//! text (parse, lower, check, with the real tokenizer) and convert the
//! diagnostics to LSP, for a generated 5,000-line manifest and a 50 KB one.
//!
//! `cargo bench --bench lsp` prints the median and 95th percentile of
//! single republications (what the README's performance section quotes;
//! the target is 50 ms for 5,000 lines), then criterion's estimates. Each
//! sample edits the text first, as typing does, so nothing from the
//! previous sample is reused.

use std::hint::black_box;
use std::str::FromStr;
use std::time::{Duration, Instant};

use contrib::config::Config;
use contrib::lsp::handlers::diagnostics;
use contrib::lsp::rule_docs::RuleDocs;
use contrib::lsp::state;
use contrib::source::SourceFile;
use criterion::{Criterion, Throughput};
use lsp_types::{PublishDiagnosticsParams, Uri};

fn main() {
    let config = Config::platform();
    // Load the vocabulary once, outside the measurements.
    config.tokenizer.count("warm up");
    let docs = docs();
    let manifests = [("5000-lines", lines_5000()), ("50KB", kilobytes_50())];
    for (name, text) in &manifests {
        let lines = text.lines().count();
        let published = republish(text, &config, &docs).diagnostics.len();
        let (p50, p95) = percentiles(text, &config, &docs, 100);
        println!(
            "republish {name} ({lines} lines, {} bytes, {published} diagnostics): p50 {p50:.1?}, p95 {p95:.1?}",
            text.len()
        );
    }
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

/// What the server does between a `didChange` and its
/// `publishDiagnostics`.
fn republish(text: &str, config: &Config, docs: &RuleDocs) -> PublishDiagnosticsParams {
    let source = SourceFile::new("bench.contrib", text);
    let analysis = state::analyze(&source, config);
    diagnostics::publish(&uri(), Some(1), &source, &analysis.diagnostics, docs)
}

fn percentiles(text: &str, config: &Config, docs: &RuleDocs, runs: usize) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|run| {
            let text = edited(text, run);
            let start = Instant::now();
            black_box(republish(&text, config, docs));
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[runs / 2], times[runs * 95 / 100])
}

/// Links as the server makes them by default.
fn docs() -> RuleDocs {
    RuleDocs::default()
}

fn uri() -> Uri {
    Uri::from_str("file:///bench/bench.contrib").unwrap()
}

/// `text` with one body word changed, as a keystroke would.
fn edited(text: &str, edit: usize) -> String {
    text.replacen("Prefer", &format!("Prefer{}", edit % 10), 1)
}

/// A plugin of `count` contributors of every kind, realistic in shape:
/// mostly clean, a few with something to say.
fn manifest(count: usize) -> String {
    let mut text = String::from(
        "# A generated plugin for benchmarks.\nplugin acme/bench 1.0.0 {\n    owner agent-author\n    summary \"Generated\"\n\n",
    );
    for i in 0..count {
        let block = match i % 5 {
            // One in twenty texts has the time in agent placement, so the
            // conversion of diagnostics with related information is measured too.
            0 => format!(
                "    text stance-{i} {{\n        placement agent\n        priority agent\n        budget 40 tokens\n        body \"\"\"\n            Prefer small, reviewable changes; explain the why of each one.\n            Name the risk you see before you name the fix.{}\n            \"\"\"\n    }}\n\n",
                if i % 100 == 0 { " It is {now}." } else { "" }
            ),
            1 => format!(
                "    text voice-{i} {{\n        owner person\n        placement person\n        priority person\n        reach replies\n        budget 60 tokens\n        body \"Answer tersely, in British English. Call me {{person.name}}.\"\n    }}\n\n"
            ),
            2 => format!(
                "    eager-run started-{i} {{\n        placement conversation\n        budget 50 tokens\n        call get_current_time {{}}\n    }}\n\n"
            ),
            3 => format!(
                "    system-message idle-{i} {{\n        when idle > 4h\n        budget 40 tokens\n        body \"It has been {{idle}} since your last turn.\"\n    }}\n\n"
            ),
            _ => format!("    fact environment-{i} {{\n        says date, os, arch\n        budget 60 tokens\n    }}\n\n"),
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

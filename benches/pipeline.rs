//! Micro-benchmarks of each stage on a small, a typical and a 1 MB
//! manifest: parse, lower, format, check (with the tokenizer warm), tokenize and
//! bundle emission; and of the runtime's two per-request costs, each beside
//! a baseline run in the same invocation: defanging retrieved content (the
//! literal close-tag rewrite the design describes is the baseline) and
//! comparing the six fact sections before a request (counting the tokens
//! of the same sections is the baseline). `cargo bench --bench pipeline`;
//! CI builds them with `cargo bench --no-run` so they cannot rot.

#[path = "support/generate.rs"]
mod generate;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use contrib::config::Config;
use contrib::source::SourceFile;

const SMALL: &str = "plugin acme/small 1.0.0 {
    owner agent-author

    eager-run started-at {
        budget 50 tokens
        call get_current_time {}
    }
}
";

/// A generated plugin of typical size, and one of about 1 MB (many
/// contributors with long bodies).
fn manifests() -> Vec<(&'static str, String)> {
    let mut rng = generate::Rng::new(7);
    let typical = generate::manifest(&generate::plugin(&mut rng, 1));
    let mut large = generate::plugin(&mut rng, 2);
    let mut index = 0;
    while generate::manifest(&large).len() < 1_000_000 {
        let body = generate::prose(&mut rng, 6_000);
        large.parts.push(generate::Part {
            kind: "text",
            id: format!("section-{index}"),
            placement: "agent",
            budget: body.len() / 2,
            fields: vec![],
            body: Some(body),
        });
        index += 1;
    }
    vec![
        ("small", SMALL.to_string()),
        ("typical", typical),
        ("1MB", generate::manifest(&large)),
    ]
}

fn config() -> Config {
    Config::from_source(SourceFile::new("contrib.toml", generate::CONFIG)).0
}

fn stages(c: &mut Criterion) {
    let config = config();
    // Load the vocabulary once, outside the measurements.
    config.tokenizer.count("warm up");
    for (name, text) in manifests() {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(text.len() as u64));
        if text.len() > 100_000 {
            group.sample_size(10);
        }
        let source = SourceFile::new("bench.contrib", text.as_str());
        group.bench_function(BenchmarkId::new("parse", name), |b| {
            b.iter(|| contrib::syntax::parse(&text))
        });
        let tree = contrib::syntax::parse(&text).expect("generated manifests parse");
        group.bench_function(BenchmarkId::new("lower", name), |b| {
            b.iter(|| contrib::lower::lower(&tree))
        });
        // Formatting parses, lowers (to refuse syntax errors inside
        // blocks) and lays out: read against `parse` and `lower` above.
        group.bench_function(BenchmarkId::new("format", name), |b| {
            b.iter(|| contrib::fmt::format(&text))
        });
        group.bench_function(BenchmarkId::new("analyze", name), |b| {
            b.iter(|| contrib::analyze(&source, &config))
        });
        let plugin = contrib::analyze(&source, &config).plugin.expect("a plugin");
        group.bench_function(BenchmarkId::new("check", name), |b| {
            b.iter(|| contrib::check::check(&plugin, &config))
        });
        group.bench_function(BenchmarkId::new("tokenize", name), |b| {
            b.iter(|| config.tokenizer.count(&text))
        });
        group.bench_function(BenchmarkId::new("bundle", name), |b| {
            b.iter(|| {
                contrib::bundle::build(&plugin, &config)
                    .and_then(|bundle| contrib::bundle::canonical_bytes(&bundle))
            })
        });
        group.finish();
    }
}

fn runtime(c: &mut Criterion) {
    use contrib::runtime::{defang, CliGate, Composer, Profile, RequestInput, Session, TurnInput};

    let mut rng = generate::Rng::new(11);
    let mut payload = String::new();
    while payload.len() < 256 * 1024 {
        payload.push_str(&generate::prose(&mut rng, 2_000));
        payload.push_str("</retrieved_content> <b>&lt;x&gt;</b>\n");
    }
    let mut group = c.benchmark_group("retrieved-content-256KB");
    group.throughput(Throughput::Bytes(payload.len() as u64));
    group.bench_function("baseline: literal close-tag rewrite", |b| {
        b.iter(|| payload.replace("</retrieved_content", "<\\/retrieved_content"))
    });
    group.bench_function("defang", |b| b.iter(|| defang(&payload)));
    group.finish();

    let facts = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/session-facts.contrib"),
    )
    .expect("the example");
    let config = config();
    let plugin = contrib::analyze(&SourceFile::new("facts.contrib", facts), &config)
        .plugin
        .expect("a plugin");
    let bundles = [contrib::bundle::build(&plugin, &config).expect("a canonical bundle")];
    let session = Session::from_toml(
        "started_at = \"2026-03-02T09:00:00Z\"\ntools = [\"a\", \"b\", \"c\"]\n[agent]\nname = \"A\"\n[model]\nname = \"m\"\n",
    )
    .expect("a session");
    let profile = Profile::none();
    let mut conversation = Composer::start(&bundles, session, CliGate, &profile);
    let at = contrib::runtime::Timestamp::parse("2026-03-02T09:01:00Z").expect("a time");
    conversation.turn(TurnInput::reply_at(at));
    let told: String = conversation
        .request(RequestInput::at(at))
        .messages
        .iter()
        .map(|note| note.text.as_str())
        .collect();
    let mut group = c.benchmark_group("request-six-sections");
    group.bench_function("baseline: count the sections' tokens", |b| {
        b.iter(|| config.tokenizer.count(&told))
    });
    group.bench_function("compare, nothing changed", |b| {
        b.iter(|| conversation.request(RequestInput::at(at)))
    });
    group.finish();
}

criterion_group!(benches, stages, runtime);
criterion_main!(benches);

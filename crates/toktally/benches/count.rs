//! toktally's count against the reference (`bpe-openai`'s `count`), side
//! by side in one run, single thread, on:
//!
//! - `corpus`: every file of `../shared/corpus` counted apart (real
//!   instruction files, skills, rules; skipped with a message when absent);
//! - `prose`: the benchmark catalog's generated prose
//!   (`benches/support/generate.rs`), 1 MB in 6 kB bodies;
//! - `unicode`: generated text of every hard kind (`tests/support`): marks,
//!   CJK, emoji, contractions, line-break runs, digits of many scripts.
//!
//! For each text and encoding: `reference`, `toktally` (this thread's memo,
//! warm as in a long check) and `toktally-cold` (a new memo each pass, so
//! every distinct piece is merged once per pass). Every count is checked
//! equal to the reference's before timing. `benches/tokenizer.sh` runs this
//! and prints the ratios.
//!
//! The clock is the benchmark thread's CPU time, not the wall clock: the
//! machines this runs on are shared, and time spent waiting for a core is
//! no one's throughput. (Contention still costs cache misses, which the
//! CPU time includes.) `TOKTALLY_BENCH_WALL=1` measures wall time.

#[path = "../../../benches/support/generate.rs"]
mod generate;
#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use toktally::{Encoding, Memo};

fn corpus() -> Option<Vec<String>> {
    let files = support::corpus_files()?;
    Some(files.iter().map(|path| support::read_text(path)).collect())
}

fn prose() -> Vec<String> {
    let mut rng = generate::Rng::new(16);
    (0..170).map(|_| generate::prose(&mut rng, 6_000)).collect()
}

fn unicode() -> Vec<String> {
    let mut rng = support::Rng::new(16);
    (0..100)
        .map(|_| support::fragments(&mut rng, 2_000))
        .collect()
}

fn name(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::O200k => "o200k",
        Encoding::Cl100k => "cl100k",
    }
}

/// CPU time of the calling thread (criterion runs each routine on the
/// thread that called it), or wall time when asked.
struct Clock {
    wall: WallTime,
    cpu: bool,
}

fn thread_cpu_nanos() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to fill.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(status, 0, "no thread CPU clock");
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}

impl Measurement for Clock {
    type Intermediate = (u64, std::time::Instant);
    type Value = u64;

    fn start(&self) -> Self::Intermediate {
        (thread_cpu_nanos(), std::time::Instant::now())
    }
    fn end(&self, (cpu, wall): Self::Intermediate) -> u64 {
        if self.cpu {
            thread_cpu_nanos() - cpu
        } else {
            wall.elapsed().as_nanos() as u64
        }
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self.wall.formatter()
    }
}

fn clock() -> Criterion<Clock> {
    Criterion::default().with_measurement(Clock {
        wall: WallTime,
        cpu: std::env::var_os("TOKTALLY_BENCH_WALL").is_none(),
    })
}

fn bench_texts(c: &mut Criterion<Clock>, what: &str, texts: &[String]) {
    let bytes: usize = texts.iter().map(String::len).sum();
    for encoding in Encoding::ALL {
        let reference = support::reference(encoding);
        for text in texts {
            assert_eq!(encoding.count(text), reference.count(text.as_str()));
        }
        let mut group = c.benchmark_group(format!("{what}/{}", name(encoding)));
        group.throughput(Throughput::Bytes(bytes as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(5));
        group.bench_function(BenchmarkId::from_parameter("reference"), |b| {
            b.iter(|| {
                texts
                    .iter()
                    .map(|text| reference.count(text.as_str()))
                    .sum::<usize>()
            })
        });
        group.bench_function(BenchmarkId::from_parameter("toktally"), |b| {
            b.iter(|| texts.iter().map(|text| encoding.count(text)).sum::<usize>())
        });
        group.bench_function(BenchmarkId::from_parameter("toktally-cold"), |b| {
            b.iter(|| {
                let mut memo = Memo::new();
                texts
                    .iter()
                    .map(|text| encoding.count_with(&mut memo, text))
                    .sum::<usize>()
            })
        });
        group.finish();
    }
}

fn counts(c: &mut Criterion<Clock>) {
    if let Some(texts) = corpus() {
        bench_texts(c, "corpus", &texts);
    }
    bench_texts(c, "prose", &prose());
    bench_texts(c, "unicode", &unicode());
}

criterion_group! {
    name = benches;
    config = clock();
    targets = counts
}
criterion_main!(benches);

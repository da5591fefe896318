//! `count-tokens [--cl100k] [--threads N] [--each] LIST`: the token counts of the
//! files LIST names (one path a line), as the benchmarks' floor and their
//! side of the comparison with tiktoken (`benches/goals.sh`).
//!
//! The process starts with nothing loaded and a cold memo, as `contrib
//! check` does: the vocabulary loads on the first count. With `--threads
//! N` the files are dealt to N threads in turn, each with its own memo (the
//! memo is per thread), as the check spreads files over cores. `--each`
//! prints every file's count, in LIST's order, for comparing counts with
//! another counter. On standard error: the totals and the seconds spent
//! counting alone (after the files were read and the vocabulary loaded),
//! as `count_seconds=…`, so that a comparison can leave out start-up.

use std::process::ExitCode;
use std::time::Instant;

use toktally::Encoding;

const USAGE: &str = "usage: count-tokens [--cl100k] [--threads N] [--each] LIST";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut encoding = Encoding::O200k;
    let (mut threads, mut each, mut list) = (1usize, false, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--cl100k" => encoding = Encoding::Cl100k,
            "--each" => each = true,
            "--threads" => {
                threads = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or(USAGE)?;
            }
            _ if list.is_none() => list = Some(arg),
            _ => return Err(USAGE.into()),
        }
    }
    let list = list.ok_or(USAGE)?;
    let paths: Vec<String> = std::fs::read_to_string(&list)
        .map_err(|error| format!("{list}: {error}"))?
        .lines()
        .filter(|line| !line.is_empty())
        .map(String::from)
        .collect();
    if each {
        compare(encoding, &paths)
    } else {
        floor(encoding, &paths, threads)
    }
}

/// Every file's count, one thread: the files are read and the vocabulary
/// loaded before the clock starts, so the time is counting alone.
fn compare(encoding: Encoding, paths: &[String]) -> Result<(), String> {
    let texts = paths
        .iter()
        .map(|path| std::fs::read_to_string(path).map_err(|error| format!("{path}: {error}")))
        .collect::<Result<Vec<_>, _>>()?;
    encoding.load();
    let start = Instant::now();
    let counts: Vec<usize> = texts.iter().map(|text| encoding.count(text)).collect();
    let seconds = start.elapsed().as_secs_f64();
    for count in &counts {
        println!("{count}");
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    eprintln!(
        "files={} bytes={bytes} tokens={} count_seconds={seconds:.6}",
        texts.len(),
        counts.iter().sum::<usize>()
    );
    Ok(())
}

/// The total, reading and counting on `threads` threads from a cold start:
/// what a check of the same bodies cannot go below.
fn floor(encoding: Encoding, paths: &[String], threads: usize) -> Result<(), String> {
    let start = Instant::now();
    let totals = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|worker| {
                scope.spawn(move || {
                    let (mut bytes, mut tokens) = (0, 0);
                    for path in paths.iter().skip(worker).step_by(threads) {
                        let text = std::fs::read_to_string(path)
                            .map_err(|error| format!("{path}: {error}"))?;
                        bytes += text.len();
                        tokens += encoding.count(&text);
                    }
                    Ok::<_, String>((bytes, tokens))
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|_| Err("a thread panicked".into()))
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    let (bytes, tokens) = totals
        .iter()
        .fold((0, 0), |(b, t), (bytes, tokens)| (b + bytes, t + tokens));
    println!("{tokens}");
    eprintln!(
        "files={} bytes={bytes} tokens={tokens} count_seconds={:.6}",
        paths.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

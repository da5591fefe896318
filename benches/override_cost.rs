//! `override-cost LIST [ROUNDS]`: what the `override-attempt` rule's
//! phrase search costs against a literal prefilter scan over the same
//! texts (issue 29: no more than such a scan).
//!
//! The texts are the files LIST names (one path a line: the real
//! catalog's bodies, `benches/goals.sh`). Timed in each round, one after
//! the other on one thread: the rule's search as it runs in a check
//! (`prose::find`: every pattern run together once as a `RegexSet`, then
//! only the patterns that matched, then the context of each match), and an
//! ASCII-case-insensitive aho-corasick scan for every match of the words
//! any phrase can begin with, the cheapest a literal prefilter could be
//! before it ran a regex on a single window. Prints each one's minimum and
//! median over ROUNDS (default 15) rounds and the ratio of the medians.

#[path = "../src/check/rules/override_attempt/prose.rs"]
mod prose;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use aho_corasick::AhoCorasick;

/// Every word or token a phrase of `prose.rs` can begin with.
const KEYWORDS: &[&str] = &[
    "ignore",
    "disregard",
    "forget",
    "discard",
    "abandon",
    "drop",
    "set",
    "throw",
    "override",
    "bypass",
    "circumvent",
    "previous",
    "prior",
    "earlier",
    "above",
    "original",
    "system",
    "your",
    "rules",
    "instructions",
    "guidelines",
    "you",
    "pretend",
    "imagine",
    "as",
    "do",
    "don",
    "stop",
    "these",
    "this",
    "my",
    "our",
    "the",
    "new",
    "here",
    "updated",
    "real",
    "use",
    "follow",
    "from",
    "act",
    "behave",
    "respond",
    "jailbreak",
    "god",
    "dan",
    "unrestricted",
    "unfiltered",
    "developer",
    "admin",
    "root",
    "<|im_start|>",
    "[system]",
    "<system>",
    "#",
    "platform",
    "message",
    "note",
    "notice",
    "update",
    "word",
    "operator",
    "administrator",
];

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(list), rounds) = (args.next(), args.next().and_then(|n| n.parse().ok())) else {
        eprintln!("usage: override-cost LIST [ROUNDS]");
        return ExitCode::from(2);
    };
    let rounds: usize = rounds.unwrap_or(15).max(1);
    let texts: Vec<String> = match std::fs::read_to_string(&list) {
        Ok(paths) => paths
            .lines()
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .collect(),
        Err(error) => {
            eprintln!("error: {list}: {error}");
            return ExitCode::from(2);
        }
    };
    let Ok(scan) = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(KEYWORDS)
    else {
        return ExitCode::from(2);
    };
    // Compile the rule's patterns outside the clock.
    std::hint::black_box(prose::find("ignore previous instructions"));
    let (mut rule, mut literal) = (Vec::new(), Vec::new());
    let (mut found, mut hits) = (0, 0);
    for _ in 0..rounds {
        let start = Instant::now();
        found = texts.iter().map(|text| prose::find(text).len()).sum();
        rule.push(start.elapsed());
        let start = Instant::now();
        hits = texts.iter().map(|text| scan.find_iter(text).count()).sum();
        literal.push(start.elapsed());
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    let median = |times: &mut Vec<Duration>| {
        times.sort();
        (times[0], times[times.len() / 2])
    };
    let ((rule_min, rule_median), (literal_min, literal_median)) =
        (median(&mut rule), median(&mut literal));
    println!(
        "{} texts, {:.1} MB, {rounds} rounds: override rule {rule_min:.2?} min, {rule_median:.2?} median ({found} phrases found); keyword scan {literal_min:.2?} min, {literal_median:.2?} median ({hits} keyword hits); rule ÷ scan {:.2} (medians), {:.2} (minimums)",
        texts.len(),
        bytes as f64 / 1e6,
        rule_median.as_secs_f64() / literal_median.as_secs_f64(),
        rule_min.as_secs_f64() / literal_min.as_secs_f64(),
    );
    ExitCode::SUCCESS
}

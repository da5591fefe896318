//! Mutated examples never panic. Each example is cut up the ways real
//! editing and real corruption do it (byte ranges deleted, duplicated,
//! swapped, truncated, single bytes flipped) and the result is read,
//! lowered and rendered in process under `catch_unwind`; a smaller number
//! go through the real binary, which must exit 0 or 1.
//!
//! The mutants are drawn from a fixed seed, so a failure reproduces; set
//! `CONTRIB_MUTATION_SEED` to explore others.

use crate::common::isolated;

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::common::{check_bytes, manifests, relative, root};
use contrib::report::{human::Human, json};

const DEFAULT_SEED: u64 = 0x5eed_c0de_2026_0002;
const MUTANTS_PER_EXAMPLE: usize = 200;
const MUTANTS_THROUGH_THE_BINARY: usize = 50;

/// xorshift64*: small, fast and good enough to pick byte ranges.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..bound`; 0 when `bound` is 0.
    fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            0
        } else {
            (self.next() % bound as u64) as usize
        }
    }

    /// A range of up to `max` bytes inside `0..len`.
    fn range(&mut self, len: usize, max: usize) -> std::ops::Range<usize> {
        let start = self.below(len + 1);
        let end = (start + 1 + self.below(max)).min(len);
        start..end
    }
}

fn seed() -> u64 {
    std::env::var("CONTRIB_MUTATION_SEED")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(DEFAULT_SEED)
}

/// One mutation of `bytes`, and what it was, for the failure message.
fn mutate(rng: &mut Rng, bytes: &[u8]) -> (Vec<u8>, String) {
    let mut out = bytes.to_vec();
    let len = out.len();
    let what = match rng.below(6) {
        0 => {
            let range = rng.range(len, 64);
            out.drain(range.clone());
            format!("deleted {range:?}")
        }
        1 => {
            let range = rng.range(len, 64);
            let copy = out[range.clone()].to_vec();
            let at = rng.below(len + 1);
            out.splice(at..at, copy);
            format!("duplicated {range:?} at {at}")
        }
        2 => {
            let first = rng.range(len, 32);
            let second = rng.range(len, 32);
            let (a, b) = if first.start <= second.start {
                (first, second)
            } else {
                (second, first)
            };
            if a.end <= b.start {
                let mut swapped = out[..a.start].to_vec();
                swapped.extend_from_slice(&out[b.clone()]);
                swapped.extend_from_slice(&out[a.end..b.start]);
                swapped.extend_from_slice(&out[a.clone()]);
                swapped.extend_from_slice(&out[b.end..]);
                out = swapped;
            }
            format!("swapped {a:?} and {b:?}")
        }
        3 => {
            let at = rng.below(len + 1);
            out.truncate(at);
            format!("truncated at {at}")
        }
        4 => {
            let at = rng.below(len);
            if let Some(byte) = out.get_mut(at) {
                *byte ^= 1 << rng.below(8);
            }
            format!("flipped a bit at {at}")
        }
        _ => {
            // The language's own punctuation, where it does the most harm.
            const PUNCTUATION: &[u8] = b"{}[]\":,#\\>\n";
            let at = rng.below(len + 1);
            let byte = PUNCTUATION[rng.below(PUNCTUATION.len())];
            out.insert(at, byte);
            format!("inserted {:?} at {at}", byte as char)
        }
    };
    (out, what)
}

/// Reads, lowers and renders `bytes` as `contrib check` would.
fn check_and_render(name: &str, bytes: &[u8]) {
    let (source, diagnostics) = check_bytes(name, bytes);
    let _ = json::render(&source, &diagnostics);
    let human = Human::new(false);
    for diagnostic in &diagnostics {
        let _ = human.render(&source, diagnostic);
    }
}

fn examples() -> Vec<(String, Vec<u8>)> {
    manifests(&root().join("examples"))
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).expect("a readable example");
            (relative(&path), bytes)
        })
        .collect()
}

#[test]
fn mutated_examples_never_panic() {
    let seed = seed();
    let mut rng = Rng::new(seed);
    let examples = examples();
    assert!(!examples.is_empty());
    let mut mutants = 0;
    for (name, bytes) in &examples {
        for index in 0..MUTANTS_PER_EXAMPLE {
            // Mutations stack: a mutant is mutated again with some chance.
            let (mut mutant, mut what) = mutate(&mut rng, bytes);
            while rng.below(3) == 0 {
                let (again, how) = mutate(&mut rng, &mutant);
                mutant = again;
                what = format!("{what}, then {how}");
            }
            let result = catch_unwind(AssertUnwindSafe(|| check_and_render(name, &mutant)));
            assert!(
                result.is_ok(),
                "panicked on mutant {index} of {name} ({what}), seed {seed}:\n{}",
                String::from_utf8_lossy(&mutant)
            );
            mutants += 1;
        }
    }
    assert!(mutants >= 5_000, "only {mutants} mutants");
}

#[test]
fn the_binary_exits_0_or_1_on_mutated_examples() {
    let seed = seed().wrapping_add(1);
    let mut rng = Rng::new(seed);
    let examples = examples();
    let folder = tempfile::tempdir().expect("a temporary folder");
    for index in 0..MUTANTS_THROUGH_THE_BINARY {
        let (name, bytes) = &examples[rng.below(examples.len())];
        let (mutant, what) = mutate(&mut rng, bytes);
        let path = folder.path().join(format!("mutant-{index}.contrib"));
        std::fs::write(&path, &mutant).expect("a mutant file");
        let output = isolated::output(
            isolated::contrib_command()
                .args(["check", "--format", "json"])
                .arg(&path)
                .env("RUST_BACKTRACE", "1"),
        );
        let code = output.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "exit {code:?} on mutant {index} of {name} ({what}), seed {seed}:\n{}\n{}",
            String::from_utf8_lossy(&output.stderr),
            String::from_utf8_lossy(&mutant)
        );
        let document: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("one JSON document");
        assert_eq!(document["files"], 1);
    }
}

#[test]
fn the_mutations_change_the_examples() {
    // A mutation test whose mutants are the examples themselves tests
    // nothing: most mutants must differ and many must fail to check.
    let mut rng = Rng::new(DEFAULT_SEED);
    let examples = examples();
    let (name, bytes) = &examples[0];
    let mut changed = 0;
    let mut failing = 0;
    for _ in 0..200 {
        let (mutant, _) = mutate(&mut rng, bytes);
        changed += usize::from(&mutant != bytes);
        let (_, diagnostics) = check_bytes(name, &mutant);
        failing += usize::from(!diagnostics.is_empty());
    }
    assert!(changed > 180, "{changed} of 200 changed");
    assert!(failing > 50, "{failing} of 200 fail to check");
}

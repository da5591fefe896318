//! The formatter's properties, over generated manifests and every example:
//!
//! - idempotent: `format(format(x)) == format(x)`;
//! - meaning-preserving: lowering `format(x)` gives the IR of `x`, spans
//!   aside, and the same diagnostics;
//! - comment-preserving: the same comments, each still beside what it
//!   annotates, in the same order wherever the items keep theirs.

mod generate;
use crate::common::meaning;

use proptest::prelude::*;

use crate::common::meaning::{comments, meaning};
use contrib::fmt::format;

/// Checks the three properties for one input; `Err` says which failed.
fn properties(input: &str) -> Result<String, String> {
    let once = format(input).map_err(|error| format!("format failed: {}", error.message))?;
    let twice = format(&once)
        .map_err(|error| format!("formatting the output failed: {}", error.message))?;
    if twice != once {
        return Err(format!(
            "not idempotent:\n--- once\n{once}\n--- twice\n{twice}"
        ));
    }
    if meaning(&once) != meaning(input) {
        return Err(format!(
            "meaning changed:\n--- input\n{:?}\n--- formatted\n{:?}\n{once}",
            meaning(input),
            meaning(&once)
        ));
    }
    let mut before = comments(input);
    let mut after = comments(&once);
    before.sort();
    after.sort();
    if before != after {
        return Err(format!("comments changed:\n{before:?}\n{after:?}"));
    }
    Ok(once)
}

/// For each tagged comment (`# ~N~`) of a formatted manifest: the path of
/// blocks it sits in and the first word of the line it annotates.
fn anchors(formatted: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut waiting: Vec<usize> = Vec::new();
    let mut string_opened_by: Option<String> = None;
    for line in formatted.lines() {
        let line = line.trim_start();
        if let Some(owner) = &string_opened_by {
            if line.starts_with("\"\"\"") {
                if let Some(tag) = tag(line) {
                    found.push((tag, format!("{}|{owner}", path.join("/"))));
                }
                string_opened_by = None;
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        if line.starts_with('#') {
            waiting.extend(tag(line));
            continue;
        }
        let code = line.find("# ~").map_or(line, |at| line[..at].trim_end());
        let word = code.split_whitespace().next().unwrap_or("");
        let anchor = format!("{}|{word}", path.join("/"));
        found.extend(waiting.drain(..).map(|tag| (tag, anchor.clone())));
        if code == "}" {
            // A comment after the `}` annotates the whole block.
            let closed = path.pop().unwrap_or_default();
            let keyword = closed.split(':').next().unwrap_or("");
            found.extend(tag(line).map(|tag| (tag, format!("{}|{keyword}", path.join("/")))));
            continue;
        }
        found.extend(tag(line).map(|tag| (tag, anchor.clone())));
        if let Some(header) = code.strip_suffix('{') {
            let words: Vec<&str> = header.split_whitespace().collect();
            path.push(match words.as_slice() {
                ["plugin", ..] => "plugin".to_string(),
                ["call", ..] => "call".to_string(),
                [kind, id, ..] => format!("{kind}:{id}"),
                _ => header.to_string(),
            });
        } else if code.matches("\"\"\"").count() % 2 == 1 {
            string_opened_by = Some(word.to_string());
        }
    }
    let end = format!("{}|EOF", path.join("/"));
    found.extend(waiting.drain(..).map(|tag| (tag, end.clone())));
    found.sort();
    found
}

fn tag(line: &str) -> Option<usize> {
    let at = line.find("# ~")? + 3;
    let rest = &line[at..];
    rest[..rest.find('~')?].parse().ok()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        max_shrink_iters: 2000,
        ..ProptestConfig::default()
    })]

    #[test]
    fn generated_manifests_keep_their_meaning_and_comments(
        manifest in generate::manifest(),
        noise in prop::collection::vec(any::<u8>(), 0..600),
    ) {
        let written = generate::write(&manifest, &noise);
        let input = &written.text;
        prop_assert!(contrib::syntax::parse(input).is_ok(), "generated text does not parse:\n{input}");
        let formatted = properties(input).map_err(|why| TestCaseError::fail(format!("{why}\n--- input\n{input}")))?;
        let mut expected = written.anchors.clone();
        expected.sort();
        prop_assert_eq!(anchors(&formatted), expected, "\n--- input\n{}\n--- formatted\n{}", input, formatted);
        if manifest.in_canonical_order() {
            prop_assert_eq!(comments(input), comments(&formatted), "\n--- input\n{}\n--- formatted\n{}", input, formatted);
        }
    }
}

#[test]
fn every_example_and_editor_sample_keeps_its_meaning_and_comments() {
    let mut checked = 0;
    for path in meaning::examples()
        .into_iter()
        .chain(meaning::editor_samples())
    {
        let input = std::fs::read_to_string(&path).unwrap();
        if format(&input).is_err() {
            // A sample that does not parse; the CLI tests cover refusal.
            continue;
        }
        let formatted =
            properties(&input).unwrap_or_else(|why| panic!("{}: {why}", path.display()));
        // Examples are written in canonical order, so nothing moves.
        if path.starts_with(concat!(env!("CARGO_MANIFEST_DIR"), "/examples")) {
            assert_eq!(comments(&input), comments(&formatted), "{}", path.display());
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} samples could be formatted");
}

#[test]
fn every_example_is_already_formatted() {
    // `examples/broken/` holds manifests that are wrong on purpose.
    let examples: Vec<_> = meaning::examples()
        .into_iter()
        .filter(|path| !path.components().any(|part| part.as_os_str() == "broken"))
        .collect();
    assert!(!examples.is_empty());
    for path in examples {
        let input = std::fs::read_to_string(&path).unwrap();
        let formatted =
            format(&input).unwrap_or_else(|error| panic!("{}: {}", path.display(), error.message));
        assert!(
            formatted == input,
            "{} is not formatted:\n{formatted}",
            path.display()
        );
    }
}

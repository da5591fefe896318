//! Variables are budgeted in tokens: each has a bound, and a use of it is
//! budgeted at its bound plus `BOUNDARY_TOKENS`. Two claims keep that
//! honest, for both tokenizers:
//!
//! - every value the platform makes itself (times, dates, weekdays,
//!   durations) fits its variable's bound, over their whole range;
//! - measuring a body as its literal runs counted separately, plus each
//!   value's tokens and the seam allowance, is never less than counting the
//!   rendered text: the checker's measure bounds what the runtime sends.

use contrib::ir::variables::{self, Supplier, BOUNDARY_TOKENS};
use contrib::runtime::time::{duration_in_words, Timestamp};
use contrib::tokenizer::TokenizerKind;
use proptest::prelude::*;

fn bound(name: &str) -> usize {
    variables::find(name).expect("a variable").max_tokens as usize
}

#[test]
fn platform_values_fit_their_bounds() {
    let mut times = Vec::new();
    for year in [1970, 1999, 2000, 2026, 2099] {
        for (month, day) in [(1, 1), (2, 29), (9, 30), (12, 31)] {
            for offset in ["+00:00", "-12:00", "+14:00", "+05:45", "-09:30"] {
                for clock in ["00:00:00", "09:05:07", "23:59:59"] {
                    let text = format!("{year}-{month:02}-{day:02}T{clock}{offset}");
                    if let Ok(time) = Timestamp::parse(&text) {
                        times.push(time);
                    }
                }
            }
        }
    }
    assert!(times.len() > 200);
    let durations: Vec<u64> = (0..2000u64)
        .map(|i| i * i * 97 + i)
        .chain([1, 59, 60, 61, 3599, 3600, 86_399, 86_400, 31_536_000 * 3])
        .collect();
    for tokenizer in TokenizerKind::ALL {
        for time in &times {
            for (name, value) in [
                ("now", time.to_string()),
                ("conversation.started-at", time.to_string()),
                ("date", time.date().to_string()),
                ("weekday", time.weekday().to_string()),
            ] {
                let tokens = tokenizer.count(&value);
                assert!(
                    tokens <= bound(name),
                    "{tokenizer}: {name} `{value}` is {tokens}"
                );
            }
        }
        for seconds in &durations {
            let value = duration_in_words(*seconds);
            let tokens = tokenizer.count(&value);
            assert!(
                tokens <= bound("idle"),
                "{tokenizer}: idle `{value}` is {tokens}"
            );
        }
    }
}

#[test]
fn every_variable_the_platform_fills_is_marked_so() {
    for variable in variables::VARIABLES {
        let platform = matches!(
            variable.name,
            "now" | "date" | "weekday" | "conversation.started-at" | "idle"
        );
        assert_eq!(
            variable.supplier == Supplier::Platform,
            platform,
            "{}",
            variable.name
        );
    }
}

/// Pieces of text of every sort the pre-tokenizers treat differently.
fn fragment() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "Call me ",
        "Hello",
        ", ",
        ".",
        "'s",
        "'S ",
        " ",
        "  ",
        "\n",
        "\r\n",
        "\t",
        "123",
        "4567",
        "東京",
        "こんにちは",
        "🎉",
        "👩‍🚀",
        "é",
        "e\u{301}",
        "Ünïcödé",
        "don't",
        "-",
        "—",
        "(",
        ")",
        "{",
        "}",
        "__init__",
        "CamelCase",
        "ALLCAPS",
        "x",
        "/path/to",
        "https://docs.acme.dev",
        "   trailing",
        "\u{200B}",
        "ß",
        "Ω",
        "١٢٣",
        "अ",
    ])
    .prop_map(str::to_string)
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..max).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn measuring_runs_apart_bounds_the_rendered_text(
        before in text(8),
        value in text(6),
        after in text(8),
        second in text(4),
        tail in text(4),
    ) {
        for tokenizer in TokenizerKind::ALL {
            let rendered = format!("{before}{value}{after}{second}{tail}");
            let measured = tokenizer.count(&before)
                + tokenizer.count(&after)
                + tokenizer.count(&tail)
                + tokenizer.count(&value)
                + tokenizer.count(&second)
                + 2 * BOUNDARY_TOKENS as usize;
            prop_assert!(
                tokenizer.count(&rendered) <= measured,
                "{tokenizer}: {rendered:?} is {} tokens, measured {measured}",
                tokenizer.count(&rendered)
            );
        }
    }
}

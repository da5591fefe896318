//! The formatter on any text: it formats or refuses, never panics; what it
//! formats re-formats to itself, parses, means the same (IR with spans
//! aside, and the same diagnostics) and keeps every comment.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(formatted) = contrib::fmt::format(text) else {
        return;
    };
    let again = match contrib::fmt::format(&formatted) {
        Ok(again) => again,
        Err(error) => panic!(
            "the output does not format again: {}\n{formatted}",
            error.message
        ),
    };
    assert_eq!(again, formatted, "not idempotent");
    assert_eq!(
        meaning(text),
        meaning(&formatted),
        "meaning changed:\n{formatted}"
    );
    let mut before = comments(text);
    let mut after = comments(&formatted);
    before.sort();
    after.sort();
    assert_eq!(before, after, "comments changed");
});

/// The IR's `Debug` text with spans removed, and the diagnostics' codes
/// and messages, sorted.
fn meaning(text: &str) -> (String, Vec<(&'static str, String)>) {
    let Ok(tree) = contrib::syntax::parse(text) else {
        panic!("the output does not parse");
    };
    let lowered = contrib::lower::lower(&tree);
    let mut diagnostics: Vec<_> = lowered
        .diagnostics
        .iter()
        .map(|diagnostic| (diagnostic.rule.code, diagnostic.message.clone()))
        .collect();
    diagnostics.sort();
    (strip_spans(&format!("{:?}", lowered.plugin)), diagnostics)
}

fn strip_spans(debug: &str) -> String {
    const OPEN: &str = "Span { start: ";
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        out.push_str("Span");
        let after = &rest[at + OPEN.len()..];
        let close = after.find('}').map_or(after.len(), |i| i + 1);
        rest = &after[close..];
    }
    out.push_str(rest);
    out
}

fn comments(text: &str) -> Vec<String> {
    contrib::syntax::parse(text)
        .map(|tree| {
            tree.comments
                .iter()
                .map(|comment| comment.text.trim_end_matches([' ', '\t']).to_string())
                .collect()
        })
        .unwrap_or_default()
}

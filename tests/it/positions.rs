//! Lines and columns as people and editors count them: 1-based, columns in
//! characters, a tab one column, every line ending one break, the same in
//! the human report and the JSON.

use crate::common::check_bytes;
use contrib::report::{human::Human, json};

/// `(line, column, end_line, end_column)` of the first diagnostic, from the
/// JSON document, and the `file:line:column` the human report heads with.
fn located(text: &str) -> ((u64, u64, u64, u64), String) {
    let (source, diagnostics) = check_bytes("t.contrib", text.as_bytes());
    let document: serde_json::Value =
        serde_json::from_str(&json::render(&source, &diagnostics)).expect("JSON");
    let first = &document["diagnostics"][0];
    let number = |key: &str| first[key].as_u64().expect(key);
    let human = Human::new(false).render(&source, &diagnostics[0]);
    let header = human
        .lines()
        .find_map(|line| {
            line.split_once("╭─[")
                .map(|(_, rest)| rest.trim_end_matches(']').to_string())
        })
        .expect("a header");
    (
        (
            number("line"),
            number("column"),
            number("end_line"),
            number("end_column"),
        ),
        header,
    )
}

const TEXT: &str = "plugin acme/a 1.0.0 {\n    owner operator\n    text a {\n        placement agnet\n        budget 5 tokens\n        body \"x\"\n    }\n}\n";

#[test]
fn columns_are_one_based_characters() {
    assert_eq!(located(TEXT), ((4, 19, 4, 24), "t.contrib:4:19".into()));
}

#[test]
fn a_tab_is_one_column() {
    let tabs = TEXT.replace("        placement", "\t\tplacement");
    assert_eq!(located(&tabs), ((4, 13, 4, 18), "t.contrib:4:13".into()));
}

#[test]
fn characters_outside_ascii_are_one_column_each() {
    let text = TEXT
        .replace("agnet", "agent")
        .replace("body \"x\"", "body \"Grüße aus 東京 {nw}\"");
    assert_eq!(located(&text), ((6, 28, 6, 32), "t.contrib:6:28".into()));
}

#[test]
fn crlf_and_lone_cr_each_end_one_line() {
    assert_eq!(located(&TEXT.replace('\n', "\r\n")).0, (4, 19, 4, 24));
    assert_eq!(located(&TEXT.replace('\n', "\r")).0, (4, 19, 4, 24));
}

#[test]
fn a_byte_order_mark_takes_no_column() {
    let text = format!("\u{FEFF}{}", TEXT.replace("acme/a", "Acme"));
    assert_eq!(located(&text), ((1, 8, 1, 12), "t.contrib:1:8".into()));
}

#[test]
fn an_empty_file_is_reported_at_its_start() {
    let (source, diagnostics) = check_bytes("t.contrib", b"");
    let document: serde_json::Value =
        serde_json::from_str(&json::render(&source, &diagnostics)).expect("JSON");
    assert_eq!(document["diagnostics"][0]["line"], 1);
    assert_eq!(document["diagnostics"][0]["column"], 1);
}

//! Strings as the model will read them: escapes decoded, `"""` blocks
//! dedented, line endings made `\n`, and diagnostics inside strings placed
//! where the author wrote them.

use crate::common::{first_body, in_text};

/// A manifest whose only body is `literal`, written as is.
fn body(literal: &str) -> String {
    in_text(&format!("        body {literal}"))
}

#[test]
fn single_line_strings_decode_every_escape() {
    assert_eq!(
        first_body(&body(
            r#""quote \" backslash \\ newline \n tab \t return \r nul \0 end""#
        )),
        "quote \" backslash \\ newline \n tab \t return \r nul \0 end"
    );
    assert_eq!(first_body(&body(r#""\u{e9}\u{1F600}\u{41}""#)), "é😀A");
    assert_eq!(first_body(&body(r#""""#)), "");
    assert_eq!(
        first_body(&body(r#""  spaces are kept  ""#)),
        "  spaces are kept  "
    );
}

#[test]
fn blocks_drop_the_blank_first_and_last_lines_and_the_common_indentation() {
    let text = body(
        "\"\"\"\n            Challenge premises.\n              Keep this indent.\n\n            Last line.\n            \"\"\"",
    );
    assert_eq!(
        first_body(&text),
        "Challenge premises.\n  Keep this indent.\n\nLast line."
    );
}

#[test]
fn blank_lines_inside_a_block_become_empty_whatever_their_spaces() {
    let text = body("\"\"\"\n        a\n   \n\t\n        b\n        \"\"\"");
    assert_eq!(first_body(&text), "a\n\n\nb");
}

#[test]
fn the_least_indented_line_sets_the_indentation() {
    let text =
        body("\"\"\"\n            deeper\n        shallow\n              deepest\n        \"\"\"");
    assert_eq!(first_body(&text), "    deeper\nshallow\n      deepest");
}

#[test]
fn text_on_the_opening_line_counts_as_unindented() {
    // The opening line's text has no indentation of its own, so nothing is
    // common to strip; the later lines keep theirs.
    let text = body("\"\"\"First line\n            second line\n            \"\"\"");
    assert_eq!(first_body(&text), "First line\n            second line");
}

#[test]
fn closing_quotes_may_end_the_last_line() {
    let text = body("\"\"\"\n            one\n            two\"\"\"");
    assert_eq!(first_body(&text), "one\ntwo");
}

#[test]
fn a_one_line_block_keeps_its_text_without_leading_indentation() {
    assert_eq!(first_body(&body("\"\"\"  inline  \"\"\"")), "inline  ");
}

#[test]
fn a_block_of_blank_lines_is_empty() {
    assert_eq!(first_body(&body("\"\"\"\n\n        \"\"\"")), "");
}

#[test]
fn tabs_and_spaces_each_count_as_one_column_of_indentation() {
    let tabs = body("\"\"\"\n\t\t\tthree tabs\n\t\t\t\tfour tabs\n\t\t\t\"\"\"");
    assert_eq!(first_body(&tabs), "three tabs\n\tfour tabs");
    // Mixed indentation is compared column by column, not by appearance.
    let mixed = body("\"\"\"\n\tone tab\n    four spaces\n\"\"\"");
    assert_eq!(first_body(&mixed), "one tab\n   four spaces");
}

#[test]
fn escapes_are_text_not_indentation() {
    let text = body("\"\"\"\n        \\tindented by an escape\n        plain\n        \"\"\"");
    assert_eq!(first_body(&text), "\tindented by an escape\nplain");
}

#[test]
fn blocks_may_hold_quotes_and_escaped_closing_quotes() {
    let text = body("\"\"\"\n        She said \"hi\".\n        Three: \\\"\"\"\n        \"\"\"");
    assert_eq!(first_body(&text), "She said \"hi\".\nThree: \"\"\"");
}

#[test]
fn every_line_ending_becomes_a_line_feed() {
    // The whole file in CRLF, as saved on Windows.
    let crlf = body("\"\"\"\n        a\n        b\n        \"\"\"").replace('\n', "\r\n");
    assert_eq!(first_body(&crlf), "a\nb");
    let lone_cr = body("\"\"\"\r        a\r        b\r        \"\"\"");
    assert_eq!(first_body(&lone_cr), "a\nb");
}

#[test]
fn literal_braces_are_doubled_and_variables_survive_dedent() {
    let text = body(
        "\"\"\"\n            Reply as {{\"ok\": true}}.\n              Call me {agent.name}.\n            \"\"\"",
    );
    assert_eq!(
        first_body(&text),
        "Reply as {\"ok\": true}.\n  Call me {agent.name}."
    );
}

#[test]
fn text_outside_ascii_is_kept_as_written() {
    assert_eq!(
        first_body(&body(
            "\"Grüße, 東京, emoji 🎉, and a zero\u{200B}width space\""
        )),
        "Grüße, 東京, emoji 🎉, and a zero\u{200B}width space"
    );
}

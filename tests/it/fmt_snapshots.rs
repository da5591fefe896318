//! The formatter's output for tricky inputs, as snapshots that read on
//! their own: `----- SOURCE CODE`, then `----- FORMATTED` (or
//! `----- ERROR`). Line endings and tabs in the source are shown as `␍`
//! and `→` so that the snapshot says what the input held.

use contrib::fmt::format;
use contrib::report::human::Human;
use contrib::source::SourceFile;

fn snapshot(source: &str) -> String {
    let shown = source
        .replace('\r', "␍")
        .replace('\t', "→")
        .replace('\u{feff}', "<BOM>");
    match format(source) {
        Ok(formatted) => {
            // Whatever the input, the output is itself formatted.
            assert_eq!(format(&formatted).ok().as_deref(), Some(formatted.as_str()));
            format!("----- SOURCE CODE\n{shown}\n----- FORMATTED\n{formatted}")
        }
        Err(error) => {
            let file = SourceFile::new("input.contrib", source);
            let rendered = Human::new(false).render(&file, &error);
            format!("----- SOURCE CODE\n{shown}\n----- ERROR\n{rendered}")
        }
    }
}

#[test]
fn comments_everywhere() {
    insta::assert_snapshot!(snapshot(
        r#"# Copyright 2025 Acme. SPDX-License-Identifier: MIT

# contrib: allow(budget-too-large) -- reviewed by ops
# A reviewer's stance.
plugin acme/x 1.0.0 { # the plugin
    owner agent-author   # who publishes it


    # What catalogs show.
    summary "x"
    text stance {    # the stance
        placement agent
        budget 10 tokens # tight
        body "Be brief."
        # end of stance
    } # after stance
    # before the end of the plugin
}
# the very end
"#
    ));
}

#[test]
fn reordering_moves_comments_with_their_fields() {
    insta::assert_snapshot!(snapshot(
        r#"plugin acme/x 1.0.0 {
    text voice {
        # the text
        body "Answer tersely."
        budget 60 tokens # enough
        # who sees it
        placement person
        colour blue # not a field: kept, last
        owner person
    }
    summary "after the contributors"
    owner agent-author
    requires skill b "^1"
    requires skill a "^2"
}
"#
    ));
}

#[test]
fn crlf_lone_cr_and_mixed_line_endings_become_lf() {
    insta::assert_snapshot!(snapshot(
        "plugin acme/x 1.0.0 {\r\n    owner agent-author\r    summary \"s\"\n\r\n\r\n    fact env {\r\n        says [date,os]\r\n        budget 5 tokens\r\n    }\r\n}"
    ));
}

#[test]
fn tabs_and_odd_spacing() {
    insta::assert_snapshot!(snapshot(
        "plugin\tacme/x   1.0.0{\n\towner\t\tagent-author\n\t\tsystem-message idle{when idle>4h\n\t\tbudget 40\ttokens\n\t\tbody \"tab\there\"}\n}\n"
    ));
}

#[test]
fn byte_order_mark_is_dropped() {
    insta::assert_snapshot!(snapshot(
        "\u{feff}# top\nplugin acme/x 1.0.0 {\n    owner agent-author\n}\n"
    ));
}

#[test]
fn triple_quoted_blocks_are_reindented_without_changing_their_value() {
    insta::assert_snapshot!(snapshot(
        "plugin acme/x 1.0.0 {\n  text t {\n  placement agent\n  budget 9 tokens\n  body \"\"\"\n  First line.\n    Indented \\\"more\\\".\n\n  Last {person.name}.\n  \"\"\"\n  }\n  text u {\n  placement agent\n  budget 9 tokens\n  body \"\"\"Starts on the opening line\n      and goes on\"\"\" # after\n  }\n  text v {\n    placement agent\n    budget 9 tokens\n    body \"\"\"  one line stays as written  \"\"\"\n  }\n}\n"
    ));
}

#[test]
fn calls_go_on_one_line_unless_a_comment_is_inside() {
    insta::assert_snapshot!(snapshot(
        r#"plugin acme/x 1.0.0 {
    eager-run a {
        budget 5 tokens
        call get_current_time {
        }
    }
    eager-run b {
        budget 5 tokens
        call search {
            query: "fn main",
            paths: [src,
                "tests/",],
            limit: 20,
        }
    }
    eager-run c {
        budget 5 tokens
        call list_files { # where to look
            root: "docs", # the docs
            globs: ["*.md", # markdown
                "*.txt"],
        }
    }
}
"#
    ));
}

#[test]
fn lowering_errors_are_formatted_and_kept() {
    insta::assert_snapshot!(snapshot(
        r#"plugin Acme/X 1.4 {
    txt stance { budget   5  tokens
    placement agnet }
    text stance {
        budget 5
        body "bad \q escape"
    }
}
field outside
"#
    ));
}

#[test]
fn a_field_written_with_a_colon_is_refused() {
    // The grammar accepts it so that lowering can explain it; `check`
    // calls it a syntax error, and so does the formatter.
    insta::assert_snapshot!(snapshot(
        "plugin acme/x 1.0.0 {\n    text stance {\n        placement: agent\n    }\n}\n"
    ));
}

#[test]
fn a_syntax_error_is_returned() {
    insta::assert_snapshot!(snapshot(
        "plugin acme/x 1.0.0 {\n    owner agent-author\n}\n}\n"
    ));
}

#[test]
fn an_unterminated_string_is_refused() {
    insta::assert_snapshot!(snapshot(
        "plugin acme/x 1.0.0 {\n    summary \"never closed\n}\n"
    ));
}

#[test]
fn an_unclosed_block_is_refused() {
    insta::assert_snapshot!(snapshot("plugin acme/x 1.0.0 {\n    owner agent-author\n"));
}

#[test]
fn empty_and_comment_only_files() {
    assert_eq!(format("").unwrap(), "");
    assert_eq!(format("\n\r\n  \n").unwrap(), "");
    assert_eq!(
        format("# only\n\n\n# comments  ").unwrap(),
        "# only\n\n# comments\n"
    );
}

/// Found by `fmt_roundtrip`: a name starting with U+FEFF, first in the
/// file, was written at the very start of the output, read back as a
/// byte-order mark, and lost.
#[test]
fn a_first_name_starting_with_u_feff_keeps_it() {
    let text = "\r\u{feff}owner\r# c\n";
    let formatted = format(text).unwrap();
    assert_eq!(formatted, "\u{feff}\u{feff}owner\n# c\n");
    assert_eq!(format(&formatted).unwrap(), formatted);
    let tree = contrib::syntax::parse(&formatted).unwrap();
    assert_eq!(tree.items[0].keyword().text, "\u{feff}owner");
}

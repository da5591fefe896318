//! Hostile input: every documented limit with its `limit-exceeded` error,
//! bad bytes (invalid UTF-8, NUL, a BOM, CRLF, tabs, mixed line endings),
//! and every input the fuzzers ever crashed on.

use crate::common::meaning;

use std::path::Path;

use contrib::limits::{
    MAX_CONTRIBUTORS, MAX_FILE_BYTES, MAX_NESTING, MAX_STRING_BYTES, MAX_TEMPLATE_VARIABLES,
};
use contrib::source::{Position, SourceFile};
use contrib::{decode_bytes, fmt, lower, syntax};

/// The codes and messages of every diagnostic the front end gives `text`:
/// the syntax error, or lowering's diagnostics.
fn diagnostics(text: &str) -> Vec<(&'static str, String)> {
    match syntax::parse(text) {
        Ok(tree) => lower::lower(&tree)
            .diagnostics
            .iter()
            .map(|diagnostic| (diagnostic.rule.name, diagnostic.message.clone()))
            .collect(),
        Err(error) => vec![(error.rule.name, error.message)],
    }
}

fn limit_errors(text: &str) -> Vec<String> {
    diagnostics(text)
        .into_iter()
        .filter(|(name, _)| *name == "limit-exceeded")
        .map(|(_, message)| message)
        .collect()
}

fn plugin_with(contributors: &str) -> String {
    format!("plugin acme/limits 1.0.0 {{\n    owner agent-author\n{contributors}}}\n")
}

fn text_contributor(id: &str, body: &str) -> String {
    format!("    text {id} {{\n        placement agent\n        budget 10 tokens\n        body \"{body}\"\n    }}\n")
}

// ----- limits, one test each

#[test]
fn file_size_limit() {
    let at_limit = vec![b' '; MAX_FILE_BYTES];
    assert!(decode_bytes("big.contrib", &at_limit).is_ok());
    let over = vec![b' '; MAX_FILE_BYTES + 1];
    let Err((_, error)) = decode_bytes("big.contrib", &over) else {
        panic!("a file over the limit was read");
    };
    assert_eq!(error.rule.name, "limit-exceeded");
    assert_eq!(
        error.message,
        format!("the file is over the limit of {MAX_FILE_BYTES} bytes (4 MiB)")
    );
    // The formatter refuses it too, rather than growing it further.
    let text = " ".repeat(MAX_FILE_BYTES + 1);
    assert_eq!(fmt::format(&text).unwrap_err().rule.name, "limit-exceeded");
}

/// A call whose argument is a list nested `lists` deep: the plugin, the
/// contributor and the call take three levels.
fn nested_call(lists: usize) -> String {
    let value = format!("{}1{}", "[".repeat(lists), "]".repeat(lists));
    plugin_with(&format!(
        "    eager-run r {{\n        budget 5 tokens\n        call t {{ deep: {value} }}\n    }}\n"
    ))
}

#[test]
fn nesting_depth_limit_on_call_arguments() {
    assert!(limit_errors(&nested_call(MAX_NESTING - 3)).is_empty());
    assert_eq!(
        limit_errors(&nested_call(MAX_NESTING - 2)),
        [format!(
            "blocks and lists are nested more than {MAX_NESTING} deep"
        )]
    );
    // Far deeper input is refused as fast, without recursing.
    assert_eq!(limit_errors(&nested_call(1_000_000)).len(), 1);
}

#[test]
fn string_length_limit() {
    let at_limit = "a".repeat(MAX_STRING_BYTES);
    assert!(limit_errors(&plugin_with(&text_contributor("t", &at_limit))).is_empty());
    let over = "a".repeat(MAX_STRING_BYTES + 1);
    assert_eq!(
        limit_errors(&plugin_with(&text_contributor("t", &over))),
        [format!(
            "this string is {} bytes, over the limit of {MAX_STRING_BYTES}",
            MAX_STRING_BYTES + 1
        )]
    );
}

fn contributors(count: usize) -> String {
    (0..count)
        .map(|index| text_contributor(&format!("t{index}"), "x"))
        .collect()
}

#[test]
fn contributors_per_plugin_limit() {
    assert!(limit_errors(&plugin_with(&contributors(MAX_CONTRIBUTORS))).is_empty());
    assert_eq!(
        limit_errors(&plugin_with(&contributors(MAX_CONTRIBUTORS + 1))),
        [format!(
            "the plugin has more than {MAX_CONTRIBUTORS} contributors"
        )]
    );
}

#[test]
fn template_variables_per_body_limit() {
    let body = |count: usize| "{person.name} ".repeat(count);
    let at_limit = plugin_with(&text_contributor("t", &body(MAX_TEMPLATE_VARIABLES)));
    assert!(limit_errors(&at_limit).is_empty());
    let over = plugin_with(&text_contributor("t", &body(MAX_TEMPLATE_VARIABLES + 1)));
    assert_eq!(
        limit_errors(&over),
        [format!(
            "this body uses more than {MAX_TEMPLATE_VARIABLES} variables"
        )]
    );
}

// ----- bad bytes

#[test]
fn invalid_utf8_is_refused_at_its_byte() {
    let Err((source, error)) =
        decode_bytes("x.contrib", b"plugin acme/x 1.0.0 {\n    \xc3\x28\n}\n")
    else {
        panic!("invalid UTF-8 was accepted");
    };
    assert_eq!(error.rule.name, "invalid-encoding");
    assert_eq!(error.message, "the file is not valid UTF-8 at byte 26");
    assert_eq!(
        source.position(error.span().start),
        Position { line: 2, column: 5 }
    );
}

#[test]
fn a_nul_byte_is_refused_at_its_byte() {
    let Err((_, error)) = decode_bytes("x.contrib", b"plugin acme/x 1.0.0 {\0}\n") else {
        panic!("a NUL byte was accepted");
    };
    assert_eq!(error.rule.name, "invalid-encoding");
    assert_eq!(error.message, "the file holds a NUL byte at byte 21");
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let text = "\u{feff}plugin acme/x 1.0.0 {\n    owner agent-author\n}\n";
    let source = decode_bytes("x.contrib", text.as_bytes()).unwrap();
    assert!(diagnostics(&source.text).is_empty());
    assert_eq!(fmt::format(&source.text).unwrap(), &text[3..]);
}

/// Where the first diagnostic of `text` is.
fn first_position(text: &str) -> Position {
    let tree = syntax::parse(text).unwrap();
    let lowered = lower::lower(&tree);
    let span = lowered.diagnostics[0].span();
    SourceFile::new("x.contrib", text).position(span.start)
}

#[test]
fn crlf_lone_cr_and_mixed_endings_give_the_same_positions_as_lf() {
    let lf = "plugin acme/x 1.0.0 {\n    owner agent-author\n    summary bare\n}\n";
    let expected = Position {
        line: 3,
        column: 13,
    };
    assert_eq!(first_position(lf), expected);
    assert_eq!(first_position(&lf.replace('\n', "\r\n")), expected);
    assert_eq!(first_position(&lf.replace('\n', "\r")), expected);
    let mixed = "plugin acme/x 1.0.0 {\r\n    owner agent-author\r    summary bare\n}\r\n";
    assert_eq!(first_position(mixed), expected);
}

#[test]
fn a_tab_counts_as_one_column() {
    let text = "plugin acme/x 1.0.0 {\n\towner agent-author\n\t\tsummary bare\n}\n";
    assert_eq!(
        first_position(text),
        Position {
            line: 3,
            column: 11
        }
    );
}

#[test]
fn garbage_never_panics() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..500 {
        let len = (next(&mut state) % 300) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| pick(&mut state)).collect();
        run_everything(&bytes);
    }
}

/// A byte from the language's alphabet most of the time, else any byte.
fn pick(state: &mut u64) -> u8 {
    const ALPHABET: &[u8] = b"plugin text call {}[],:#\"\\\n\r\t >=acme/1.0 owner budget tokens";
    let value = next(state);
    if value.is_multiple_of(8) {
        (value >> 8) as u8
    } else {
        ALPHABET[(value >> 8) as usize % ALPHABET.len()]
    }
}

fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// What the fuzz targets do with bytes, with their assertions: `check`
/// decodes them and places every diagnostic; `parse_lower` and
/// `fmt_roundtrip` take any UTF-8 text (NUL bytes included), lower it and
/// format it twice.
fn run_everything(bytes: &[u8]) {
    let source = match decode_bytes("fuzz.contrib", bytes) {
        Ok(source) => source,
        Err((source, error)) => {
            let _ = source.position(error.span().start);
            source
        }
    };
    for (_, message) in diagnostics(&source.text) {
        assert!(!message.is_empty());
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let source = SourceFile::new("fuzz.contrib", text);
    if let Ok(tree) = syntax::parse(text) {
        for diagnostic in lower::lower(&tree).diagnostics {
            let _ = source.position(diagnostic.span().start);
            let _ = source.position(diagnostic.span().end);
        }
    }
    render_everywhere(bytes);
    if let Ok(formatted) = fmt::format(text) {
        assert_eq!(
            fmt::format(&formatted).ok().as_deref(),
            Some(formatted.as_str())
        );
        assert_eq!(meaning::meaning(&formatted), meaning::meaning(text));
        let mut before = meaning::comments(text);
        let mut after = meaning::comments(&formatted);
        before.sort();
        after.sort();
        assert_eq!(before, after);
    }
}

/// What `contrib check` writes for `bytes`, in every format, as the `check`
/// fuzz target does: the human report never panics and never passes a
/// control character of the file to the terminal.
fn render_everywhere(bytes: &[u8]) {
    use contrib::report::{self, Format};
    let (source, diagnostics) =
        contrib::check_bytes("fuzz.contrib", bytes, &contrib::config::Config::platform());
    for format in [Format::Human, Format::Json, Format::Sarif, Format::Github] {
        let mut emitter = report::emitter(format, report::human::Style::default());
        let mut out = Vec::new();
        emitter.file(&mut out, &source, &diagnostics).unwrap();
        emitter.finish(&mut out, report::Totals::default()).unwrap();
        let text = String::from_utf8(out).unwrap();
        if format == Format::Human {
            assert!(
                !text
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\t'),
                "a control character reached the human report"
            );
        }
    }
}

// ----- fuzz regressions and hostile seeds

#[test]
fn every_input_the_fuzzers_crashed_on_is_handled() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut inputs: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "bin"))
        .collect();
    inputs.sort();
    for path in inputs {
        let bytes = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| run_everything(&bytes));
        assert!(outcome.is_ok(), "{} panics", path.display());
    }
}

/// The hostile inputs the fuzz targets start from (`fuzz/seeds/`): a line
/// past column 65,535, escape sequences, bidi and tag characters, thousands
/// of suppressions and diagnostics, integers a bundle cannot carry, and
/// (for the reader and the importer) mis-sized frames and huge
/// frontmatter.
#[test]
fn every_hostile_seed_is_handled() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let files = |folder: &str| {
        let mut paths: Vec<_> = std::fs::read_dir(seeds.join(folder))
            .unwrap()
            .flatten()
            .map(|entry| entry.path())
            .collect();
        paths.sort();
        assert!(!paths.is_empty(), "no seeds in fuzz/seeds/{folder}");
        paths
    };
    for path in files("manifests") {
        let bytes = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| run_everything(&bytes));
        assert!(outcome.is_ok(), "{} panics", path.display());
    }
    for path in files("lsp_frames") {
        let bytes = std::fs::read(&path).unwrap();
        let (messages, reader) = contrib::lsp::transport::spawn_reader(std::io::Cursor::new(bytes));
        let count = messages.iter().count();
        assert!(
            reader.join().is_ok(),
            "{} panics the reader",
            path.display()
        );
        assert!(count > 0, "{}: nothing read", path.display());
    }
    for path in files("frontmatter") {
        let text = std::fs::read_to_string(&path).unwrap();
        let document = contrib::import::frontmatter::split(&text);
        assert!(
            document.frontmatter.keys_are_distinct(),
            "{}",
            path.display()
        );
    }
}

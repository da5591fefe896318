//! The globs held to `globset`, the reader the gitignore matcher of file
//! discovery is built on: the same patterns refused with the same words,
//! and the same paths matched, on hand-picked cases and on random ones.

use super::{Error, Glob, Options};
use proptest::prelude::*;

/// `globset`'s verdict: its error's words, or whether `path` matches.
fn theirs(pattern: &str, unclosed: bool) -> Result<globset::GlobMatcher, String> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .allow_unclosed_class(unclosed)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|error| error.kind().to_string())
}

fn ours(pattern: &str, unclosed: bool) -> Result<Glob, Error> {
    Glob::with(
        pattern,
        Options {
            allow_unclosed_class: unclosed,
        },
    )
}

/// Asserts that both readers agree on `pattern` and, when it is a glob,
/// on every one of `paths` on which they are meant to: ASCII ones, since
/// `globset`'s `?` and classes match a byte where ours match a character.
fn agree(pattern: &str, unclosed: bool, paths: &[&str]) {
    match (ours(pattern, unclosed), theirs(pattern, unclosed)) {
        (Ok(glob), Ok(matcher)) => {
            let comparable = |path: &&&str| pattern.is_ascii() && path.is_ascii();
            for path in paths.iter().filter(comparable) {
                assert_eq!(
                    glob.is_match(path),
                    matcher.is_match(path),
                    "`{pattern}` on `{path}` (unclosed classes literal: {unclosed})"
                );
            }
        }
        (Err(error), Err(words)) => assert_eq!(error.to_string(), words, "`{pattern}`"),
        (mine, other) => panic!(
            "`{pattern}`: ours {:?}, globset's {:?}",
            mine.map(|glob| glob.pattern().to_string()),
            other.map(|_| ())
        ),
    }
}

const PATHS: &[&str] = &[
    "",
    "a",
    "b",
    "ab",
    "a/b",
    "a/b/c",
    "/a",
    "a/",
    "/",
    "//",
    ".a",
    "a.md",
    "docs/a.md",
    "docs/x/y/a.md",
    "src/lib.rs",
    "src/a/b/lib.rs",
    "x/src/lib.rs",
    "[",
    "]",
    "-",
    "a-b",
    "{",
    "}",
    ",",
    "a,b",
    "*",
    "?",
    "\\",
    "é",
    "a/é/b",
];

#[test]
fn hand_picked_patterns_agree() {
    let patterns = [
        "*",
        "**",
        "*.md",
        "**/*.md",
        "docs/**",
        "docs/**/a.md",
        "src/**/lib.rs",
        "**/lib.rs",
        "a/**/b/**/c",
        "a**",
        "**a",
        "a/**b",
        "a**/b",
        "?",
        "a?b",
        "a/?",
        "[ab]",
        "[!ab]",
        "[^ab]",
        "[a-z]",
        "[]a]",
        "[!]a]",
        "[-a]",
        "[a-]",
        "[/]",
        "[!/]",
        "[.-0]",
        "[a/b]",
        "[[:alpha:]]",
        "[[:digit:][:alpha:]]",
        "[^[:digit:]]",
        "[[:bogus:]]",
        "[[:alpha]",
        "{a,b}",
        "{a,b/c}",
        "{,a}",
        "{a,}",
        "{}",
        "{,}",
        "{{a,b},c}",
        "{**/a,b}",
        "x{**,b}",
        "{a,**}",
        "a/{b,**}",
        "\\*",
        "\\[a]",
        "a\\/b",
        "é",
        "?/é/?",
    ];
    for pattern in patterns {
        for unclosed in [false, true] {
            agree(pattern, unclosed, PATHS);
        }
    }
}

#[test]
fn refusals_agree_and_read_as_globset_words() {
    let refused = [
        ("[a", Error::UnclosedClass),
        ("[z-a]", Error::InvalidRange('z', 'a')),
        ("a}", Error::UnopenedAlternates),
        ("{a,b", Error::UnclosedAlternates),
        ("a\\", Error::DanglingEscape),
    ];
    for (pattern, expected) in refused {
        assert_eq!(ours(pattern, false).unwrap_err(), expected, "`{pattern}`");
        agree(pattern, false, PATHS);
    }
    let deep = "{".repeat(super::MAX_NESTING + 1);
    assert_eq!(
        ours(&deep, false).unwrap_err(),
        Error::TooManyNestedAlternates
    );
    agree(&deep, false, PATHS);
}

#[test]
fn an_unclosed_class_is_a_literal_bracket_when_allowed() {
    let glob = ours("a[b", true).unwrap();
    assert!(glob.is_match("a[b"));
    assert!(!glob.is_match("ab"));
    // A `[` inside a class is one of its characters.
    let glob = ours("[a[b]", true).unwrap();
    assert!(glob.is_match("[") && glob.is_match("b") && !glob.is_match("[a[b]"));
    // A class closed before the unclosed one still is a class.
    let glob = ours("[ab]x[", true).unwrap();
    assert!(glob.is_match("bx[") && !glob.is_match("[ab]x["));
    for pattern in ["[a[b]", "[ab]x[", "[![", "[[:alpha:]"] {
        agree(
            pattern,
            true,
            &["[ab]", "[a[b]", "a", "b", "[a", "bx[", "[![", "x"],
        );
    }
}

#[test]
fn one_character_is_one_character_beyond_ascii() {
    let glob = Glob::new("?").unwrap();
    assert!(glob.is_match("é") && glob.is_match("字") && !glob.is_match("ab"));
    let glob = Glob::new("docs/[é-ë]/*.md").unwrap();
    assert!(glob.is_match("docs/ê/a.md") && !glob.is_match("docs/e/a.md"));
    assert!(Glob::new("[!é]").unwrap().is_match("e"));
}

#[test]
fn long_patterns_stay_linear() {
    // A backtracking matcher takes exponential time on this; the automaton
    // visits each state once per character.
    let pattern = "*a".repeat(40);
    let glob = Glob::new(&pattern).unwrap();
    assert!(!glob.is_match(&"a".repeat(39)));
    assert!(glob.is_match(&"a".repeat(40)));
    let pattern = "[".repeat(10_000);
    assert!(ours(&pattern, true).unwrap().is_match(&pattern));
}

/// Pieces random patterns are made of: every character the syntax gives a
/// meaning, and two that it does not.
fn pattern_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a",
        "b",
        "/",
        "*",
        "**",
        "?",
        "[",
        "]",
        "!",
        "^",
        "-",
        "{",
        "}",
        ",",
        "\\",
        ".",
        "[:alpha:]",
        "é",
    ])
}

fn path_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["a", "b", "/", ".", "-", "[", "]", "{", "é", ","])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn random_patterns_agree(
        pattern in prop::collection::vec(pattern_piece(), 0..10),
        paths in prop::collection::vec(prop::collection::vec(path_piece(), 0..8), 12),
        unclosed in any::<bool>(),
    ) {
        let pattern = pattern.concat();
        let paths: Vec<String> = paths.iter().map(|pieces| pieces.concat()).collect();
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        agree(&pattern, unclosed, &paths);
        agree(&pattern, unclosed, PATHS);
    }
}

//! Resilient parsing, as a property: one edit that breaks the syntax costs
//! the construct it is in and nothing else.
//!
//! For every manifest in `examples/` and many generated ones, a random
//! deletion or insertion (of the characters and half-typed constructs a
//! person leaves while typing) is made at a random position. Every
//! contributor the edit does not touch must keep its place in the outline
//! and exactly the diagnostics it had, wherever they moved to; and the file
//! must get at most one syntax error for the one edit.

use crate::common;

use std::path::Path;

use contrib::config::Config;
use contrib::diagnostic::Diagnostic;
use contrib::source::{SourceFile, Span};
use contrib::syntax::{self, tree::Item};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestCaseError, TestRunner};

/// What a person leaves while typing, and what a slip leaves.
const INSERTIONS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\"\"\"",
    ",",
    ":",
    "#",
    "\n",
    " ",
    "x",
    "call fetch_url { url: ",
    "names: [\"a\", ",
    "body \"\"\"\n    Hi",
    "placement: ",
    "text new {",
    "tools [a, ",
    "when idle > ",
    "> 4h",
    "\\",
];

/// A contributor as the outline shows it, and where its text is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Contributor {
    kind: String,
    id: String,
    span: Span,
    /// From the start of its header's line to the end of its last line,
    /// line break included: what an edit must touch to touch it.
    lines: Span,
}

/// A diagnostic relative to the contributor it is in.
type Seen = (&'static str, String, usize, usize);

struct Outcome {
    contributors: Vec<Contributor>,
    diagnostics: Vec<Diagnostic>,
    /// The syntax errors the parser recovered from, one per broken
    /// construct.
    syntax_errors: Vec<Span>,
}

fn outcome(text: &str, config: &Config) -> Outcome {
    let parsed = syntax::parse_recovering(text);
    let mut contributors = Vec::new();
    if let Some(file) = &parsed.file {
        for item in &file.items {
            let Item::Block(plugin) = item else { continue };
            if plugin.keyword.text != "plugin" {
                continue;
            }
            for child in &plugin.items {
                let Item::Block(block) = child else { continue };
                if contrib::ir::Kind::parse(block.keyword.text).is_none() {
                    continue;
                }
                contributors.push(Contributor {
                    kind: block.keyword.text.to_string(),
                    id: block.args.first().map_or("", |w| w.text).to_string(),
                    span: block.span,
                    lines: Span::new(
                        comments_above(text, line_start(text, block.span.start)),
                        line_after(text, block.span.end),
                    ),
                });
            }
        }
    }
    let source = SourceFile::new("edited.contrib", text);
    let analysis = contrib::analyze_parsed(&source, &parsed, config);
    Outcome {
        contributors,
        diagnostics: analysis.diagnostics,
        syntax_errors: parsed.errors.iter().map(Diagnostic::span).collect(),
    }
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1)
}

/// The start of the comment lines right above the line at `start`: they
/// belong to the contributor (a suppression governs it).
fn comments_above(text: &str, mut start: usize) -> usize {
    while start > 0 {
        let above = line_start(text, start - 1);
        if !text[above..start].trim_start().starts_with('#') {
            break;
        }
        start = above;
    }
    start
}

fn line_after(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
}

/// The diagnostics inside `contributor`, relative to its start. Rules that
/// compare contributors with each other (`duplicate-id`) may rightly change
/// when another contributor's id is edited, and are left out.
fn inside(outcome: &Outcome, contributor: &Contributor) -> Vec<Seen> {
    let mut seen: Vec<Seen> = outcome
        .diagnostics
        .iter()
        // Rules about two contributors at once rightly change when the
        // other one is edited.
        .filter(|d| !matches!(d.rule.name, "duplicate-id" | "duplicate-fact-section"))
        .filter(|d| {
            let span = d.span();
            contributor.span.start <= span.start && span.end <= contributor.span.end
        })
        .map(|d| {
            let span = d.span();
            (
                d.rule.name,
                d.message.clone(),
                span.start - contributor.span.start,
                span.end - contributor.span.start,
            )
        })
        .collect();
    seen.sort();
    seen
}

#[derive(Debug, Clone)]
enum Edit {
    Delete { at: usize, len: usize },
    Insert { at: usize, text: &'static str },
}

impl Edit {
    /// The edit moved onto character boundaries of `text`.
    fn fit(self, text: &str) -> Edit {
        let floor = |mut at: usize| {
            at = at.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        };
        match self {
            Edit::Delete { at, len } => {
                let start = floor(at % (text.len() + 1));
                let end = floor((start + len).min(text.len()));
                Edit::Delete {
                    at: start,
                    len: end - start,
                }
            }
            Edit::Insert { at, text: inserted } => Edit::Insert {
                at: floor(at % (text.len() + 1)),
                text: inserted,
            },
        }
    }

    fn apply(&self, text: &str) -> String {
        match self {
            Edit::Delete { at, len } => format!("{}{}", &text[..*at], &text[at + len..]),
            Edit::Insert { at, text: inserted } => {
                format!("{}{inserted}{}", &text[..*at], &text[*at..])
            }
        }
    }

    /// Whether the edit changes the text of `lines`, or joins their first
    /// line to the one above by deleting the line break between them.
    fn touches(&self, lines: Span) -> bool {
        match *self {
            Edit::Delete { at, len } => at < lines.end && lines.start <= at + len.max(1),
            Edit::Insert { at, .. } => lines.start <= at && at < lines.end,
        }
    }

    /// Where a byte of the original text after the edit is now.
    fn moved(&self, at: usize) -> usize {
        match *self {
            Edit::Delete { at: start, len } if at >= start + len => at - len,
            Edit::Insert { at: start, text } if at >= start => at + text.len(),
            _ => at,
        }
    }
}

fn edits() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(at, len)| Edit::Delete { at, len }),
        (any::<usize>(), proptest::sample::select(INSERTIONS))
            .prop_map(|(at, text)| Edit::Insert { at, text }),
    ]
}

/// Checks the property for one text and one edit.
fn holds(text: &str, edit: Edit, config: &Config) -> Result<(), TestCaseError> {
    let before = outcome(text, config);
    let edit = edit.fit(text);
    let edited = edit.apply(text);
    let after = outcome(&edited, config);
    let plugin_fields_end = before
        .contributors
        .first()
        .map_or(text.len(), |c| c.lines.start);
    let last_end = before.contributors.last().map_or(0, |c| c.lines.end);
    // Edits to the plugin's own header and fields, or after its last
    // contributor, may rightly change every contributor (its owner, its
    // requirements, its closing brace): the property is about contributors.
    if edit.touches(Span::new(0, plugin_fields_end))
        || edit.touches(Span::new(last_end, text.len() + 1))
    {
        return Ok(());
    }
    for contributor in &before.contributors {
        if edit.touches(contributor.lines) {
            continue;
        }
        let moved = Span::new(
            edit.moved(contributor.span.start),
            edit.moved(contributor.span.end),
        );
        let found = after
            .contributors
            .iter()
            .find(|c| c.kind == contributor.kind && c.id == contributor.id && c.span == moved);
        let Some(found) = found else {
            return Err(TestCaseError::fail(format!(
                "{edit:?} lost `{} {}` from the outline\n----- EDITED\n{edited}",
                contributor.kind, contributor.id
            )));
        };
        prop_assert_eq!(
            inside(&before, contributor),
            inside(&after, found),
            "{:?} changed the diagnostics of `{} {}`\n----- EDITED\n{}",
            edit,
            contributor.kind,
            contributor.id,
            edited
        );
    }
    // One edit breaks at most one construct, and its error is reported
    // there: between the untouched contributors around the edit.
    prop_assert!(
        after.syntax_errors.len() <= before.syntax_errors.len() + 1,
        "{:?} made {} syntax errors out of one edit\n----- EDITED\n{}",
        edit,
        after.syntax_errors.len(),
        edited
    );
    let at = match edit {
        Edit::Delete { at, .. } | Edit::Insert { at, .. } => at,
    };
    let untouched = |c: &&Contributor| !edit.touches(c.lines);
    let from = before
        .contributors
        .iter()
        .filter(untouched)
        .filter(|c| c.lines.end <= at)
        .map(|c| edit.moved(c.span.end))
        .max()
        .unwrap_or(0);
    let to = before
        .contributors
        .iter()
        .filter(untouched)
        .filter(|c| c.lines.start > at)
        .map(|c| edit.moved(c.span.start))
        .min()
        .unwrap_or(edited.len());
    for error in &after.syntax_errors {
        prop_assert!(
            from <= error.start && error.start <= to,
            "{:?}: the syntax error at {:?} is outside the edited construct {}..{}\n----- EDITED\n{}",
            edit,
            error,
            from,
            to,
            edited
        );
    }
    Ok(())
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(RunnerConfig {
        cases,
        failure_persistence: None,
        ..RunnerConfig::default()
    })
}

#[test]
fn edits_to_one_contributor_leave_the_examples_other_contributors_alone() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "contrib"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
        let config = common::config_for(&name.to_string_lossy());
        runner(96)
            .run(&edits(), |edit| holds(&text, edit, &config))
            .unwrap_or_else(|failure| panic!("{}: {failure}", path.display()));
    }
}

/// One contributor of each kind, in the forms the language allows: one
/// line or several, lists over lines, bodies in `"""` blocks.
const SHAPES: &[&str] = &[
    "    text {id} {\n        placement agent\n        budget 40 tokens\n        body \"Prefer short answers.\"\n    }\n",
    "    text {id} {\n        placement person\n        owner person\n        reach with-person\n        budget 60 tokens\n        body \"\"\"\n            Call me {person.name}.\n            Answer tersely.\n            \"\"\"\n    }\n",
    "    text {id} { placement agent, applies on command deploy, budget 30 tokens, body \"Run the migrations first.\" }\n",
    "    text {id} {\n        placement agent\n        applies to files [\"src/**/*.rs\", \"*.toml\"]\n        budget 40 tokens\n        body \"Rust conventions apply.\"\n    }\n",
    "    eager-load {id} {\n        placement agent\n        budget 2000 tokens\n        tools [\n            read_object,\n            search_code,\n        ]\n    }\n",
    "    eager-run {id} {\n        budget 1500 tokens\n        call fetch_url { url: \"https://docs.acme.dev/style\" }\n    }\n",
    "    eager-run {id} {\n        budget 50 tokens\n        call get_current_time {}\n    }\n",
    "    system-message {id} {\n        when idle > 1h30m\n        budget 40 tokens\n        body \"It has been {idle} since your last turn.\"\n    }\n",
    "    preface {id} {\n        source user-authored\n        origin \"memory:notes\"\n        budget 400 tokens\n        call read_memory { store: \"notes\" }\n    }\n",
    "    fact {id} {\n        heading \"Where you run\"\n        budget 60 tokens\n        says [date, os, arch]\n    }\n",
    "    text {id} {\n        placement agent\n        budgt 40 tokens\n        body \"A misspelt field, reported.\"\n    }\n",
    "    # contrib: allow(budget-unused) -- room to grow\n    text {id} {\n        placement agent\n        budget 400 tokens\n        body \"Room to grow.\"\n    }\n",
];

fn manifests() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..SHAPES.len(), 2..7).prop_map(|shapes| {
        let mut text = String::from(
            "# Generated.\nplugin acme/generated 1.0.0 {\n    owner agent-author\n    summary \"Generated\"\n\n",
        );
        for (index, shape) in shapes.into_iter().enumerate() {
            text.push_str(&SHAPES[shape].replace("{id}", &format!("c{index}")));
            text.push('\n');
        }
        text.push_str("}\n");
        text
    })
}

#[test]
fn edits_to_one_contributor_leave_generated_manifests_other_contributors_alone() {
    let config = common::config_for("examples/code-review.contrib");
    runner(400)
        .run(&(manifests(), edits()), |(text, edit)| {
            holds(&text, edit, &config)
        })
        .unwrap();
}

/// The states the issue names, near the end of a file: each keeps the
/// rest of the file read, and is one error where the person is typing.
#[test]
fn mid_typing_states_cost_only_their_contributor() {
    let config = Config::platform();
    let head = "plugin acme/x 1.0.0 {\n    owner agent-author\n\n    text stance {\n        placement agent\n        budget 20 tokens\n        body \"Be brief {now}.\"\n    }\n\n";
    let states = [
        ("    eager-run fetch {\n        budget 100 tokens\n        call fetch_url { url: \n    }\n}\n", "url: "),
        ("    eager-run fetch {\n        budget 100 tokens\n        call load { names: [\"a\", \n    }\n}\n", "[\"a\", "),
        ("    text open {\n        placement agent\n\n}\n", "{"),
        ("    eager-run fetch {\n        budget 100 tokens\n        call fetch_url {\n    }\n}\n", "{"),
        ("    text typing {\n        placement agent\n        budget 9 tokens\n        body \"\"\"\n            Hel\n    }\n}\n", "\"\"\""),
        ("    text typing {\n        placement agent\n        budget 9 tokens\n        body \"Hel\n    }\n}\n", "\""),
    ];
    for (tail, typing) in states {
        let text = format!("{head}{tail}");
        let outcome = outcome(&text, &config);
        let ids: Vec<&str> = outcome.contributors.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.first(), Some(&"stance"), "{text}");
        assert_eq!(ids.len(), 2, "{text}");
        // The untouched contributor is still checked: `{now}` at agent
        // placement is reported as it was before the edit.
        let rules: Vec<&str> = outcome.diagnostics.iter().map(|d| d.rule.name).collect();
        assert!(rules.contains(&"placement-too-wide"), "{text}\n{rules:?}");
        let errors: Vec<&Diagnostic> = outcome
            .diagnostics
            .iter()
            .filter(|d| d.is_error() && d.rule.name != "placement-too-wide")
            .collect();
        assert_eq!(errors.len(), 1, "{text}\n{errors:#?}");
        let at = errors[0].span();
        let typed = text.rfind(typing).unwrap();
        assert!(
            at.start >= typed && at.start <= typed + typing.len(),
            "{text}\nreported at {at:?}, typing at {typed}: {errors:#?}"
        );
    }
}

/// `contrib check`'s report on a file with one syntax error while the rest
/// is clean: one precise error, where the typing stopped, and nothing else.
#[test]
fn one_syntax_error_is_one_precise_error_in_the_report() {
    let head = "plugin acme/x 1.0.0 {\n    owner agent-author\n\n    text stance {\n        placement agent\n        budget 4 tokens\n        body \"Be brief.\"\n    }\n\n";
    let states = [
        ("a call argument without its value", "    eager-run fetch {\n        budget 100 tokens\n        call fetch_url { url: \n    }\n}\n"),
        ("a list without its end", "    eager-run fetch {\n        budget 100 tokens\n        call load { names: [\"a\", \n    }\n}\n"),
        ("an unclosed block", "    text open {\n        placement agent\n\n}\n"),
        ("an unterminated block string", "    text typing {\n        placement agent\n        budget 9 tokens\n        body \"\"\"\n            Hel\n    }\n}\n"),
        ("a stray bracket", "    text t {\n        placement agent ]\n        budget 9 tokens\n        body \"x\"\n    }\n}\n"),
    ];
    let mut report = String::new();
    for (what, tail) in states {
        let text = format!("{head}{tail}");
        let (source, diagnostics) = common::check_bytes("typing.contrib", text.as_bytes());
        assert_eq!(diagnostics.len(), 1, "{what}: {diagnostics:#?}");
        let rendered = contrib::report::human::Human::new(false).render(&source, &diagnostics[0]);
        report.push_str(&format!("----- {what}\n{rendered}\n"));
    }
    insta::assert_snapshot!(report);
}

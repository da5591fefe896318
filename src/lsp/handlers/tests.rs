//! Handlers called directly, with the cursor drawn in the snapshot: each
//! `.snap` shows the line the cursor is on, `|` where it is, then what the
//! handler answered, so it reads without the test beside it.

use std::fmt::Write as _;
use std::str::FromStr;
use std::sync::Arc;

use lsp_types::{
    CodeActionContext, CodeActionOrCommand, CodeActionParams, CompletionTextEdit, HoverContents,
    PartialResultParams, Position, Uri, WorkDoneProgressParams,
};

use super::{code_action, completion, definition, hover, symbols};
use crate::config::Config;
use crate::lsp::context::line_bounds;
use crate::lsp::convert;
use crate::lsp::rule_docs::RuleDocs;
use crate::lsp::state::{analyze_syntax, Snapshot};
use crate::lsp::version::{Checked, Syntax};
use crate::source::SourceFile;

const CONFIG: &str = r#"[egress]
allow = ["docs.acme.dev"]

[tools.search_code]
effect = "read"
params = { query = "string", limit = "integer?" }
schema_tokens = 150

[tools.post_comment]
effect = "write"
gated = true
params = { body = "string" }
schema_tokens = 80

[tools.read_memory]
effect = "read"
params = { store = "string" }
schema_tokens = 60

[skills.code-review]
version = "2.3.0"
manifest_tokens = 300
operations = [{ name = "diff", tokens = 400 }, { name = "annotate", tokens = 200 }]
"#;

/// The language's example manifest, clean against [`CONFIG`].
const MANIFEST: &str = r#"# A reviewer's stance, and the review skill's hot operations loaded up front.
plugin acme/code-review 1.4.0 {
    owner agent-author
    summary "Review stance and eager loads for code-review agents"
    requires skill code-review "^2.1"

    # contrib: allow(budget-unused) -- room for the stance to grow
    text stance {
        placement agent
        priority agent
        reach every-turn
        budget 120 tokens
        body """
            Challenge premises; do not call a design good when it is merely fine.
            """
    }

    text voice {
        owner person
        placement person
        priority person
        reach with-person
        budget 60 tokens
        body "Answer tersely, in British English. Call me {person.name}."
    }

    eager-load review-ops {
        placement agent
        budget 2000 tokens
        tools [read_object, search_code]
        skill code-review operations [diff, annotate]
    }

    eager-run style-guide {
        budget 1500 tokens
        call fetch_url { url: "https://docs.acme.dev/style" }
    }

    system-message idle {
        when idle > 4h
        budget 40 tokens
        body "It has been {idle} since your last turn."
    }

    # contrib: allow(fact-over-budget) -- the platform names its OS and architecture in a word each
    fact environment {
        says [date, os, arch]
        budget 60 tokens
    }
}
"#;

struct Fixture {
    uri: Uri,
    source: SourceFile,
    syntax: Syntax,
    checked: Checked,
    config: Arc<Config>,
    position: Position,
    offset: usize,
}

impl Fixture {
    /// `marked` with its `|` removed, the cursor where it was.
    fn new(marked: &str) -> Self {
        let offset = marked.find('|').unwrap_or(marked.len());
        let text = marked.replacen('|', "", 1);
        let (config, problems) = Config::from_source(SourceFile::new("/ws/contrib.toml", CONFIG));
        assert!(problems.is_empty(), "{problems:?}");
        let config = Arc::new(config);
        let source = SourceFile::new("/ws/test.contrib", text);
        let syntax = Syntax::new(source.text.clone());
        let checked = Checked::new(analyze_syntax(&source, &syntax, &config));
        let position = convert::position(&source, offset);
        Fixture {
            uri: Uri::from_str("file:///ws/test.contrib").unwrap(),
            source,
            syntax,
            checked,
            config,
            position,
            offset,
        }
    }

    /// The manifest with `from` replaced by `to`, which holds the cursor.
    fn manifest(from: &str, to: &str) -> Self {
        assert!(MANIFEST.contains(from), "{from}");
        Fixture::new(&MANIFEST.replacen(from, to, 1))
    }

    fn snapshot(&self) -> Snapshot<'_> {
        Snapshot {
            uri: &self.uri,
            source: &self.source,
            syntax: &self.syntax,
            checked: &self.checked,
            analysis: &self.checked.analysis,
            config: self.config.clone(),
            config_uri: Some(Uri::from_str("file:///ws/contrib.toml").unwrap()),
        }
    }

    /// The cursor's line with `|` at the cursor.
    fn cursor_line(&self) -> String {
        let text: &str = &self.source.text;
        let (start, end) = line_bounds(text, self.offset);
        format!("{}|{}", &text[start..self.offset], &text[self.offset..end])
    }

    fn hover(&self) -> String {
        let answer = hover::hover(&self.snapshot(), self.position);
        let text = match answer.map(|hover| hover.contents) {
            Some(HoverContents::Markup(markup)) => markup.value,
            Some(other) => format!("{other:?}"),
            None => "(no hover)".to_string(),
        };
        format!("----- CURSOR\n{}\n----- HOVER\n{text}", self.cursor_line())
    }

    fn completion(&self, snippets: bool) -> String {
        let items = completion::completion(&self.snapshot(), self.position, snippets);
        let mut out = format!("----- CURSOR\n{}\n----- COMPLETION\n", self.cursor_line());
        if items.is_empty() {
            out.push_str("(no items)\n");
        }
        for item in items {
            let inserts = match &item.text_edit {
                Some(CompletionTextEdit::Edit(edit)) if edit.new_text != item.label => {
                    format!(" => {:?}", edit.new_text)
                }
                _ => String::new(),
            };
            let detail = item.detail.unwrap_or_default();
            let _ = writeln!(out, "{}{inserts}  -- {detail}", item.label);
        }
        out
    }

    fn actions(&self) -> String {
        let params = CodeActionParams {
            text_document: lsp_types::TextDocumentIdentifier::new(self.uri.clone()),
            range: lsp_types::Range::new(self.position, self.position),
            context: CodeActionContext::default(),
            work_done_progress_params: WorkDoneProgressParams::default(),
            partial_result_params: PartialResultParams::default(),
        };
        let docs = RuleDocs::new(Some("https://example.test/{name}".to_string()));
        let actions = code_action::code_actions(&self.snapshot(), &params, &docs);
        let mut out = format!("----- CURSOR\n{}\n----- ACTIONS\n", self.cursor_line());
        for action in actions {
            let CodeActionOrCommand::CodeAction(action) = action else {
                continue;
            };
            let preferred = if action.is_preferred == Some(true) {
                " (preferred)"
            } else {
                ""
            };
            let kind = action
                .kind
                .map(|kind| kind.as_str().to_string())
                .unwrap_or_default();
            let _ = writeln!(out, "[{kind}] {}{preferred}", action.title);
            let edits = action
                .edit
                .and_then(|edit| edit.changes)
                .into_iter()
                .flat_map(|changes| changes.into_values())
                .flatten();
            for edit in edits {
                let span = convert::span(&self.source, edit.range);
                let _ = writeln!(
                    out,
                    "    {:?} -> {:?}",
                    self.source.slice(span),
                    edit.new_text
                );
            }
        }
        out
    }
}

#[test]
fn hover_on_a_placement_lists_every_placement() {
    let fixture = Fixture::manifest(
        "        placement agent\n        priority agent",
        "        placement ag|ent\n        priority agent",
    );
    insta::assert_snapshot!(fixture.hover());
}

#[test]
fn hover_on_a_contributor_shows_its_measure_against_its_budget() {
    let fixture = Fixture::manifest("text stance", "text sta|nce");
    insta::assert_snapshot!(fixture.hover());
}

/// A text says where it goes: the system prompt only at the placements
/// kept there.
#[test]
fn hover_on_a_text_says_where_its_placement_puts_it() {
    let cases = [
        ("person", "text added to the system prompt"),
        ("conversation", "text added to the conversation's opening"),
        ("message", "text added before each turn it reaches"),
    ];
    for (placement, summary) in cases {
        let manifest = MANIFEST
            .replacen("placement person", &format!("placement {placement}"), 1)
            .replacen("reach with-person", "reach every-turn", 1)
            .replacen("text voice", "text vo|ice", 1);
        let hover = Fixture::new(&manifest).hover();
        assert!(
            hover.contains(&format!("**text** `voice` — {summary}")),
            "{placement}: {hover}"
        );
    }
}

#[test]
fn hover_on_a_framed_contributor_shows_its_framing() {
    let fixture = Fixture::manifest(
        "budget 60 tokens\n        body",
        "bud|get 60 tokens\n        body",
    );
    insta::assert_snapshot!(fixture.hover());
}

#[test]
fn hover_on_a_tool_shows_its_effect_gating_and_egress() {
    let fixture = Fixture::manifest("call fetch_url", "call fetch|_url");
    insta::assert_snapshot!(fixture.hover());
}

#[test]
fn hover_on_a_loaded_tool_and_an_operation() {
    let tool = Fixture::manifest("read_object, search_code]", "read_object, search_co|de]");
    let operation = Fixture::manifest("operations [diff,", "operations [di|ff,");
    insta::assert_snapshot!(format!("{}\n{}", tool.hover(), operation.hover()));
}

#[test]
fn hover_on_a_variable_shows_its_variance_and_worst_case() {
    let fixture = Fixture::manifest("{person.name}", "{person.na|me}");
    insta::assert_snapshot!(fixture.hover());
}

#[test]
fn hover_on_a_rule_in_a_suppression_shows_its_explanation() {
    let fixture = Fixture::manifest("allow(budget-unused", "allow(budget-un|used");
    insta::assert_snapshot!(fixture.hover());
}

#[test]
fn hover_on_an_owner_and_a_priority_lists_what_each_allows() {
    let owner = Fixture::manifest("owner agent-author", "owner agent-au|thor");
    let priority = Fixture::manifest(
        "        priority person
",
        "        priority per|son\n",
    );
    insta::assert_snapshot!(format!("{}\n{}", owner.hover(), priority.hover()));
}

#[test]
fn hover_on_a_required_skill_lists_its_operations() {
    let fixture = Fixture::manifest("requires skill code-review", "requires skill code-re|view");
    insta::assert_snapshot!(fixture.hover());
}

#[test]
fn hover_on_a_diagnostic_adds_its_rule_after_the_rest() {
    // The time in agent placement: `placement-too-wide` on `agent`, which
    // has a hover of its own, and on `{now}`, which has one too.
    let on_placement = Fixture::manifest("Challenge premises;", "Challenge premises at {now};");
    let on_placement = Fixture::new(&on_placement.source.text.replacen(
        "        placement agent\n        priority agent",
        "        placement ag|ent\n        priority agent",
        1,
    ));
    assert!(codes(&on_placement).contains(&"C0101"));
    // A misspelt field has no hover but its rule's.
    let misspelt = Fixture::manifest("        budget 60 tokens", "        bud|gt 60 tokens");
    assert_eq!(codes(&misspelt), ["C0004"]);
    insta::assert_snapshot!(format!("{}\n{}", on_placement.hover(), misspelt.hover()));
}

fn codes(fixture: &Fixture) -> Vec<&'static str> {
    fixture
        .checked
        .analysis
        .diagnostics
        .iter()
        .map(|diagnostic| diagnostic.rule.code)
        .collect()
}

/// Every hover reads as plain text: no Markdown table anywhere, whichever
/// word the cursor is on, in a clean manifest and in one with problems.
#[test]
fn no_hover_is_a_table() {
    let broken = MANIFEST
        .replace("budget 40 tokens", "budgt 40 tokens")
        .replace("merely fine.", "merely fine at {now}.");
    for text in [MANIFEST.to_string(), broken] {
        let starts = text
            .char_indices()
            .filter(|&(at, c)| c.is_alphanumeric() && !text[..at].ends_with(char::is_alphanumeric));
        for (at, _) in starts {
            let fixture = Fixture::new(&format!("{}|{}", &text[..at], &text[at..]));
            let Some(hover) = hover::hover(&fixture.snapshot(), fixture.position) else {
                continue;
            };
            let HoverContents::Markup(markup) = hover.contents else {
                panic!("not Markdown: {hover:?}");
            };
            let table = markup
                .value
                .lines()
                .any(|line| line.trim_start().starts_with('|'));
            assert!(!table, "{}\n{}", fixture.cursor_line(), markup.value);
        }
    }
}

#[test]
fn hover_on_plain_words_shows_nothing() {
    let fixture = Fixture::manifest("Answer tersely", "Answer ters|ely");
    assert_eq!(hover::hover(&fixture.snapshot(), fixture.position), None);
}

/// Only what the table of kinds allows: an eager load's placements, the
/// reaches kept text can honour, activations and what follows them.
#[test]
fn completes_what_the_kind_allows_and_activations() {
    let load = Fixture::manifest(
        "eager-load review-ops {\n        placement agent",
        "eager-load review-ops {\n        placement |",
    );
    let reach = Fixture::manifest("reach with-person", "reach |");
    let applies = Fixture::manifest("        reach with-person\n", "        applies |\n");
    let on = Fixture::manifest("        reach with-person\n", "        applies on |\n");
    insta::assert_snapshot!(format!(
        "{}\n{}\n{}\n{}",
        load.completion(false),
        reach.completion(false),
        applies.completion(false),
        on.completion(false)
    ));
}

#[test]
fn completes_placements_after_placement() {
    let fixture = Fixture::manifest("placement person\n", "placement |\n");
    insta::assert_snapshot!(fixture.completion(false));
}

#[test]
fn completes_the_fields_a_contributor_has_not_got() {
    let fixture = Fixture::manifest(
        "        says [date, os, arch]\n",
        "        says [date, os, arch]\n        |\n",
    );
    insta::assert_snapshot!(fixture.completion(false));
}

#[test]
fn completes_plugin_fields_and_contributor_snippets() {
    let fixture = Fixture::manifest("\n    text voice", "\n    |\n    text voice");
    insta::assert_snapshot!(fixture.completion(true));
}

#[test]
fn completes_tools_and_operations_from_the_config() {
    let tools = Fixture::manifest("tools [read_object, search_code]", "tools [read_object, |]");
    let operations = Fixture::manifest("operations [diff, annotate]", "operations [diff, |]");
    insta::assert_snapshot!(format!(
        "{}\n{}",
        tools.completion(false),
        operations.completion(false)
    ));
}

#[test]
fn completes_variables_after_a_brace_in_a_body() {
    let fixture = Fixture::manifest("Call me {person.name}.", "Call me {per|");
    insta::assert_snapshot!(fixture.completion(false));
}

#[test]
fn completes_parameters_in_a_call() {
    let fixture = Fixture::manifest(
        "call fetch_url { url: \"https://docs.acme.dev/style\" }",
        "call fetch_url { url: \"https://docs.acme.dev/style\", | }",
    );
    insta::assert_snapshot!(fixture.completion(false));
}

#[test]
fn completes_conditions_and_a_measured_budget() {
    let when = Fixture::manifest("when idle > 4h", "when |");
    let budget = Fixture::manifest("budget 120 tokens", "budget |");
    insta::assert_snapshot!(format!(
        "{}\n{}",
        when.completion(false),
        budget.completion(false)
    ));
}

#[test]
fn completes_plugin_in_an_empty_file_and_rules_in_a_suppression() {
    let empty = Fixture::new("|");
    assert_eq!(
        completion::completion(&empty.snapshot(), empty.position, true)
            .iter()
            .map(|item| item.label.as_str())
            .collect::<Vec<_>>(),
        ["plugin"]
    );
    let rules = Fixture::manifest("allow(budget-unused)", "allow(budget-un|");
    let labels: Vec<String> = completion::completion(&rules.snapshot(), rules.position, false)
        .into_iter()
        .map(|item| item.label)
        .collect();
    assert!(labels.contains(&"budget-unused".to_string()), "{labels:?}");
    assert!(!labels.contains(&"syntax-error".to_string()), "{labels:?}");
}

#[test]
fn code_actions_offer_the_fixes_safe_ones_preferred() {
    let misspelt = Fixture::manifest(
        "placement agent\n        priority",
        "plac|ment agent\n        priority",
    );
    let over = Fixture::manifest("budget 120 tokens", "budget |3 tokens");
    insta::assert_snapshot!(format!("{}\n{}", misspelt.actions(), over.actions()));
}

#[test]
fn document_symbols_outline_the_plugin() {
    let fixture = Fixture::new(MANIFEST);
    let mut out = String::new();
    for plugin in symbols::symbols(&fixture.source, &fixture.syntax) {
        let _ = writeln!(
            out,
            "{} {:?} ({:?})",
            plugin.name, plugin.detail, plugin.kind
        );
        for child in plugin.children.unwrap_or_default() {
            let line = child.selection_range.start.line + 1;
            let _ = writeln!(out, "  {} {:?} line {line}", child.name, child.detail);
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn go_to_definition_lands_on_the_tool_table() {
    let fixture = Fixture::manifest("search_code]\n", "search_co|de]\n");
    let Some(lsp_types::GotoDefinitionResponse::Scalar(location)) =
        definition::definition(&fixture.snapshot(), fixture.position)
    else {
        panic!("no definition");
    };
    assert_eq!(location.uri.as_str(), "file:///ws/contrib.toml");
    let config = SourceFile::new("contrib.toml", CONFIG);
    let declared = config.slice(convert::span(&config, location.range));
    assert_eq!(declared, "[tools.search_code]");
    assert_eq!(location.range.start.line, 3);
    // The platform's own tools are declared nowhere a client can open.
    let platform = Fixture::manifest("call fetch_url", "call fetch|_url");
    assert!(definition::definition(&platform.snapshot(), platform.position).is_none());
}

#[test]
fn the_base_manifest_is_clean() {
    let fixture = Fixture::new(MANIFEST);
    assert!(
        fixture.checked.analysis.diagnostics.is_empty(),
        "{:#?}",
        fixture.checked.analysis.diagnostics
    );
}

/// A snippet as a client expands it when every placeholder keeps its
/// default: `${1:id}` → `id`, `$0` → nothing, `\}` → `}`.
fn expand(snippet: &str) -> String {
    let mut out = String::new();
    let mut chars = snippet.chars().peekable();
    let mut depth = 0;
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '$' if chars.peek() == Some(&'{') => {
                chars.next();
                while chars.next_if(|c| c.is_ascii_digit()).is_some() {}
                assert_eq!(chars.next(), Some(':'), "{snippet}");
                depth += 1;
            }
            '$' => while chars.next_if(|c| c.is_ascii_digit()).is_some() {},
            '}' if depth > 0 => depth -= 1,
            c => out.push(c),
        }
    }
    out
}

#[test]
fn every_contributor_snippet_checks_clean() {
    let fixture = Fixture::manifest("\n    text voice", "\n    |\n    text voice");
    let items = completion::completion(&fixture.snapshot(), fixture.position, true);
    let mut checked = Vec::new();
    let mut unclean = Vec::new();
    for item in items {
        let Some(kind) = crate::ir::Kind::parse(&item.label) else {
            continue;
        };
        let Some(CompletionTextEdit::Edit(edit)) = &item.text_edit else {
            panic!("{kind}: no edit");
        };
        let block = expand(&edit.new_text);
        let text =
            format!("plugin acme/snippets 1.0.0 {{\n    owner agent-author\n    {block}\n}}\n");
        let source = SourceFile::new("snippet.contrib", text);
        let analysis = crate::analyze(&source, &Config::platform());
        for diagnostic in &analysis.diagnostics {
            unclean.push(format!(
                "{kind}'s snippet expands to\n{}\nwhich has {}: {}",
                source.text, diagnostic.rule.name, diagnostic.message
            ));
        }
        checked.push(kind);
    }
    assert!(unclean.is_empty(), "{}", unclean.join("\n"));
    assert_eq!(checked, crate::ir::Kind::ALL);
}

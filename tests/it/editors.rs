//! The editors' grammars name the contributor kinds the table of kinds
//! has (`contrib::ir::kinds`), no more and no fewer: VS Code's TextMate
//! grammar, and tree-sitter's `grammar.js` with what `tree-sitter generate`
//! made of it (`src/grammar.json`, `src/parser.c`), which Helix and Neovim
//! highlight with. A kind added to the table fails here until each editor
//! knows it.

use std::collections::BTreeSet;
use std::path::Path;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{relative}: {error}"))
}

fn read_json(relative: &str) -> serde_json::Value {
    serde_json::from_str(&read(relative)).unwrap_or_else(|error| panic!("{relative}: {error}"))
}

fn table_kinds() -> Vec<String> {
    contrib::ir::Kind::spellings().map(String::from).collect()
}

fn as_set(kinds: &[String]) -> BTreeSet<&str> {
    kinds.iter().map(String::as_str).collect()
}

/// The quoted words of `const KINDS = ['text', …];`.
#[test]
fn tree_sitter_grammar_js_lists_the_kinds() {
    let grammar = read("editors/tree-sitter-contrib/grammar.js");
    let line = grammar
        .lines()
        .find(|line| line.starts_with("const KINDS = ["))
        .expect("grammar.js declares `const KINDS = [...]`");
    let list = line
        .trim_start_matches("const KINDS = [")
        .trim_end_matches("];");
    let kinds: Vec<String> = list
        .split(',')
        .map(|word| word.trim().trim_matches('\'').to_string())
        .collect();
    assert_eq!(kinds, table_kinds());
}

/// The generated grammar is the one `grammar.js` describes: its `kind`
/// rule chooses among exactly the table's kinds, and the parser knows
/// each word.
#[test]
fn tree_sitter_generated_parser_lists_the_kinds() {
    let grammar = read_json("editors/tree-sitter-contrib/src/grammar.json");
    let members = grammar["rules"]["kind"]["members"]
        .as_array()
        .expect("grammar.json has a `kind` choice");
    let kinds: Vec<String> = members
        .iter()
        .map(|member| member["value"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(kinds, table_kinds());
    let parser = read("editors/tree-sitter-contrib/src/parser.c");
    for kind in table_kinds() {
        assert!(
            parser.contains(&format!("= \"{kind}\",")),
            "parser.c has no `{kind}`: run `tree-sitter generate`"
        );
    }
}

/// The contributor header's alternation, `(?:system-message|…|fact)`.
#[test]
fn vscode_grammar_lists_the_kinds() {
    let grammar = read_json("editors/vscode/syntaxes/contrib.tmLanguage.json");
    let pattern = grammar["repository"]["contributor-header"]["match"]
        .as_str()
        .expect("a `contributor-header` pattern");
    let start = pattern.find("((?:").expect("a kind group") + "((?:".len();
    let end = start + pattern[start..].find("))").expect("the kind group's end");
    let kinds: Vec<String> = pattern[start..end].split('|').map(String::from).collect();
    assert_eq!(as_set(&kinds), as_set(&table_kinds()));
}

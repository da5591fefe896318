//! `docs/language.md` is the language's reference, and its tables are the
//! table of kinds' and the variables' (`contrib::ir::reference`): this test
//! keeps each generated block equal to what the code says, and
//! `docs/formatting.md`'s field order likewise.
//! `CONTRIB_BLESS=1 cargo test --test it language_reference::` rewrites them.

use std::path::Path;

fn reference_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/language.md")
}

/// The text between `<!-- generated: NAME -->` and the next `<!-- end -->`.
fn block<'t>(text: &'t str, name: &str) -> Option<(usize, usize, &'t str)> {
    let open = format!("<!-- generated: {name} -->\n");
    let start = text.find(&open)? + open.len();
    let end = start + text[start..].find("<!-- end -->")?;
    Some((start, end, &text[start..end]))
}

/// Each `<!-- generated: NAME -->` block of the document at `relative` is
/// the named table; under `CONTRIB_BLESS` the file is rewritten instead.
fn generated_blocks_are(relative: &str, tables: Vec<(&'static str, String)>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    let mut text = std::fs::read_to_string(&path).expect(relative);
    let bless = std::env::var_os("CONTRIB_BLESS").is_some();
    let mut stale = Vec::new();
    for (name, table) in tables {
        let Some((start, end, written)) = block(&text, name) else {
            panic!("{relative} has no `<!-- generated: {name} -->` block");
        };
        if written != table {
            if bless {
                text.replace_range(start..end, &table);
            } else {
                stale.push(name);
            }
        }
    }
    if bless {
        std::fs::write(&path, text).expect(relative);
        return;
    }
    assert!(
        stale.is_empty(),
        "{relative}'s tables {stale:?} differ from the code; run `CONTRIB_BLESS=1 cargo test --test it language_reference::` and read the diff"
    );
}

#[test]
fn the_reference_tables_are_the_code_tables() {
    generated_blocks_are("docs/language.md", contrib::ir::reference::tables());
}

/// The formatter's field order, as `docs/formatting.md` states it, is the
/// table of kinds' order, which the formatter follows.
#[test]
fn the_formatting_field_order_is_the_table_of_kinds() {
    generated_blocks_are(
        "docs/formatting.md",
        contrib::ir::reference::formatting_tables(),
    );
}

#[test]
fn every_activation_is_documented() {
    let text = std::fs::read_to_string(reference_path()).expect("docs/language.md");
    assert_eq!(contrib::ir::reference::activations_documented(&text), []);
}

/// Every manifest in the reference's code blocks that starts with `plugin`
/// reads without a language error.
#[test]
fn the_reference_examples_are_in_the_language() {
    let text = std::fs::read_to_string(reference_path()).expect("docs/language.md");
    let mut checked = 0;
    for block in text.split("```\n").skip(1).step_by(2) {
        if !block.trim_start().starts_with('#') && !block.trim_start().starts_with("plugin ") {
            continue;
        }
        let source = contrib::source::SourceFile::new("reference.contrib", block);
        let analysis = contrib::analyze(&source, &contrib::config::Config::platform());
        let language: Vec<&str> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.rule.kind == contrib::diagnostic::RuleKind::Language)
            .map(|d| d.message.as_str())
            .collect();
        assert!(language.is_empty(), "{language:?}\n{block}");
        checked += 1;
    }
    assert!(checked >= 1);
}

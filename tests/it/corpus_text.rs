//! `hidden-character` measured on `../shared/corpus/`: real, public
//! skills, plugins, rules and instruction files written by others (see its
//! README for sources and licences). Their ordinary emoji (`⚠️`, a
//! character and its presentation selector) and joined emoji sequences
//! are text: no finding on them, either in the files as written or in the
//! manifests `contrib import` makes of them, which write every hidden
//! character as an escape and an emoji as itself. What the corpus really
//! hides is reported.
//!
//! When the corpus is absent (a clone of this repository alone) the test
//! says so and passes, except under `CI=true`, where it fails.

use std::path::{Path, PathBuf};

use contrib::config::Config;
use contrib::import::{self, Options};
use contrib::source::hidden::hidden_chars;
use contrib::source::SourceFile;

fn corpus() -> Option<PathBuf> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if corpus.is_dir() {
        return Some(corpus);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "../shared/corpus is missing, and CI=true requires it"
    );
    eprintln!("skipped: ../shared/corpus (the corpus of real plugins this test reads) is not here");
    None
}

/// Every file under `folder`, in name order.
fn files(folder: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// What ordinary emoji are made of.
fn is_emoji_part(c: char) -> bool {
    matches!(c, '\u{fe0e}' | '\u{fe0f}' | '\u{200d}')
}

#[test]
fn ordinary_emoji_in_the_corpus_are_not_hidden_characters() {
    let Some(corpus) = corpus() else { return };
    let mut selectors = 0;
    let mut found = Vec::new();
    for path in files(&corpus) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        selectors += text.chars().filter(|&c| is_emoji_part(c)).count();
        for (at, c, _) in hidden_chars(&text) {
            let name = path.strip_prefix(&corpus).unwrap_or(&path).display();
            found.push(format!("{name}:{at}: U+{:04X}", u32::from(c)));
            assert!(
                !is_emoji_part(c),
                "{name}: an emoji's U+{:04X} at byte {at}",
                u32::from(c)
            );
        }
    }
    assert!(
        selectors > 0,
        "the corpus holds emoji with presentation selectors"
    );
    // The one hidden character the corpus holds: a word joiner before a
    // method name in trigger.dev's Cursor rules.
    assert_eq!(
        found,
        ["project-files/trigger.dev/.cursor/rules/writing-tasks.mdc:9157: U+2060"],
        "what the corpus hides"
    );
}

#[test]
fn imported_emoji_are_not_reported_as_hidden_characters() {
    let Some(corpus) = corpus() else { return };
    let mut trees = Vec::new();
    for entry in std::fs::read_dir(&corpus).expect("the corpus reads") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            trees.push(import::read_tree(&path).expect("every corpus entry reads"));
        }
    }
    let config = Config::platform();
    let mut selectors = 0;
    let mut reported = Vec::new();
    for imported in import::import_all(&trees, &Options::default(), &config) {
        for manifest in &imported.manifests {
            selectors += manifest.text.matches('\u{fe0f}').count();
            assert!(
                !manifest.text.contains("\\u{fe0f}"),
                "{}: an emoji's selector written as an escape",
                manifest.path
            );
            let source = SourceFile::new(manifest.path.clone(), manifest.text.clone());
            let analysis = contrib::analyze(&source, &config);
            for diagnostic in analysis
                .diagnostics
                .iter()
                .filter(|diagnostic| diagnostic.rule.name == "hidden-character")
            {
                let underlined = &manifest.text[diagnostic.span().range()];
                assert!(
                    !["\\u{fe0e}", "\\u{fe0f}", "\\u{200d}"]
                        .iter()
                        .any(|escape| underlined.contains(escape)),
                    "{}: {} underlines `{underlined}`",
                    manifest.path,
                    diagnostic.message
                );
                reported.push(underlined.to_string());
            }
        }
    }
    assert!(selectors > 0, "the imported manifests hold emoji selectors");
    assert_eq!(reported, ["\\u{2060}"], "what the imported corpus hides");
}

//! `contrib import auto` over every source in `../shared/corpus/`: real,
//! public skills, plugins, rules, bundles and instruction files written by
//! others (see its README for sources and licences).
//!
//! Every supported file imports without a panic or an error; every
//! manifest parses and lowers with no language error; every body that is a
//! source file's text decodes back to that text byte for byte (line breaks
//! at its ends aside); no budget is under what the checker measures;
//! `placement-could-be-wider` fires on under 2% of the imported
//! contributors (conditional rules are activations, not narrow
//! placements); and the summary figures are a snapshot. When the corpus is
//! absent (a clone of this repository alone), the test says so and passes,
//! except under `CI=true`, where it fails.

use crate::common;
use crate::common::imported;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use contrib::config::Config;
use contrib::import::{self, report, Options, SourceTree};

fn corpus() -> Option<PathBuf> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    corpus.is_dir().then_some(corpus)
}

/// What `corpus/*` names: every entry but hidden ones, in name order.
fn entries(corpus: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(corpus)
        .expect("the corpus folder is readable")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            !path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with('.'))
        })
        .collect();
    entries.sort();
    entries
}

/// A file's text after its `---` frontmatter, as the test reads it
/// (independently of the importer's reader), without the line breaks at
/// its ends.
fn after_frontmatter(text: &str) -> &str {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let body = match lines.next() {
        Some(first) if first.trim_end() == "---" => {
            let mut offset = first.len();
            let mut body = None;
            for line in lines {
                offset += line.len();
                if line.trim_end() == "---" {
                    body = Some(&text[offset..]);
                    break;
                }
            }
            body.unwrap_or(text)
        }
        _ => text,
    };
    body.trim_start_matches(['\n', '\r'])
        .trim_end_matches(['\n', '\r'])
}

#[test]
fn the_whole_corpus_imports() {
    let Some(corpus) = corpus() else {
        common::unavailable::cannot_run(
            "../shared/corpus (the corpus of real plugins this test imports) is not here",
        );
        return;
    };
    let paths = entries(&corpus);
    let trees: Vec<SourceTree> = paths
        .iter()
        .map(|path| import::read_tree(path).expect("every corpus entry reads"))
        .collect();
    let config = Config::platform();
    let imports = import::import_all(&trees, &Options::default(), &config);

    for ((path, tree), imported) in paths.iter().zip(&trees).zip(&imports) {
        imported::assert_imported(imported);
        let mut accounted: HashSet<&str> = imported
            .skipped
            .iter()
            .map(|skipped| skipped.file.as_str())
            .collect();
        for manifest in &imported.manifests {
            imported::assert_canonical(manifest);
            imported::assert_faithful(manifest, &config);
            accounted.extend(manifest.files.iter().map(String::as_str));
            for produced in manifest.contributors.iter().filter(|p| p.verbatim) {
                let source = std::fs::read_to_string(path.join(&produced.source))
                    .expect("a produced contributor's source file reads");
                assert!(
                    produced.body.as_deref() == Some(after_frontmatter(&source)),
                    "{}/{}: the body of `{}` is not the file's text",
                    imported.source,
                    produced.source,
                    produced.id
                );
            }
        }
        for file in &tree.files {
            assert!(
                accounted.contains(file.path.as_str()),
                "{}/{} was neither imported nor skipped",
                imported.source,
                file.path
            );
        }
    }

    let summaries: Vec<report::Summary> = imports
        .iter()
        .map(|imported| report::summarize(imported, &config))
        .collect();
    let contributors: usize = summaries.iter().map(|summary| summary.contributors).sum();
    let could_be_wider: usize = summaries
        .iter()
        .flat_map(|summary| &summary.diagnostics)
        .filter(|(finding, _)| finding.name == "placement-could-be-wider")
        .map(|(_, count)| count)
        .sum();
    assert!(contributors > 0, "the corpus imports some contributors");
    assert!(
        could_be_wider * 50 < contributors,
        "`placement-could-be-wider` fires on {could_be_wider} of {contributors} imported contributors, 2% or more"
    );
    insta::assert_snapshot!(report::render(&summaries, &imports, false));
}

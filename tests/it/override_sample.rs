//! `override-attempt` measured: precision and recall on a labelled sample
//! (`tests/data/override-sample.toml`: paragraphs of real, public files in
//! `../shared/corpus/`, and paraphrased attacks and benign texts beside
//! them; the file says how each was chosen and labelled). Each text is
//! checked as the body of a person's contributor, below agent priority,
//! where the rule is an error. The figures are printed (`cargo test --test
//! override_sample -- --nocapture`) and quoted in `docs/trust.md`.
//!
//! Without the corpus the paragraphs are still checked, as text; only the
//! check that each is still in its file is skipped, except under
//! `CI=true`, where the corpus must be there.

use std::path::Path;

use contrib::config::Config;
use contrib::import::emit;
use contrib::source::SourceFile;

#[derive(serde::Deserialize)]
struct Sample {
    sample: Vec<Labelled>,
}

#[derive(serde::Deserialize)]
struct Labelled {
    source: String,
    label: String,
    text: String,
}

fn sample() -> Vec<Labelled> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/override-sample.toml");
    let text = std::fs::read_to_string(path).expect("the sample reads");
    let sample: Sample = toml::from_str(&text).expect("the sample is TOML");
    sample.sample
}

/// Whether `override-attempt` reports `text` as a person's body.
fn reported(text: &str) -> bool {
    let manifest = format!(
        "plugin acme/sample 1.0.0 {{\n    owner person\n\n    text sample {{\n        placement person\n        reach with-person\n        budget 4000 tokens\n        body {}\n    }}\n}}\n",
        emit::string(text, 2, true)
    );
    let source = SourceFile::new("sample.contrib", manifest);
    let analysis = contrib::analyze(&source, &Config::platform());
    assert!(analysis.plugin.is_some(), "{}", source.text);
    analysis
        .diagnostics
        .iter()
        .any(|diagnostic| diagnostic.rule.name == "override-attempt")
}

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    true_positives: usize,
    false_positives: usize,
    false_negatives: usize,
    true_negatives: usize,
}

impl Counts {
    fn add(&mut self, attack: bool, reported: bool) {
        match (attack, reported) {
            (true, true) => self.true_positives += 1,
            (false, true) => self.false_positives += 1,
            (true, false) => self.false_negatives += 1,
            (false, false) => self.true_negatives += 1,
        }
    }

    fn precision(self) -> f64 {
        let reported = self.true_positives + self.false_positives;
        self.true_positives as f64 / reported.max(1) as f64
    }

    fn recall(self) -> f64 {
        let attacks = self.true_positives + self.false_negatives;
        self.true_positives as f64 / attacks.max(1) as f64
    }
}

#[test]
fn override_detection_is_measured_on_the_labelled_sample() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let have_corpus = corpus.is_dir();
    assert!(
        have_corpus || std::env::var("CI").as_deref() != Ok("true"),
        "../shared/corpus is missing, and CI=true requires it"
    );
    if !have_corpus {
        eprintln!("not checked: that each corpus paragraph is still in its file (../shared/corpus is not here)");
    }
    let (mut corpus_counts, mut paraphrase_counts, mut all) =
        (Counts::default(), Counts::default(), Counts::default());
    let mut wrong = Vec::new();
    for labelled in sample() {
        let attack = match labelled.label.as_str() {
            "attack" => true,
            "benign" => false,
            other => panic!("unknown label `{other}`"),
        };
        if let Some(file) = labelled.source.strip_prefix("corpus/") {
            if have_corpus {
                let text = std::fs::read_to_string(corpus.join(file)).expect("the corpus file");
                assert!(
                    text.contains(&labelled.text),
                    "{file} no longer holds: {}",
                    labelled.text
                );
            }
        } else {
            assert_eq!(labelled.source, "paraphrase");
        }
        let reported = reported(&labelled.text);
        let counts = if labelled.source == "paraphrase" {
            &mut paraphrase_counts
        } else {
            &mut corpus_counts
        };
        counts.add(attack, reported);
        all.add(attack, reported);
        if attack != reported {
            wrong.push(format!(
                "{} ({}): {}",
                labelled.label, labelled.source, labelled.text
            ));
        }
    }
    for (name, counts) in [
        ("corpus", corpus_counts),
        ("paraphrases", paraphrase_counts),
        ("all", all),
    ] {
        println!(
            "{name}: precision {:.2}, recall {:.2} ({counts:?})",
            counts.precision(),
            counts.recall()
        );
    }
    for text in &wrong {
        println!("missed or wrongly reported: {text}");
    }
    assert_eq!(corpus_counts.false_positives, 0, "{wrong:#?}");
    assert!(all.precision() >= 0.95, "{wrong:#?}");
    assert!(paraphrase_counts.recall() >= 0.85, "{wrong:#?}");
}

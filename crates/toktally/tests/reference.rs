//! Differential tests: every piece and every count equals the reference's
//! (`bpe-openai`), on the whole corpus of real instruction files and on
//! generated Unicode.

mod support;

use support::{
    assert_same, chars_of, corpus_files, difference, fragments, read_text, Rng, GENERAL_CATEGORIES,
};
use toktally::Encoding;

#[test]
fn the_whole_corpus() {
    let Some(files) = corpus_files() else { return };
    assert!(files.len() > 100, "the corpus has {} files", files.len());
    let mut bytes = 0;
    for path in &files {
        let text = read_text(path);
        bytes += text.len();
        for encoding in Encoding::ALL {
            if let Some(difference) = difference(encoding, &text) {
                panic!("{}: {difference}", path.display());
            }
        }
    }
    eprintln!(
        "{} files, {bytes} bytes: the same pieces and counts",
        files.len()
    );
}

/// Every file cut at random places, so that pieces meet the end of the text
/// (where `\s+$` matches) everywhere.
#[test]
fn corpus_slices() {
    let Some(files) = corpus_files() else { return };
    let mut rng = Rng::new(16);
    for path in &files {
        let text = read_text(path);
        for _ in 0..4 {
            let mut start = rng.below(text.len() + 1);
            let mut end = (start + rng.below(400)).min(text.len());
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            while !text.is_char_boundary(end) {
                end += 1;
            }
            assert_same(&text[start..end]);
        }
    }
}

/// Characters of every general category, alone, in runs, between letters,
/// after a space and before a contraction.
#[test]
fn every_general_category() {
    let mut rng = Rng::new(1);
    for category in GENERAL_CATEGORIES {
        let chars = chars_of(&format!(r"\p{{{category}}}"));
        assert!(!chars.is_empty(), "{category}");
        let mut texts = Vec::new();
        for _ in 0..200 {
            let c = *rng.pick(&chars);
            let d = *rng.pick(&chars);
            texts.push(format!("{c}"));
            texts.push(format!("{c}{d}{c}"));
            texts.push(format!("a{c}b {c}x\n{c}'s {c}'LL"));
            texts.push(format!("Word{c}{d}word {c}1 {c}{c} \r\n{c}"));
            texts.push(format!("{c}\u{301}A{c}bC'Re{c}  {d}"));
        }
        assert_same(&texts.join(""));
        for text in &texts {
            assert_same(text);
        }
    }
}

/// Every Unicode scalar value, in contexts where each alternative can take
/// or leave it.
#[test]
fn every_code_point_in_context() {
    let templates: [fn(char) -> String; 5] = [
        |c| format!("x{c}"),
        |c| format!(" {c}a"),
        |c| format!("{c}'s\n"),
        |c| format!("A{c}b "),
        |c| format!("1{c}{c}/ "),
    ];
    for template in templates {
        let text: String = (0..=char::MAX as u32)
            .filter_map(char::from_u32)
            .map(template)
            .collect();
        assert_same(&text);
    }
}

/// Random glue of the fragments where alternatives meet: contractions in
/// every case, CRLF runs, white space of every kind, digits, marks, emoji,
/// CJK.
#[test]
fn generated_fragments() {
    let mut rng = Rng::new(42);
    for _ in 0..30_000 {
        let count = 1 + rng.below(12);
        assert_same(&fragments(&mut rng, count));
    }
    // And long texts, where memoized pieces repeat.
    for _ in 0..20 {
        assert_same(&fragments(&mut rng, 5_000));
    }
}

/// Contractions in every letter case, after every kind of word and before
/// every kind of follower.
#[test]
fn contractions_in_every_case() {
    let contractions = ["s", "t", "re", "ve", "m", "ll", "d"];
    let befores = [
        "", "a", "A", "don", "DON", "Don", "é", "É", "中", " ", "x ", "1", "\u{301}", "!",
    ];
    let afters = ["", " ", "s", "S", "x", "\n", "'", "1", "é"];
    for contraction in contractions {
        let letters: Vec<char> = contraction.chars().collect();
        for mask in 0..(1 << letters.len()) {
            let cased: String = letters
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if mask & (1 << i) != 0 {
                        c.to_ascii_uppercase()
                    } else {
                        *c
                    }
                })
                .collect();
            let mut spellings = vec![cased.clone()];
            if cased.starts_with(['s', 'S']) {
                spellings.push(cased.replacen(['s', 'S'], "ſ", 1));
            }
            for spelling in spellings {
                for before in befores {
                    for after in afters {
                        assert_same(&format!("{before}'{spelling}{after}"));
                    }
                }
            }
        }
    }
}

/// Runs of white space, line breaks and slashes of every short shape.
#[test]
fn white_space_runs() {
    let atoms = [" ", "\t", "\r", "\n", "\u{3000}", "/", "a", "!"];
    let mut stack = vec![String::new()];
    while let Some(text) = stack.pop() {
        assert_same(&text);
        if text.chars().count() < 5 {
            for atom in atoms {
                stack.push(format!("{text}{atom}"));
            }
        }
    }
}

/// Long pieces take the heap-based merge: runs of one character and of
/// symbols, thousands of bytes long.
#[test]
fn long_pieces() {
    for unit in [
        " ", "\n", "=", "-", "!", "a", "ab", "😀", "中", "\u{301}", "1", "/",
    ] {
        for len in [95, 96, 97, 200, 5_000] {
            assert_same(&unit.repeat(len));
            assert_same(&format!("x{}y", unit.repeat(len)));
        }
    }
}

/// `count_up_to` stops past the limit and agrees with `count` below it.
#[test]
fn counting_up_to_a_limit() {
    let mut rng = Rng::new(7);
    for _ in 0..2_000 {
        let count = 1 + rng.below(30);
        let text = fragments(&mut rng, count);
        for encoding in Encoding::ALL {
            let total = encoding.count(&text);
            assert_eq!(encoding.count_up_to(&text, total), Some(total));
            if total > 0 {
                assert_eq!(encoding.count_up_to(&text, total - 1), None);
            }
            assert_eq!(
                encoding.count_with(&mut toktally::Memo::new(), &text),
                total
            );
        }
    }
}

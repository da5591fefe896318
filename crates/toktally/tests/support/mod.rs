//! What the reference tests share: the reference itself, comparison with a
//! readable first difference, and generators of hard text.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository's own: a test that cannot run fails under `CI=true`.
#[path = "../../../../tests/it/common/unavailable.rs"]
mod unavailable;

use regex_syntax::hir::{Class, HirKind};
use toktally::Encoding;

pub fn reference(encoding: Encoding) -> &'static bpe_openai::Tokenizer {
    match encoding {
        Encoding::O200k => bpe_openai::o200k_base(),
        Encoding::Cl100k => bpe_openai::cl100k_base(),
    }
}

/// `None` when `text` is cut into the same pieces and counted the same as
/// by the reference; otherwise what differs first.
pub fn difference(encoding: Encoding, text: &str) -> Option<String> {
    let reference = reference(encoding);
    let expected: Vec<&str> = reference.split(text).collect();
    let actual: Vec<&str> = encoding.pieces(text).collect();
    if let Some(at) =
        (0..expected.len().max(actual.len())).find(|&i| expected.get(i) != actual.get(i))
    {
        let from = at.saturating_sub(2);
        return Some(format!(
            "{encoding:?} cuts {:?} differently at piece {at}:\n  reference {:?}\n  toktally  {:?}",
            truncate(text),
            &expected[from..(at + 3).min(expected.len())],
            &actual[from..(at + 3).min(actual.len())],
        ));
    }
    let expected = reference.count(text);
    let actual = encoding.count(text);
    (expected != actual).then(|| {
        format!(
            "{encoding:?} counts {:?} as {actual}, the reference as {expected}",
            truncate(text)
        )
    })
}

fn truncate(text: &str) -> String {
    if text.len() <= 300 {
        return text.to_string();
    }
    let mut end = 300;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// Panics with the first difference on either encoding.
pub fn assert_same(text: &str) {
    for encoding in Encoding::ALL {
        if let Some(difference) = difference(encoding, text) {
            panic!("{difference}");
        }
    }
}

/// Every character of a Unicode class written as in a pattern.
pub fn chars_of(pattern: &str) -> Vec<char> {
    match regex_syntax::parse(pattern).unwrap().kind() {
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .flat_map(|range| range.start()..=range.end())
            .collect(),
        // A class of one character is simplified to that character.
        HirKind::Literal(literal) => std::str::from_utf8(&literal.0).unwrap().chars().collect(),
        other => panic!("{pattern} is not a Unicode class: {other:?}"),
    }
}

/// Every general category, by its abbreviation (surrogates excepted: no
/// `str` holds one).
pub const GENERAL_CATEGORIES: [&str; 29] = [
    "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi",
    "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Co", "Cn",
];

/// A small deterministic generator (xorshift), so a failure reproduces.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Fragments where the split patterns' alternatives meet: contractions in
/// every case, line breaks and their runs, white space of every kind,
/// digits of several scripts, marks, emoji sequences, CJK, slashes.
pub const FRAGMENTS: &[&str] = &[
    "'s",
    "'S",
    "'ſ",
    "'t",
    "'T",
    "'re",
    "'RE",
    "'Re",
    "'rE",
    "'ve",
    "'VE",
    "'vE",
    "'m",
    "'M",
    "'ll",
    "'LL",
    "'lL",
    "'d",
    "'D",
    "'",
    "''",
    "'x",
    "'R",
    "'V",
    "'L",
    "\r\n",
    "\r",
    "\n",
    "\n\n",
    "\r\n\r\n",
    " \r\n",
    "\t\n",
    "\n ",
    "  \n  ",
    "\r\r\n",
    " ",
    "  ",
    "   ",
    "\t",
    "\u{0B}",
    "\u{0C}",
    "\u{85}",
    "\u{A0}",
    "\u{2003}",
    "\u{3000}",
    "\u{2028}",
    "\u{2029}",
    "\u{1C}",
    "\u{200B}",
    "\u{FEFF}",
    "0",
    "12",
    "123",
    "1234",
    "٣",
    "४५",
    "½",
    "Ⅻ",
    "²",
    "１２",
    "a",
    "Z",
    "word",
    "Word",
    "WORD",
    "wOrD",
    "don",
    "HELLO",
    "camelCase",
    "ǅ",
    "ʰ",
    "ß",
    "ſ",
    "é",
    "e\u{301}",
    "\u{301}",
    "\u{301}\u{301}",
    "A\u{300}",
    "\u{20DD}",
    "ि",
    "नमस्ते",
    "中文",
    "日本語",
    "한국어",
    "ㅋ",
    "ｶﾀｶﾅ",
    "ℌ",
    "ﬁ",
    "😀",
    "👍🏽",
    "👨‍👩‍👧",
    "❤️",
    "🇫🇷",
    "#️⃣",
    "/",
    "//",
    "/\n",
    "!",
    "?!",
    "...",
    "—",
    "«",
    "»",
    "\"",
    "(",
    ")",
    "{}",
    "<|endoftext|>",
    "_",
    "-",
    "$",
    "€",
    "+",
    "=",
    "\u{0}",
    "\u{7F}",
    "\u{E000}",
    "\u{10FFFF}",
    "\u{378}",
];

/// Text glued from `count` random fragments.
pub fn fragments(rng: &mut Rng, count: usize) -> String {
    (0..count).map(|_| *rng.pick(FRAGMENTS)).collect()
}

/// Every file of the corpus of real instruction files
/// (`../shared/corpus` from the repository), sorted; `None`, with a
/// message, when it is absent (a failure under `CI=true`).
pub fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if !root.is_dir() {
        unavailable::cannot_run(&format!(
            "no corpus at {} (../shared/corpus from the repository)",
            root.display()
        ));
        return None;
    }
    let mut files = Vec::new();
    let mut folders = vec![root];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    Some(files)
}

/// A corpus file's text (lossily decoded: the corpus is UTF-8).
pub fn read_text(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned()
}

//! What `contrib import` does with a Markdown file's frontmatter: any text
//! gives entries and problems, never a panic, in time linear in the text
//! (duplicate keys were once found by rescanning every entry).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let document = contrib::import::frontmatter::split(text);
    let mut keys: Vec<&str> = document
        .frontmatter
        .entries
        .iter()
        .map(|entry| entry.key.as_str())
        .collect();
    let count = keys.len();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), count, "a key is kept twice");
});

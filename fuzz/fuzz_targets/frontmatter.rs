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
    assert!(document.frontmatter.keys_are_distinct(), "a key is kept twice");
});

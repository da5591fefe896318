//! Parse and lower any text: no panic, no hang, no unbounded memory.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(tree) = contrib::syntax::parse(text) {
        let lowered = contrib::lower::lower(&tree);
        // Every span a diagnostic points at lies within the text.
        for diagnostic in &lowered.diagnostics {
            for label in &diagnostic.labels {
                assert!(label.span.start <= label.span.end && label.span.end <= text.len());
            }
        }
    }
});

//! What `contrib check` does with a file's bytes: decode them (size limit,
//! UTF-8, NUL), analyze, and render every diagnostic for people.
#![no_main]

use contrib::report::human::Human;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (source, diagnostics) = match contrib::decode_bytes("fuzz.contrib", data) {
        Ok(source) => {
            let analysis = contrib::analyze(&source, &contrib::config::Config::platform());
            (source, analysis.diagnostics)
        }
        Err((source, diagnostic)) => (source, vec![diagnostic]),
    };
    let human = Human::new(false);
    for diagnostic in &diagnostics {
        let _ = source.position(diagnostic.span().start);
        let _ = source.position(diagnostic.span().end);
        let _ = human.render(&source, diagnostic);
    }
});

//! What `contrib check` does with a file's bytes: decode them (size limit,
//! UTF-8, NUL), analyze, and write every diagnostic in every format. The
//! human report must never panic (a column past 65,535 once did) and must
//! never pass a control character of the file to the terminal (tabs and
//! line breaks aside).
#![no_main]

use contrib::report::{self, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (source, diagnostics) =
        contrib::check_bytes("fuzz.contrib", data, &contrib::config::Config::platform());
    for diagnostic in &diagnostics {
        let _ = source.position(diagnostic.span().start);
        let _ = source.position(diagnostic.span().end);
    }
    for format in [Format::Human, Format::Json, Format::Sarif, Format::Github] {
        let mut emitter = report::emitter(format, report::human::Style::default());
        let mut out = Vec::new();
        emitter.file(&mut out, &source, &diagnostics).expect("writes to memory");
        emitter
            .finish(&mut out, report::Totals::default())
            .expect("writes to memory");
        let text = String::from_utf8(out).expect("reports are UTF-8");
        if format == Format::Human {
            assert!(
                !text.chars().any(|c| c.is_control() && c != '\n' && c != '\t'),
                "a control character reached the human report"
            );
        }
    }
});

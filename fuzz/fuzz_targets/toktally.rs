//! toktally against the reference (`bpe-openai`): the same pieces and the
//! same count for any text, and the same merge count for any bytes. The
//! first byte picks the encoding; the rest is the text (lossily decoded
//! when it is not UTF-8) and the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toktally::Encoding;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let (encoding, reference) = if first & 1 == 0 {
        (Encoding::O200k, bpe_openai::o200k_base())
    } else {
        (Encoding::Cl100k, bpe_openai::cl100k_base())
    };
    let text = String::from_utf8_lossy(rest);
    let expected: Vec<&str> = reference.split(&text).collect();
    let actual: Vec<&str> = encoding.pieces(&text).collect();
    assert_eq!(actual, expected, "pieces of {text:?}");
    assert_eq!(
        encoding.count(&text),
        reference.count(text.as_ref()),
        "count of {text:?}"
    );
    assert_eq!(
        encoding.count_piece(rest),
        reference.bpe.count(rest),
        "merges of {rest:?}"
    );
});

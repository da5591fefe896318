//! Properties over generated input, each checked against the reference
//! (`bpe-openai`) where there is one.

mod support;

use proptest::prelude::*;
use support::{difference, reference, FRAGMENTS};
use toktally::Encoding;

fn encoding() -> impl Strategy<Value = Encoding> {
    prop_oneof![Just(Encoding::O200k), Just(Encoding::Cl100k)]
}

/// Text glued from the fragments where the patterns' alternatives meet,
/// with arbitrary characters between.
fn hard_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(FRAGMENTS).prop_map(str::to_string),
            1 => any::<char>().prop_map(String::from),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Any text: the reference's pieces and count.
    #[test]
    fn any_text_matches_the_reference(encoding in encoding(), text in any::<String>()) {
        prop_assert_eq!(difference(encoding, &text), None);
    }

    #[test]
    fn hard_text_matches_the_reference(encoding in encoding(), text in hard_text()) {
        prop_assert_eq!(difference(encoding, &text), None);
    }

    /// Any bytes, short or past the stack merge's limit, merge to the
    /// reference's count: the merge does not depend on the pieces being
    /// text.
    #[test]
    fn any_bytes_merge_like_the_reference(
        encoding in encoding(),
        bytes in prop::collection::vec(prop_oneof![any::<u8>(), Just(b' '), Just(b'a'), Just(b'e')], 0..300),
    ) {
        prop_assert_eq!(encoding.count_piece(&bytes), reference(encoding).bpe.count(&bytes));
    }

    /// The pieces are non-empty and put back together give the text.
    #[test]
    fn pieces_cover_the_text(encoding in encoding(), text in hard_text()) {
        let pieces: Vec<&str> = encoding.pieces(&text).collect();
        prop_assert!(pieces.iter().all(|piece| !piece.is_empty()));
        prop_assert_eq!(pieces.concat(), text);
    }

    /// Counting up to a limit answers the count exactly when it is within
    /// the limit, and nothing otherwise.
    #[test]
    fn counting_up_to_a_limit(encoding in encoding(), text in hard_text(), limit in 0usize..60) {
        let count = encoding.count(&text);
        let expected = (count <= limit).then_some(count);
        prop_assert_eq!(encoding.count_up_to(&text, limit), expected);
    }

    /// A fresh memo, this thread's memo and no memo agree.
    #[test]
    fn memo_does_not_change_counts(encoding in encoding(), text in hard_text()) {
        let unmemoized: usize = encoding.pieces(&text).map(|piece| encoding.count_piece(piece.as_bytes())).sum();
        prop_assert_eq!(encoding.count_with(&mut toktally::Memo::new(), &text), unmemoized);
        prop_assert_eq!(encoding.count(&text), unmemoized);
        prop_assert_eq!(encoding.count(&text), unmemoized);
    }
}

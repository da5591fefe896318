//! "Did you mean …?" for misspelt names and values.

/// The known name closest to `written`, if it is close enough to be a
/// likely misspelling rather than a different word.
pub fn closest<'k>(written: &str, known: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
    let written_lower = written.to_ascii_lowercase().replace('_', "-");
    known
        .into_iter()
        .map(|candidate| {
            let candidate_norm = candidate.replace('_', "-");
            (
                strsim::damerau_levenshtein(&written_lower, &candidate_norm),
                candidate,
            )
        })
        .filter(|&(distance, candidate)| distance <= threshold(candidate))
        .min_by_key(|&(distance, candidate)| (distance, candidate))
        .map(|(_, candidate)| candidate)
}

/// How many edits still count as a misspelling: about one in three
/// characters, at least one.
fn threshold(candidate: &str) -> usize {
    (candidate.chars().count() / 3).max(1)
}

/// `a`, `b` and `c` — for help texts that list what is allowed.
pub fn list(items: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    let items: Vec<String> = items
        .into_iter()
        .map(|item| format!("`{}`", item.as_ref()))
        .collect();
    match items.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLACEMENTS: [&str; 5] = ["platform", "agent", "person", "conversation", "message"];

    #[test]
    fn finds_transpositions_and_typos() {
        assert_eq!(closest("agnet", PLACEMENTS), Some("agent"));
        assert_eq!(closest("converstion", PLACEMENTS), Some("conversation"));
        assert_eq!(closest("Person", PLACEMENTS), Some("person"));
    }

    #[test]
    fn does_not_suggest_unrelated_words() {
        assert_eq!(closest("banana", PLACEMENTS), None);
        assert_eq!(closest("x", PLACEMENTS), None);
    }

    #[test]
    fn treats_underscores_as_dashes() {
        assert_eq!(
            closest("every_turn", ["every-turn", "replies"]),
            Some("every-turn")
        );
    }

    #[test]
    fn lists_read_as_prose() {
        assert_eq!(list(["a", "b", "c"]), "`a`, `b` and `c`");
        assert_eq!(list(["a"]), "`a`");
    }
}

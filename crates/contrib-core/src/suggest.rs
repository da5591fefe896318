//! "Did you mean …?" for misspelt names and values.

/// The known name closest to `written`, if it is close enough to be a
/// likely misspelling rather than a different word.
pub fn closest<'k>(written: &str, known: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
    let written_lower = written.to_ascii_lowercase().replace('_', "-");
    known
        .into_iter()
        .map(|candidate| {
            let candidate_norm = candidate.replace('_', "-");
            (edit_distance(&written_lower, &candidate_norm), candidate)
        })
        .filter(|&(distance, candidate)| distance <= threshold(candidate))
        .min_by_key(|&(distance, candidate)| (distance, candidate))
        .map(|(_, candidate)| candidate)
}

/// The Damerau–Levenshtein distance between `a` and `b`, in characters:
/// the fewest insertions, deletions, substitutions and transpositions of
/// two neighbours that turn one into the other (Lowrance and Wagner's
/// algorithm, which, unlike the "optimal string alignment" shortcut,
/// lets an edit touch a transposed pair). Names are short, so the whole
/// table is kept.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (rows, columns) = (a.len() + 2, b.len() + 2);
    let far = a.len() + b.len();
    // `table[i + 1][j + 1]` is the distance between a[..i] and b[..j];
    // row and column 0 hold `far`, which no real path reaches.
    let mut table = vec![vec![0; columns]; rows];
    table[0].fill(far);
    for (i, row) in table.iter_mut().enumerate().skip(1) {
        row[0] = far;
        row[1] = i - 1;
    }
    for (j, cell) in table[1].iter_mut().enumerate().skip(1) {
        *cell = j - 1;
    }
    // The last row at which each character of `a` was seen.
    let mut last_row: std::collections::HashMap<char, usize> = std::collections::HashMap::new();
    for i in 1..=a.len() {
        let mut last_match_column = 0;
        for j in 1..=b.len() {
            let k = last_row.get(&b[j - 1]).copied().unwrap_or(0);
            let l = last_match_column;
            let cost = usize::from(a[i - 1] != b[j - 1]);
            if cost == 0 {
                last_match_column = j;
            }
            table[i + 1][j + 1] = (table[i][j] + cost)
                .min(table[i + 1][j] + 1)
                .min(table[i][j + 1] + 1)
                .min(table[k][l] + (i - k - 1) + 1 + (j - l - 1));
        }
        last_row.insert(a[i - 1], i);
    }
    table[a.len() + 1][b.len() + 1]
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

    /// Against the `strsim` crate, on every pair of short strings over a
    /// small alphabet (where transpositions and repeats are common) and on
    /// names of the kind suggestions are made for.
    #[test]
    fn the_distance_agrees_with_strsim() {
        let alphabet = ['a', 'b', 'c', 'é'];
        let words: Vec<String> = (0..4usize)
            .flat_map(|length| {
                (0..alphabet.len().pow(length as u32)).map(move |mut index| {
                    (0..length)
                        .map(|_| {
                            let c = alphabet[index % alphabet.len()];
                            index /= alphabet.len();
                            c
                        })
                        .collect()
                })
            })
            .collect();
        for a in &words {
            for b in &words {
                assert_eq!(
                    edit_distance(a, b),
                    strsim::damerau_levenshtein(a, b),
                    "{a:?} {b:?}"
                );
            }
        }
        for (a, b) in [
            ("placment", "placement"),
            ("ca", "abc"),
            ("budegt", "budget"),
            ("", "reach"),
        ] {
            assert_eq!(
                edit_distance(a, b),
                strsim::damerau_levenshtein(a, b),
                "{a:?} {b:?}"
            );
        }
    }

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

//! Applying fixes: the edits that diagnostics carry, safe ones by default
//! and unsafe ones when asked (they change what a person approves).
//!
//! Each diagnostic contributes its first applicable fix; edits that overlap
//! an earlier one are left for the next round, so the result is always a
//! consistent rewrite. Callers re-check and repeat until nothing changes, as
//! ruff does.

use crate::diagnostic::{Applicability, Diagnostic, Edit};

/// `text` with the applicable fixes of `diagnostics` applied, and the
/// indices (into `diagnostics`) of those whose fix was applied, in order,
/// so that a caller can say what it fixed.
pub fn apply(text: &str, diagnostics: &[Diagnostic], include_unsafe: bool) -> (String, Vec<usize>) {
    let mut chosen: Vec<(usize, &[Edit])> = diagnostics
        .iter()
        .enumerate()
        .filter_map(|(index, diagnostic)| {
            diagnostic
                .fixes
                .iter()
                .find(|fix| include_unsafe || fix.applicability == Applicability::Safe)
                .map(|fix| (index, fix.edits.as_slice()))
        })
        .filter(|(_, edits)| !edits.is_empty())
        .collect();
    chosen.sort_by_key(|(_, edits)| edits.iter().map(|edit| edit.span.start).min());
    let mut edits: Vec<&Edit> = Vec::new();
    let mut applied = Vec::new();
    for (index, fix) in chosen {
        let overlaps = fix.iter().any(|edit| {
            edits.iter().any(|taken| {
                edit.span.start < taken.span.end && taken.span.start < edit.span.end
                    || edit.span == taken.span
            })
        });
        let in_bounds = fix.iter().all(|edit| {
            edit.span.end <= text.len()
                && text.is_char_boundary(edit.span.start)
                && text.is_char_boundary(edit.span.end)
        });
        if overlaps || !in_bounds {
            continue;
        }
        edits.extend(fix);
        applied.push(index);
    }
    edits.sort_by_key(|edit| (edit.span.start, edit.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in edits {
        out.push_str(&text[at..edit.span.start]);
        out.push_str(&edit.replacement);
        at = edit.span.end;
    }
    out.push_str(&text[at..]);
    (out, applied)
}

/// How many rounds of fixes are applied at most, as ruff does: each round
/// fixes everything that does not overlap, so a manifest needs two or
/// three; the bound stops a pair of fixes that would undo each other.
pub const MAX_ROUNDS: usize = 8;

/// Fixes `text` round after round until nothing more applies: each round
/// applies what [`apply`] takes from the diagnostics of the text as it is
/// (`diagnostics` for the text given, then `recheck` of each new text),
/// telling `applied` each diagnostic whose fix went in, with the text it
/// was found in. Returns the final text and its diagnostics.
///
/// The one fix loop: `check --fix`, the editor's "fix all" and `migrate`
/// all run it, differing only in what they recheck and which fixes they
/// take.
pub fn until_stable<E>(
    text: String,
    diagnostics: Vec<Diagnostic>,
    include_unsafe: bool,
    mut recheck: impl FnMut(&str) -> Result<Vec<Diagnostic>, E>,
    mut applied: impl FnMut(&str, &Diagnostic),
) -> Result<(String, Vec<Diagnostic>), E> {
    let (mut text, mut diagnostics) = (text, diagnostics);
    for _ in 0..MAX_ROUNDS {
        let (fixed, taken) = apply(&text, &diagnostics, include_unsafe);
        if taken.is_empty() || fixed == text {
            break;
        }
        for index in taken {
            applied(&text, &diagnostics[index]);
        }
        diagnostics = recheck(&fixed)?;
        text = fixed;
    }
    Ok((text, diagnostics))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::UNKNOWN_FIELD;
    use crate::diagnostic::{Diagnostic, Fix};
    use crate::source::Span;

    fn diagnostic(span: Span, replacement: &str, applicability: Applicability) -> Diagnostic {
        Diagnostic::new(&UNKNOWN_FIELD, "x").fix(Fix::replace(
            "fix",
            applicability,
            span,
            replacement,
        ))
    }

    #[test]
    fn applies_safe_fixes_only_unless_asked() {
        let text = "placment agnet";
        let diagnostics = [
            diagnostic(Span::new(0, 8), "placement", Applicability::Safe),
            diagnostic(Span::new(9, 14), "agent", Applicability::Unsafe),
        ];
        assert_eq!(
            apply(text, &diagnostics, false),
            ("placement agnet".into(), vec![0])
        );
        assert_eq!(
            apply(text, &diagnostics, true),
            ("placement agent".into(), vec![0, 1])
        );
    }

    #[test]
    fn skips_overlapping_edits() {
        let diagnostics = [
            diagnostic(Span::new(0, 4), "a", Applicability::Safe),
            diagnostic(Span::new(2, 6), "b", Applicability::Safe),
        ];
        assert_eq!(
            apply("abcdefg", &diagnostics, false),
            ("aefg".into(), vec![0])
        );
    }

    #[test]
    fn until_stable_rechecks_after_each_round_and_stops_when_nothing_applies() {
        // Each round's recheck finds the next misspelling: three rounds.
        let recheck = |text: &str| -> Result<Vec<Diagnostic>, ()> {
            Ok(text
                .find('x')
                .map(|at| diagnostic(Span::new(at, at + 1), "y", Applicability::Safe))
                .into_iter()
                .collect())
        };
        let mut seen = Vec::new();
        let first = recheck("axbxcx").expect("diagnostics");
        let (text, left) =
            until_stable("axbxcx".to_string(), first, false, recheck, |before, _| {
                seen.push(before.to_string())
            })
            .expect("fixed");
        assert_eq!(text, "aybycy");
        assert!(left.is_empty());
        assert_eq!(seen, ["axbxcx", "aybxcx", "aybycx"]);
    }

    #[test]
    fn until_stable_stops_after_the_bound_when_fixes_undo_each_other() {
        let flip = |text: &str| -> Result<Vec<Diagnostic>, ()> {
            let replacement = if text == "a" { "b" } else { "a" };
            Ok(vec![diagnostic(
                Span::new(0, 1),
                replacement,
                Applicability::Safe,
            )])
        };
        let mut rounds = 0;
        let first = flip("a").expect("diagnostics");
        until_stable("a".to_string(), first, false, flip, |_, _| rounds += 1).expect("fixed");
        assert_eq!(rounds, MAX_ROUNDS);
    }
}

//! The language's names: contributor ids, plugin scopes and names, skills,
//! operations, commands and subagents are lowercase kebab-case.
//!
//! One definition, read by every stage that checks a name (lowering, a
//! bundle's loader, the bundle re-reader) and by every one that makes one
//! (the checker's suggestion, the importer), so what one suggests another
//! accepts.

/// Whether `text` is lowercase kebab-case: `a-z0-9` words joined by single
/// dashes, starting with a letter.
pub fn is_kebab(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_lowercase())
        && text.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit())
        })
}

/// The kebab-case spelling of `text`, word boundaries kept:
/// `BrandGuidelines` → `brand-guidelines`, `copilot_money` →
/// `copilot-money`. Empty when `text` holds no ASCII letter or digit; it
/// may start with a digit, which a caller making a name must prefix.
pub fn to_kebab(text: &str) -> String {
    lowercase_words(text, '-', &[])
        .trim_end_matches('-')
        .to_string()
}

/// `text` in lowercase ASCII, words joined by `separator`: a camelCase
/// boundary or any run of other characters becomes one separator, and the
/// characters in `keep` stay as they are.
pub fn lowercase_words(text: &str, separator: char, keep: &[char]) -> String {
    let mut out = String::new();
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            let boundary = c.is_ascii_uppercase()
                && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            if boundary && !out.is_empty() && !out.ends_with(separator) {
                out.push(separator);
            }
            out.push(c.to_ascii_lowercase());
        } else if keep.contains(&c) {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with(separator) {
            out.push(separator);
        }
        previous = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kebab_names() {
        for good in ["a", "code-review", "v2", "a-1", "a1-b2-c3"] {
            assert!(is_kebab(good), "{good}");
        }
        for bad in [
            "", "-a", "a-", "a--b", "1a", "A", "Review", "a_b", "a b", "é",
        ] {
            assert!(!is_kebab(bad), "{bad}");
        }
    }

    #[test]
    fn word_boundaries_are_kept() {
        assert_eq!(to_kebab("BrandGuidelines"), "brand-guidelines");
        assert_eq!(to_kebab("copilot_money"), "copilot-money");
        assert_eq!(to_kebab("Acme_Corp"), "acme-corp");
        assert_eq!(to_kebab("Review Stance!"), "review-stance");
        assert_eq!(to_kebab("  Code  Review! "), "code-review");
        assert_eq!(to_kebab("HTTPServer"), "httpserver");
        assert_eq!(to_kebab("!!"), "");
        for text in ["BrandGuidelines", "a b c", "x_y-z", "Read2Me"] {
            assert!(is_kebab(&to_kebab(text)), "{text}");
        }
    }
}

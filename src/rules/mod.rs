//! Every diagnostic the tool can emit, in one registry: the language's own
//! (syntax and lowering), the checker's, the configuration's and the
//! bundle's. `contrib rules` lists them, `contrib explain` prints one, and
//! the tests make sure each has an explanation and fixtures.

pub mod language;

use crate::diagnostic::Rule;

/// All rules, ordered by code.
pub fn all() -> Vec<&'static Rule> {
    let mut rules: Vec<&'static Rule> = language::ALL.to_vec();
    rules.extend(crate::check::registry().iter().map(|rule| rule.rule));
    rules.extend(crate::check::text_registry().iter().map(|rule| rule.rule));
    rules.push(&crate::check::suppress::UNUSED_SUPPRESSION);
    rules.extend(crate::config::RULES.iter().copied());
    rules.extend(crate::bundle::rules::ALL.iter().copied());
    rules.sort_by_key(|rule| rule.code);
    rules
}

/// Finds a rule by its code (`C0004`, any case) or its name (`unknown-field`).
pub fn find(code_or_name: &str) -> Option<&'static Rule> {
    all()
        .into_iter()
        .find(|rule| rule.name == code_or_name || rule.code.eq_ignore_ascii_case(code_or_name))
}

//! Every diagnostic the tool can emit, in one registry: the language's own
//! (syntax and lowering), the checker's, the configuration's and the
//! bundle's. `contrib rules` lists them, `contrib explain` prints one, and
//! the tests make sure each has an explanation and fixtures.
//!
//! A rule's page ([`page`]) is written once and read in three places: the
//! terminal (`contrib explain`), the editor (hover on a rule named in a
//! suppression), and `docs/rules/<name>.md`, where a diagnostic's link
//! points (see `lsp::rule_docs`).

pub mod language;

use crate::diagnostic::Rule;

/// All rules, ordered by code.
pub fn all() -> Vec<&'static Rule> {
    let mut rules: Vec<&'static Rule> = language::ALL.to_vec();
    rules.extend(crate::check::registry().iter().map(|rule| rule.rule));
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

/// A rule's page, in Markdown: what `contrib explain` prints, and what
/// `docs/rules/<name>.md` holds.
pub fn page(rule: &Rule) -> String {
    format!(
        "# {} ({})\n\n{}\n\nDefault level: {}\n{}\n",
        rule.name,
        rule.code,
        rule.summary,
        rule.default_level.as_str(),
        rule.explanation.trim_end()
    )
}

/// One `## heading` section of a rule's explanation, without its heading.
pub fn section<'r>(rule: &'r Rule, heading: &str) -> Option<&'r str> {
    let marker = format!("## {heading}\n");
    let start = rule.explanation.find(&marker)? + marker.len();
    let rest = &rule.explanation[start..];
    let end = rest.find("\n## ").map_or(rest.len(), |end| end + 1);
    Some(rest[..end].trim())
}

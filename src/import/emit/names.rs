//! Names as the language spells them: kebab-case identifiers, tool names,
//! and names kept unique within a manifest. Apart so the rules for a name
//! read in one place.

use std::collections::{HashMap, HashSet};

use crate::ir::names::{lowercase_words, to_kebab};

use super::MAX_NAME;

/// Lowercase kebab-case, as the language wants identifiers:
/// `BrandGuidelines` → `brand-guidelines`, `copilot_money` →
/// `copilot-money`. A name that would start with a digit or be empty gets
/// `fallback` in front, and long names are cut at a word.
pub fn kebab(text: &str, fallback: &str) -> String {
    let mut out = to_kebab(text);
    if out.len() > MAX_NAME {
        let cut = out[..MAX_NAME].rfind('-').unwrap_or(MAX_NAME);
        out.truncate(cut);
    }
    match out.chars().next() {
        None => fallback.to_string(),
        Some(first) if !first.is_ascii_lowercase() => format!("{fallback}-{out}"),
        Some(_) => out,
    }
}

/// A tool name as the language reads it: lowercase letters, digits, `_`
/// and `-`, starting with a letter. `getTransactions` → `get_transactions`.
pub fn tool_name(text: &str) -> String {
    let out = lowercase_words(text, '_', &['-', '_']);
    let out = out.trim_matches(['_', '-']).to_string();
    match out.chars().next() {
        None => "tool".to_string(),
        Some(first) if !first.is_ascii_lowercase() => format!("tool_{out}"),
        Some(_) => out,
    }
}

/// Names given out so far, each unique.
#[derive(Debug, Default)]
pub struct Unique {
    taken: HashSet<String>,
    /// For each name asked for, the suffix to try next: a thousand hooks
    /// all named `session-start-hook` cost a thousand looks, not half a
    /// million.
    next: HashMap<String, usize>,
}

impl Unique {
    /// `name`, or `name-2`, `name-3`… when taken.
    pub fn name(&mut self, name: &str) -> String {
        let mut candidate = name.to_string();
        if self.taken.contains(&candidate) {
            let n = self.next.entry(name.to_string()).or_insert(2);
            loop {
                candidate = format!("{name}-{n}");
                *n += 1;
                if !self.taken.contains(&candidate) {
                    break;
                }
            }
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

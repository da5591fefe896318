//! Session facts, section by section: told in full the first time, then
//! only what changed, compared before every request.
//!
//! A `fact` contributor states sections of the session: one under its
//! `heading`, or one per thing it `says` when it has none (see
//! [`contrib_core::vocabulary::facts`], which holds the wording the checker counts). The
//! conversation keeps what it last told the model, section by section
//! ([`Memory`]); before each request it states each section it has never
//! told in full, sends a `## … changed` note for a section whose value
//! moved, and nothing for the rest. Each section is a user-role message of
//! its own.
//!
//! Two facts that state the same section are merged: the section is told
//! once, by the first in composition order, and the second is recorded as
//! merged into it (the checker warns about it within one plugin).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::session::Session;
use super::time::{format_offset, Timestamp};
use contrib_core::vocabulary::facts::{cut, FactPart, MAX_ITEMS, SUPERSEDES};
use contrib_core::vocabulary::FactSection;

pub use contrib_core::vocabulary::facts::{MAX_ITEMS as MAX_FACT_ITEMS, MAX_ITEM_CHARS};

/// One part's value at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum FactValue {
    Scalar(String),
    /// Items by key, each with its value if it has one (a skill's version).
    List(BTreeMap<String, Option<String>>),
}

/// What a section said: each part's value.
pub(crate) type SectionState = BTreeMap<FactPart, FactValue>;

/// What the model holds of a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Memory {
    /// It was told this, and the state was recorded.
    Known(SectionState),
    /// Words were sent for it with no state recorded behind them, the first
    /// time it was told: the model may hold a version cut short.
    Torn,
}

/// A section as a conversation tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub heading: String,
    /// In Crucible's order.
    pub says: Vec<FactSection>,
    /// The index of the fact that tells it, among the conversation's
    /// contributors.
    pub teller: usize,
}

/// A fact whose statement was folded into another's, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Merged {
    pub entry: usize,
    pub why: String,
}

/// The sections the facts state, in Crucible's order, each told once.
///
/// `facts` are `(index, name, heading, says)` in composition order. A
/// section with the heading of an earlier one is merged into it; a thing
/// already stated under another heading is left out of the later one.
pub(crate) fn sections<'f>(
    facts: impl Iterator<Item = (usize, String, Option<&'f str>, &'f [FactSection])>,
) -> (Vec<Section>, Vec<Merged>) {
    let mut sections: Vec<Section> = Vec::new();
    let mut tellers: BTreeMap<usize, String> = BTreeMap::new();
    let mut merged = Vec::new();
    for (index, name, heading, says) in facts {
        tellers.insert(index, name);
        for (heading, items) in contrib_core::vocabulary::facts::sections_of(heading, says) {
            let mut kept = Vec::new();
            for item in items {
                match sections.iter().find(|section| section.says.contains(&item)) {
                    Some(other) => merged.push(Merged {
                        entry: index,
                        why: format!(
                            "`{item}` is already stated under `{}` by {}",
                            other.heading,
                            tellers.get(&other.teller).map_or("", String::as_str)
                        ),
                    }),
                    None => kept.push(item),
                }
            }
            if kept.is_empty() {
                continue;
            }
            match sections
                .iter_mut()
                .find(|section| section.heading == heading)
            {
                Some(section) => {
                    if section.teller != index {
                        merged.push(Merged {
                            entry: index,
                            why: format!(
                                "its section `{heading}` is told with {}'s",
                                tellers.get(&section.teller).map_or("", String::as_str)
                            ),
                        });
                    }
                    section.says.extend(kept);
                }
                None => sections.push(Section {
                    heading,
                    says: kept,
                    teller: index,
                }),
            }
        }
    }
    for section in &mut sections {
        section.says.sort_by_key(|says| says.rank());
    }
    sections.sort_by_key(|section| section.says.first().map_or(usize::MAX, |says| says.rank()));
    (sections, merged)
}

/// The values of a section's parts in `session` at `at`.
pub(crate) fn state(says: &[FactSection], session: &Session, at: Timestamp) -> SectionState {
    says.iter()
        .flat_map(|section| section.parts())
        .map(|part| (*part, value(*part, session, at)))
        .collect()
}

fn value(part: FactPart, session: &Session, at: Timestamp) -> FactValue {
    let scalar =
        |value: Option<&str>, otherwise: &str| FactValue::Scalar(cut(value.unwrap_or(otherwise)));
    let environment = &session.environment;
    match part {
        FactPart::Date => FactValue::Scalar(date(at)),
        FactPart::Os => scalar(environment.os.as_deref(), "unknown"),
        FactPart::Arch => scalar(environment.arch.as_deref(), "unknown"),
        FactPart::WorkspaceRoot => scalar(environment.workspace_root.as_deref(), "unknown"),
        FactPart::Model => scalar(Some(&session.model.name), ""),
        FactPart::Effort => scalar(session.model.effort.as_deref(), "the vendor's default"),
        FactPart::Mode => scalar(session.permissions.mode.as_deref(), "default"),
        FactPart::Skills => FactValue::List(
            session
                .skills
                .iter()
                .map(|(slug, skill)| (slug.clone(), Some(skill.version.to_string())))
                .collect(),
        ),
        FactPart::Tools => names(&session.tools),
        FactPart::Allowed => names(&session.permissions.allowed),
    }
}

fn names(items: &[String]) -> FactValue {
    FactValue::List(items.iter().map(|item| (item.clone(), None)).collect())
}

/// `2026-03-02 (Monday, UTC)`, in the offset `at` is read in.
fn date(at: Timestamp) -> String {
    let zone = match at.offset_minutes {
        0 => "UTC".to_string(),
        minutes => format!("UTC{}", format_offset(minutes)),
    };
    format!("{} ({}, {zone})", at.date(), at.weekday())
}

/// How a section is told on one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Told {
    /// In full: the model had never been told it.
    Full,
    /// In full, opening with a line that supersedes every earlier version:
    /// words were sent for it with no state recorded behind them.
    Superseding,
    /// A `## … changed` note.
    Changed,
}

/// The message for a section, given what the model holds of it: `None`
/// when nothing changed.
pub(crate) fn message(
    section: &Section,
    memory: Option<&Memory>,
    now: &SectionState,
) -> Option<(Told, String)> {
    match memory {
        None => Some((Told::Full, full(section, now))),
        Some(Memory::Torn) => Some((
            Told::Superseding,
            format!("{SUPERSEDES}\n{}", full(section, now)),
        )),
        Some(Memory::Known(before)) if before == now => None,
        Some(Memory::Known(before)) => Some((Told::Changed, change(section, before, now))),
    }
}

/// The whole section.
pub(crate) fn full(section: &Section, now: &SectionState) -> String {
    let mut text = format!("## {}\n", section.heading);
    let single = now.len() == 1;
    for (part, value) in now {
        let line = match value {
            FactValue::Scalar(scalar) if single => scalar.clone(),
            FactValue::Scalar(scalar) => format!("{}: {scalar}", part.title()),
            FactValue::List(items) if items.is_empty() && single => sentence(part.when_empty()),
            FactValue::List(items) if items.is_empty() => {
                format!("{}: {}", part.title(), part.when_empty())
            }
            FactValue::List(items) => {
                let lines: Vec<String> = bounded(items.iter().map(|(key, value)| item(key, value)))
                    .into_iter()
                    .map(|line| format!("- {line}"))
                    .collect();
                if single {
                    lines.join("\n")
                } else {
                    format!("{}:\n{}", part.title(), lines.join("\n"))
                }
            }
        };
        text.push_str(&line);
        text.push('\n');
    }
    closing(section, text)
}

/// A note saying what changed. A section of scalars is named after the
/// first that changed (`## Model changed`) and restates them all (the new
/// model and its effort); a section with a list is named after itself
/// (`## What you have changed`) and names what was added and removed.
pub(crate) fn change(section: &Section, before: &SectionState, now: &SectionState) -> String {
    let changed: Vec<FactPart> = now
        .iter()
        .filter(|(part, value)| before.get(part) != Some(value))
        .map(|(part, _)| *part)
        .collect();
    let has_list = now.keys().any(|part| part.is_list());
    if !has_list {
        let first = changed
            .first()
            .map_or(section.heading.as_str(), |part| part.title());
        let body = full(section, now);
        let body = body.split_once('\n').map_or("", |(_, rest)| rest);
        return format!("## {first} changed\n{body}");
    }
    let single = now.len() == 1;
    let mut text = format!("## {} changed\n", section.heading);
    for part in changed {
        let label = |what: &str| {
            if single {
                format!("{what}: ")
            } else {
                format!("{}, {what}: ", part.title())
            }
        };
        match (before.get(&part), now.get(&part)) {
            (_, Some(FactValue::Scalar(scalar))) if single => {
                text.push_str(&format!("now {scalar}\n"));
            }
            (_, Some(FactValue::Scalar(scalar))) => {
                text.push_str(&format!("{}: now {scalar}\n", part.title()));
            }
            (old, Some(FactValue::List(new))) => {
                let empty = BTreeMap::new();
                let old = match old {
                    Some(FactValue::List(old)) => old,
                    _ => &empty,
                };
                for (what, items) in list_change(old, new) {
                    text.push_str(&label(what));
                    text.push_str(&items.join(", "));
                    text.push('\n');
                }
            }
            (_, None) => {}
        }
    }
    closing(section, text)
}

fn closing(section: &Section, mut text: String) -> String {
    for says in &section.says {
        if let Some(closing) = says.closing() {
            text.push_str(closing);
            text.push('\n');
        }
    }
    text.trim_end().to_string()
}

/// What was added, removed and updated, at most [`MAX_ITEMS`] items in
/// all, then how many more.
fn list_change(
    old: &BTreeMap<String, Option<String>>,
    new: &BTreeMap<String, Option<String>>,
) -> Vec<(&'static str, Vec<String>)> {
    let added = new
        .iter()
        .filter(|(key, _)| !old.contains_key(*key))
        .map(|(key, value)| ("added", item(key, value)));
    let removed = old
        .keys()
        .filter(|key| !new.contains_key(*key))
        .map(|key| ("removed", cut(key)));
    let updated = new.iter().filter_map(|(key, value)| match old.get(key) {
        Some(previous) if previous != value => Some((
            "updated",
            cut(&format!(
                "{key} {} → {}",
                previous.as_deref().unwrap_or("-"),
                value.as_deref().unwrap_or("-")
            )),
        )),
        _ => None,
    });
    let all: Vec<(&'static str, String)> = added.chain(removed).chain(updated).collect();
    let rest = all.len().saturating_sub(MAX_ITEMS);
    let mut grouped: Vec<(&'static str, Vec<String>)> = Vec::new();
    for (what, item) in all.into_iter().take(MAX_ITEMS) {
        match grouped.last_mut() {
            Some((last, items)) if *last == what => items.push(item),
            _ => grouped.push((what, vec![item])),
        }
    }
    if rest > 0 {
        if let Some((_, items)) = grouped.last_mut() {
            items.push(format!("and {rest} more"));
        }
    }
    grouped
}

fn item(key: &str, value: &Option<String>) -> String {
    match value {
        Some(value) => cut(&format!("{key} {value}")),
        None => cut(key),
    }
}

/// At most [`MAX_ITEMS`] items, each already cut, then "and N more" for
/// the rest.
pub(crate) fn bounded(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut shown = Vec::new();
    let mut rest = 0usize;
    for item in items {
        if shown.len() < MAX_ITEMS {
            shown.push(cut(&item));
        } else {
            rest += 1;
        }
    }
    if rest > 0 {
        shown.push(format!("and {rest} more"));
    }
    shown
}

/// `none were discovered` → `None were discovered.`
fn sentence(phrase: &str) -> String {
    let mut chars = phrase.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(keys: &[&str]) -> FactValue {
        FactValue::List(keys.iter().map(|key| (key.to_string(), None)).collect())
    }

    fn section(heading: &str, says: &[FactSection]) -> Section {
        Section {
            heading: heading.into(),
            says: says.to_vec(),
            teller: 0,
        }
    }

    #[test]
    fn every_date_fits_the_bound_the_checker_counts() {
        let bound = FactPart::Date.max_value_bytes() as usize;
        for day in 23..=31 {
            for offset in ["-23:59", "+00:00", "+05:45"] {
                let at =
                    Timestamp::parse(&format!("9999-12-{day}T12:00:00{offset}")).expect("a time");
                assert!(date(at).len() <= bound, "{}", date(at));
            }
        }
    }

    #[test]
    fn lists_are_bounded_and_long_items_cut_not_dropped() {
        let mut items: Vec<String> = (0..70).map(|i| format!("tool_{i:02}")).collect();
        items.insert(0, "x".repeat(201));
        let shown = bounded(items.into_iter());
        assert_eq!(shown.len(), 65);
        assert_eq!(shown[0].chars().count(), 200);
        assert!(shown[0].ends_with('…'));
        assert_eq!(shown[64], "and 7 more");
    }

    #[test]
    fn a_list_change_names_what_moved() {
        let tools = section("What you have", &[FactSection::Tools]);
        let before = SectionState::from([(FactPart::Tools, list(&["a", "b"]))]);
        let now = SectionState::from([(FactPart::Tools, list(&["b", "c"]))]);
        assert_eq!(
            change(&tools, &before, &now),
            "## What you have changed\nadded: c\nremoved: a"
        );
    }

    #[test]
    fn a_scalar_change_is_named_after_what_changed_and_restates_the_section() {
        let answering = section(
            "What is answering",
            &[FactSection::Model, FactSection::Effort],
        );
        let state = |model: &str, effort: &str| {
            SectionState::from([
                (FactPart::Model, FactValue::Scalar(model.into())),
                (FactPart::Effort, FactValue::Scalar(effort.into())),
            ])
        };
        assert_eq!(
            change(&answering, &state("a", "high"), &state("b", "high")),
            "## Model changed\nModel: b\nEffort: high"
        );
        assert_eq!(
            change(&answering, &state("a", "high"), &state("a", "low")),
            "## Effort changed\nModel: a\nEffort: low"
        );
    }

    #[test]
    fn an_empty_list_says_so() {
        let skills = section("Skills you can open", &[FactSection::Skills]);
        let now = SectionState::from([(FactPart::Skills, list(&[]))]);
        assert_eq!(
            full(&skills, &now),
            "## Skills you can open\nNone were discovered."
        );
    }

    #[test]
    fn duplicated_sections_are_told_once() {
        let says_a = [FactSection::Model, FactSection::Tools];
        let says_b = [FactSection::Tools, FactSection::Date];
        let (sections, merged) = sections(
            [
                (0, "a".to_string(), None, &says_a[..]),
                (1, "b".to_string(), Some("Tools"), &says_b[..]),
            ]
            .into_iter(),
        );
        let told: Vec<(&str, &[FactSection], usize)> = sections
            .iter()
            .map(|section| (section.heading.as_str(), &section.says[..], section.teller))
            .collect();
        assert_eq!(
            told,
            [
                ("Tools", &[FactSection::Date, FactSection::Tools][..], 0),
                ("Model", &[FactSection::Model][..], 0),
            ]
        );
        assert_eq!(merged.len(), 2, "{merged:?}");
    }
}

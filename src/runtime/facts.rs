//! Session facts: stated in full once, then only what changed.
//!
//! A fact contributor `says` some sections of the session (date, model,
//! tools, …). The first turn it reaches gets every section in full; later
//! turns get a short `## <Section> changed` note for each section whose
//! value moved, saying what changed (tools added and removed by name, the
//! new model and effort), and nothing when nothing moved. After a
//! compaction the earlier statements are gone from the conversation, so
//! every section is restated in full.
//!
//! Lists are bounded so a session with thousands of tools cannot flood the
//! context: at most [`MAX_ITEMS`] items of at most [`MAX_ITEM_CHARS`]
//! characters are shown, and the rest are counted ("and 12 more").

use std::collections::BTreeMap;

use super::session::Session;
use super::time::Timestamp;
use crate::ir::FactSection;

/// The most items a fact's list shows.
pub const MAX_ITEMS: usize = 64;
/// The longest item a fact's list shows; longer ones are counted, not cut.
pub const MAX_ITEM_CHARS: usize = 200;

/// One section's value at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FactValue {
    Scalar(String),
    /// Items by key, each with its value if it has one (a skill's version,
    /// a permission's level).
    List(BTreeMap<String, Option<String>>),
}

/// What a fact contributor last said, section by section.
pub(crate) type Stated = BTreeMap<FactSection, FactValue>;

/// The values of `sections` in `session` at `at` (in the person's offset).
pub(crate) fn state(sections: &[FactSection], session: &Session, at: Timestamp) -> Stated {
    sections
        .iter()
        .map(|section| (*section, value(*section, session, at)))
        .collect()
}

fn value(section: FactSection, session: &Session, at: Timestamp) -> FactValue {
    let or_unknown = |value: &Option<String>| {
        FactValue::Scalar(value.clone().unwrap_or_else(|| "unknown".into()))
    };
    match section {
        FactSection::Date => FactValue::Scalar(format!("{} ({})", at.date(), at.weekday())),
        FactSection::Os => or_unknown(&session.environment.os),
        FactSection::Arch => or_unknown(&session.environment.arch),
        FactSection::WorkspaceRoot => or_unknown(&session.environment.workspace_root),
        FactSection::Model => FactValue::Scalar(session.model.name.clone()),
        FactSection::Effort => FactValue::Scalar(
            session
                .model
                .effort
                .clone()
                .unwrap_or_else(|| "default".into()),
        ),
        FactSection::Skills => FactValue::List(
            session
                .skills
                .iter()
                .map(|(skill, version)| (skill.clone(), Some(version.to_string())))
                .collect(),
        ),
        FactSection::Tools => FactValue::List(
            session
                .tools
                .iter()
                .map(|tool| (tool.clone(), None))
                .collect(),
        ),
        FactSection::Permissions => FactValue::List(
            session
                .permissions
                .iter()
                .map(|(name, level)| (name.clone(), Some(level.clone())))
                .collect(),
        ),
    }
}

/// Every section in full.
pub(crate) fn full(stated: &Stated) -> String {
    let mut text = String::new();
    for (section, value) in stated {
        text.push_str(&format!("## {}\n", title(*section)));
        match value {
            FactValue::Scalar(scalar) => {
                text.push_str(scalar);
                text.push('\n');
            }
            FactValue::List(items) => {
                let shown: Vec<String> = items
                    .iter()
                    .map(|(key, value)| item(*section, key, value.as_deref()))
                    .collect();
                for line in bounded(shown) {
                    text.push_str(&format!("- {line}\n"));
                }
            }
        }
    }
    text.trim_end().to_string()
}

/// A `## <Section> changed` note for each section whose value moved from
/// `before` to `now`; empty when none did.
pub(crate) fn changes(before: &Stated, now: &Stated) -> String {
    let mut notes = Vec::new();
    for (section, value) in now {
        if before.get(section) == Some(value) {
            continue;
        }
        let what = match (before.get(section), value) {
            (Some(FactValue::List(old)), FactValue::List(new)) => list_change(*section, old, new),
            (_, FactValue::Scalar(scalar)) if *section == FactSection::Model => {
                match now.get(&FactSection::Effort) {
                    Some(FactValue::Scalar(effort)) => format!("now {scalar}, effort {effort}"),
                    _ => format!("now {scalar}"),
                }
            }
            (_, FactValue::Scalar(scalar)) => format!("now {scalar}"),
            (_, FactValue::List(new)) => list_change(*section, &BTreeMap::new(), new),
        };
        notes.push(format!("## {} changed\n{what}", title(*section)));
    }
    notes.join("\n")
}

fn list_change(
    section: FactSection,
    old: &BTreeMap<String, Option<String>>,
    new: &BTreeMap<String, Option<String>>,
) -> String {
    let added: Vec<String> = new
        .iter()
        .filter(|(key, _)| !old.contains_key(*key))
        .map(|(key, value)| item(section, key, value.as_deref()))
        .collect();
    let removed: Vec<String> = old
        .keys()
        .filter(|key| !new.contains_key(*key))
        .cloned()
        .collect();
    let changed: Vec<String> = new
        .iter()
        .filter_map(|(key, value)| match old.get(key) {
            Some(previous) if previous != value => Some(format!(
                "{key} {} → {}",
                previous.as_deref().unwrap_or("-"),
                value.as_deref().unwrap_or("-")
            )),
            _ => None,
        })
        .collect();
    [("added", added), ("removed", removed), ("updated", changed)]
        .into_iter()
        .filter(|(_, items)| !items.is_empty())
        .map(|(label, items)| format!("{label}: {}", bounded(items).join(", ")))
        .collect::<Vec<_>>()
        .join("\n")
}

fn item(section: FactSection, key: &str, value: Option<&str>) -> String {
    match (section, value) {
        (FactSection::Permissions, Some(level)) => format!("{key}: {level}"),
        (_, Some(value)) => format!("{key} {value}"),
        (_, None) => key.to_string(),
    }
}

/// At most [`MAX_ITEMS`] items of at most [`MAX_ITEM_CHARS`] characters,
/// then "and N more" for the rest.
pub(crate) fn bounded(items: Vec<String>) -> Vec<String> {
    let total = items.len();
    let mut shown: Vec<String> = items
        .into_iter()
        .filter(|item| item.chars().count() <= MAX_ITEM_CHARS)
        .take(MAX_ITEMS)
        .collect();
    let rest = total - shown.len();
    if rest > 0 {
        shown.push(format!("and {rest} more"));
    }
    shown
}

fn title(section: FactSection) -> &'static str {
    match section {
        FactSection::Date => "Date",
        FactSection::Os => "OS",
        FactSection::Arch => "Architecture",
        FactSection::WorkspaceRoot => "Workspace root",
        FactSection::Skills => "Skills",
        FactSection::Model => "Model",
        FactSection::Effort => "Effort",
        FactSection::Tools => "Tools",
        FactSection::Permissions => "Permissions",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_bounded_and_long_items_counted() {
        let mut items: Vec<String> = (0..70).map(|i| format!("tool_{i}")).collect();
        items.insert(0, "x".repeat(201));
        let shown = bounded(items);
        assert_eq!(shown.len(), 65);
        assert_eq!(shown[0], "tool_0");
        assert_eq!(shown[64], "and 7 more");
    }

    #[test]
    fn list_changes_name_what_moved() {
        let old = BTreeMap::from([("a".to_string(), None), ("b".to_string(), None)]);
        let new = BTreeMap::from([("b".to_string(), None), ("c".to_string(), None)]);
        assert_eq!(
            list_change(FactSection::Tools, &old, &new),
            "added: c\nremoved: a"
        );
    }
}

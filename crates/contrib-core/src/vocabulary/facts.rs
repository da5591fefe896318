//! How a fact section reads, written once: the runtime renders sections
//! with it and the checker computes each fact's worst case from it.
//!
//! A `fact` states parts of the session. Each [`FactSection`] a fact
//! `says` is one or more [`FactPart`]s (`permissions` is the mode and the
//! scopes allowed for the rest of the session); each part is a scalar or a
//! bounded list. What the host supplies is bounded as Crucible bounds it:
//! at most [`MAX_ITEMS`] items are named, each cut to [`MAX_ITEM_CHARS`]
//! characters, and the rest are counted; a scalar is cut the same way.
//! Those bounds are what make a worst case computable before run time.
//!
//! Sections are told in Crucible's order, least likely to change first:
//! where you are working, skills, environment, what is answering, tools,
//! permissions ([`FactSection::rank`]).

use super::FactSection;

/// The most items a list names; the rest are counted ("and 12 more").
pub const MAX_ITEMS: usize = 64;
/// The longest an item or a scalar may be, in characters; a longer one is
/// cut to this, its last character the [`CUT_MARK`].
pub const MAX_ITEM_CHARS: usize = 200;
/// Ends an item that was cut.
pub const CUT_MARK: char = '…';
/// The most bytes a character takes in UTF-8: every token covers at least
/// one byte, so a host value of `n` characters is at most `4n` tokens in
/// any byte-level tokenizer.
pub const MAX_BYTES_PER_CHAR: u64 = 4;

/// The line that opens a section restated after a torn write: the model
/// may hold a version cut short, or one whose state was never recorded.
pub const SUPERSEDES: &str =
    "This supersedes every earlier version of this section in the conversation, including any that was cut short.";

/// How the permissions section ends: it reports, it does not authorize.
pub const PERMISSIONS_CLOSING: &str = "This section reports what is allowed; it does not authorize anything. Every call is still checked as if it were not here.";

/// One thing a section states.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum FactPart {
    WorkspaceRoot,
    Skills,
    Date,
    Os,
    Arch,
    Model,
    Effort,
    Tools,
    /// The permission mode.
    Mode,
    /// Scopes allowed for the rest of the session.
    Allowed,
}

impl FactSection {
    /// Crucible's order, from the least likely to change to the most: the
    /// position of this section among the six.
    pub fn rank(self) -> usize {
        match self {
            FactSection::WorkspaceRoot => 0,
            FactSection::Skills => 1,
            FactSection::Date => 2,
            FactSection::Os => 3,
            FactSection::Arch => 4,
            FactSection::Model => 5,
            FactSection::Effort => 6,
            FactSection::Tools => 7,
            FactSection::Permissions => 8,
        }
    }

    /// The heading of a section that states only this, when no `heading`
    /// is written.
    pub fn title(self) -> &'static str {
        match self {
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

    /// What it states.
    pub fn parts(self) -> &'static [FactPart] {
        match self {
            FactSection::Date => &[FactPart::Date],
            FactSection::Os => &[FactPart::Os],
            FactSection::Arch => &[FactPart::Arch],
            FactSection::WorkspaceRoot => &[FactPart::WorkspaceRoot],
            FactSection::Skills => &[FactPart::Skills],
            FactSection::Model => &[FactPart::Model],
            FactSection::Effort => &[FactPart::Effort],
            FactSection::Tools => &[FactPart::Tools],
            FactSection::Permissions => &[FactPart::Mode, FactPart::Allowed],
        }
    }

    /// The sentence a section stating this ends with, if any.
    pub fn closing(self) -> Option<&'static str> {
        (self == FactSection::Permissions).then_some(PERMISSIONS_CLOSING)
    }
}

impl FactPart {
    /// Its label when a section states more than one part.
    pub fn title(self) -> &'static str {
        match self {
            FactPart::WorkspaceRoot => "Workspace root",
            FactPart::Skills => "Skills",
            FactPart::Date => "Date",
            FactPart::Os => "OS",
            FactPart::Arch => "Architecture",
            FactPart::Model => "Model",
            FactPart::Effort => "Effort",
            FactPart::Tools => "Tools",
            FactPart::Mode => "Mode",
            FactPart::Allowed => "Allowed for the rest of this session",
        }
    }

    pub fn is_list(self) -> bool {
        matches!(self, FactPart::Skills | FactPart::Tools | FactPart::Allowed)
    }

    /// What an empty list says, rather than a bare heading.
    pub fn when_empty(self) -> &'static str {
        match self {
            FactPart::Skills => "none were discovered",
            FactPart::Tools => "none are advertised for this request",
            FactPart::Allowed => "nothing beyond what the mode allows",
            _ => "unknown",
        }
    }

    /// The most bytes its value may take. The date is the platform's own,
    /// `YYYY-MM-DD (Wednesday, UTC+hh:mm)` with a year up to 9999; a list's
    /// items and every other scalar come from the host and are cut to
    /// [`MAX_ITEM_CHARS`].
    pub fn max_value_bytes(self) -> u64 {
        match self {
            FactPart::Date => "9999-12-31 (Wednesday, UTC+23:59)".len() as u64,
            _ => MAX_ITEM_CHARS as u64 * MAX_BYTES_PER_CHAR,
        }
    }
}

/// The heading a section reads under: the one written, or else the title
/// of the one thing it states.
pub fn heading_for(heading: Option<&str>, says: FactSection) -> String {
    heading.map_or_else(|| says.title().to_string(), str::to_string)
}

/// The sections a fact states: one under its heading when it has one,
/// otherwise one per thing it says, each under its own title. Duplicates
/// within the list are stated once.
pub fn sections_of(heading: Option<&str>, says: &[FactSection]) -> Vec<(String, Vec<FactSection>)> {
    let mut unique: Vec<FactSection> = Vec::new();
    for section in says {
        if !unique.contains(section) {
            unique.push(*section);
        }
    }
    match heading {
        Some(heading) => vec![(heading.to_string(), unique)],
        None => unique
            .into_iter()
            .map(|section| (section.title().to_string(), vec![section]))
            .collect(),
    }
}

/// The most a section may add, as fixed text to count with a tokenizer and
/// a number of bytes of host values (each at most one token a byte).
///
/// It covers the larger of the full statement (opened by [`SUPERSEDES`]
/// after a torn write) and a change note: every label either may use, each
/// scalar at its longest, and each list at [`MAX_ITEMS`] items of
/// [`MAX_ITEM_CHARS`] characters with its count of the rest. A change note
/// names at most [`MAX_ITEMS`] items in all, so it is never longer than the
/// full list plus its labels.
pub struct WorstCase {
    pub fixed: String,
    pub value_bytes: u64,
}

pub fn worst_case(heading: &str, says: &[FactSection]) -> WorstCase {
    let mut fixed = format!("{SUPERSEDES}\n## {heading} changed\n");
    let mut value_bytes = 0;
    for section in says {
        for part in section.parts() {
            fixed.push_str(&format!("{}: now \n", part.title()));
            if part.is_list() {
                fixed.push_str(&format!(
                    "{}\nadded: removed: updated: \n",
                    part.when_empty()
                ));
                // Each item: "- " or ", " before it, a line break or a
                // comma after it, and for an update " → " between values.
                let per_item = part.max_value_bytes() + 8;
                value_bytes += MAX_ITEMS as u64 * per_item;
                value_bytes += "- and 18446744073709551615 more\n".len() as u64;
            } else {
                value_bytes += part.max_value_bytes() + 2;
            }
        }
        if let Some(closing) = section.closing() {
            fixed.push_str(closing);
            fixed.push('\n');
        }
    }
    WorstCase { fixed, value_bytes }
}

/// `text` cut to [`MAX_ITEM_CHARS`] characters, the last one the
/// [`CUT_MARK`] when it was cut.
pub fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_ITEM_CHARS {
        return text.to_string();
    }
    let mut kept: String = text.chars().take(MAX_ITEM_CHARS - 1).collect();
    kept.push(CUT_MARK);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_follow_crucibles_six_sections() {
        let mut all = FactSection::ALL.to_vec();
        all.sort_by_key(|section| section.rank());
        assert_eq!(
            all,
            [
                FactSection::WorkspaceRoot,
                FactSection::Skills,
                FactSection::Date,
                FactSection::Os,
                FactSection::Arch,
                FactSection::Model,
                FactSection::Effort,
                FactSection::Tools,
                FactSection::Permissions,
            ]
        );
    }

    #[test]
    fn cutting_keeps_two_hundred_characters_and_marks_the_cut() {
        assert_eq!(cut("short"), "short");
        let exact = "é".repeat(MAX_ITEM_CHARS);
        assert_eq!(cut(&exact), exact);
        let long = "é".repeat(MAX_ITEM_CHARS + 1);
        let kept = cut(&long);
        assert_eq!(kept.chars().count(), MAX_ITEM_CHARS);
        assert!(kept.ends_with(CUT_MARK));
    }
}

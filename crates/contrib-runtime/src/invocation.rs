//! A skill somebody invoked: the note beside a person's `/` pick.
//!
//! Picking a skill from the composer's `/` menu sends its slug beside the
//! message; a slug the agent was not given is refused, and the pick is kept
//! on the stored message as its slug and the name it had then
//! ([`StoredPick`]). The person's words stay what they typed, which may be
//! nothing.
//!
//! The model is told when the conversation is projected, not when the
//! message is stored, so a retry, a later turn and a compaction all see the
//! same thing about the same message ([`Composer::project`]). After the
//! person's words, under the platform-note label, the note says:
//!
//! - that the person invoked the skill, with the message above, or with no
//!   further instructions, in which case the note is the whole request;
//! - to follow the skill's instructions under its `## {name}` heading in
//!   the system prompt, or, when the prompt being sent was not composed
//!   with that skill, the instructions themselves, so it is never pointed
//!   at something missing;
//! - its main reference file, read ahead: `index.md`, or else the file the
//!   instructions name first, up to 16 KB and marked where it was cut; the
//!   rest listed by path for `read_object`. A skill whose instructions name
//!   no file and that has no `index.md` gets the list alone.
//!
//! A pick sent while a turn runs is not handed over as a steer (a steer
//! carries only words, so a pick with nothing typed would arrive empty): it
//! waits for its own turn, and anything sent after it waits behind it
//! ([`Composer::sent_during_turn`]).

use serde::Serialize;

use super::compose::Composer;
use super::facts::bounded;
use super::gate::Gate;
use super::record::{KeptSkill, Note, NoteKind, Position, Role, SkillPick, StoredPick};
use super::session::Skill;

/// The label the platform's own notes open with.
pub const PLATFORM_NOTE: &str = "[Platform note]";

/// The most of a main reference file read ahead, in bytes.
pub const READ_AHEAD_BYTES: usize = 16 * 1024;

/// The file read ahead when a skill has it.
const INDEX: &str = "index.md";

/// What becomes of a message sent while a turn runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MidTurn {
    /// Hand its words to the running turn.
    Steer,
    /// Keep it for a turn of its own, after those already waiting.
    Waits,
}

/// A person picked a skill the agent was not given: the skill's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SkillNotGiven(String);

impl std::fmt::Display for SkillNotGiven {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the person picked the skill `{}`, which this agent was not given",
            self.0
        )
    }
}

impl std::error::Error for SkillNotGiven {}

impl<'a, G: Gate> Composer<'a, G> {
    /// A person's pick as it is stored with their message, or why it is
    /// refused.
    pub(super) fn pick(&self, pick: &SkillPick) -> Result<StoredPick, SkillNotGiven> {
        let skill = self
            .session
            .skills
            .get(&pick.skill)
            .ok_or_else(|| SkillNotGiven(pick.skill.clone()))?;
        Ok(StoredPick {
            skill: pick.skill.clone(),
            name: skill.display_name(&pick.skill).to_string(),
            with_message: pick.with_message,
        })
    }

    /// The note beside a message that carries `pick`, as the conversation
    /// stands now: call it each time the message is sent (a retry, a later
    /// turn, a compaction) to tell the model the same thing.
    pub fn project(&self, pick: &StoredPick) -> Note {
        Note {
            contributor: "platform".to_string(),
            kind: NoteKind::SkillInvocation,
            role: Role::User,
            position: Position::WithPrompt,
            section: None,
            text: invocation_note(
                pick,
                self.prompt.system.skill(&pick.skill),
                self.session.skills.get(&pick.skill),
            ),
            persisted: false,
        }
    }

    /// Routes a message sent while a turn runs: a pick waits for its own
    /// turn, and so does anything sent after a message that waits; other
    /// words steer the running turn. The next [`Composer::turn`] takes
    /// the first that waits.
    pub fn sent_during_turn(&mut self, pick: Option<&SkillPick>) -> MidTurn {
        if pick.is_some() || self.state.held.waiting > 0 {
            self.state.held.waiting += 1;
            MidTurn::Waits
        } else {
            MidTurn::Steer
        }
    }

    /// Messages waiting for turns of their own.
    pub fn waiting(&self) -> u32 {
        self.state.held.waiting
    }
}

/// The note's text. `kept` is the skill as the kept system prompt holds
/// it, when it was composed with the skill; `skill` is the skill as
/// installed now, whose files are the ones read ahead and listed.
///
/// The note points at the kept heading only when it holds the installed
/// version: instructions of an older version may name files the installed
/// one no longer has, and the note must never point the model at
/// something missing, so then it gives the installed instructions
/// themselves, as it does for a prompt composed before the skill.
fn invocation_note(pick: &StoredPick, kept: Option<&KeptSkill>, skill: Option<&Skill>) -> String {
    let StoredPick {
        skill: slug, name, ..
    } = pick;
    let mut lines = vec![if pick.with_message {
        format!("{PLATFORM_NOTE} The person invoked the skill `{slug}` ({name}) with the message above.")
    } else {
        format!(
            "{PLATFORM_NOTE} The person invoked the skill `{slug}` ({name}) with no further instructions: this note is the whole request."
        )
    }];
    let body = skill.and_then(|skill| skill.body.as_deref());
    match (kept, skill.zip(body)) {
        (Some(kept), Some((skill, body))) if kept.version != skill.version => lines.push(format!(
            "The system prompt holds version {} of that skill under its `## {}` heading; follow version {} instead, whose instructions are here:\n~~~~ {name}\n{body}\n~~~~",
            kept.version, kept.name, skill.version,
        )),
        (Some(kept), _) => lines.push(format!(
            "Follow that skill's instructions, under its `## {}` heading in the system prompt.",
            kept.name
        )),
        (None, Some((_, body))) => lines.push(format!(
            "This conversation's system prompt was composed before it had that skill, so its instructions are here; follow them:\n~~~~ {name}\n{body}\n~~~~"
        )),
        (None, None) => lines.push(
            "Its instructions are not in this conversation's system prompt, and none were given with it."
                .to_string(),
        ),
    }
    if let Some(skill) = skill {
        lines.extend(files(skill, body.unwrap_or_default()));
    }
    lines.join("\n")
}

/// The main reference file read ahead, then the rest by path.
fn files(skill: &Skill, body: &str) -> Vec<String> {
    let main = main_file(skill, body);
    let mut lines = Vec::new();
    if let Some((path, text)) = main {
        let shown = cut_at(text, READ_AHEAD_BYTES);
        let mark = if shown.len() < text.len() {
            format!(
                "\n[cut here: {} of {} bytes read ahead; read_object `{path}` for the rest]",
                shown.len(),
                text.len()
            )
        } else {
            String::new()
        };
        lines.push(format!(
            "Its main reference file, `{path}`, read ahead:\n~~~~ {path}\n{shown}{mark}\n~~~~"
        ));
    }
    let rest: Vec<String> = skill
        .files
        .keys()
        .filter(|path| main.is_none_or(|(main, _)| main != path.as_str()))
        .map(|path| format!("`{path}`"))
        .collect();
    if !rest.is_empty() {
        let what = if main.is_some() {
            "Its other files"
        } else {
            "Its files"
        };
        lines.push(format!(
            "{what}, to read with read_object: {}.",
            bounded(rest.into_iter()).join(", ")
        ));
    }
    lines
}

/// `index.md`, or else the file the instructions name first (the longest
/// path where several start at the same place).
fn main_file<'s>(skill: &'s Skill, body: &str) -> Option<(&'s str, &'s str)> {
    if let Some((path, text)) = skill.files.get_key_value(INDEX) {
        return Some((path, text));
    }
    skill
        .files
        .iter()
        .filter_map(|(path, text)| body.find(path.as_str()).map(|at| (at, path, text)))
        .min_by(|a, b| a.0.cmp(&b.0).then(b.1.len().cmp(&a.1.len())))
        .map(|(_, path, text)| (path.as_str(), text.as_str()))
}

/// The longest prefix of `text` of at most `bytes` bytes that ends on a
/// character boundary.
fn cut_at(text: &str, bytes: usize) -> &str {
    if text.len() <= bytes {
        return text;
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_never_splits_a_character() {
        assert_eq!(cut_at("aé", 2), "a");
        assert_eq!(cut_at("aé", 3), "aé");
    }
}

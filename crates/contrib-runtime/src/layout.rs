//! The kept part of a request, in the order a provider reads it.
//!
//! Both major providers read a request as tools → system → messages, and
//! cache it as one growing prefix. The cache-optimal layout puts whatever
//! every conversation of an agent shares before anything that varies:
//!
//! 1. **agent prefix**: the host's own tool definitions, the tools eager
//!    loads advertise, the platform part of the system prompt, the skill
//!    operations eager loads read (as system text, so that they sit before
//!    the person part and, being the same for every agent that installs
//!    the plugin, before the first text that names the agent), then the
//!    agent part;
//! 2. **person part**, the rest of the system prompt;
//! 3. **opening**: conversation texts and eager runs, the first messages.
//!
//! This departs from the design's placement table, which lists eager loads
//! under `conversation` placement, in the opening: there they sit behind
//! the person part and no other person's conversation can share them.
//! `docs/cache.md` records the decision and its measured gain;
//! [`EagerLoads::Opening`] keeps the table's layout for that comparison.
//!
//! The layout is derived from what [`Composer`] exposes (the kept system
//! prompt, the preloaded items, the opening), so hosts and the simulator
//! lay requests out the same way.

use serde::Serialize;

use super::compose::{Composer, REQUEST_TOKENIZER};
use super::gate::Gate;
use super::profiles::Boundary;
use super::record::{OpeningItem, OpeningKind, SystemPrompt};
use contrib_core::vocabulary::Placement;

/// What a part of a request is, and so who shares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Segment {
    /// The same for every conversation of the agent: tool definitions, the
    /// platform and agent parts, eager loads.
    Agent,
    /// The same for one person's conversations with the agent.
    Person,
    /// The conversation's opening.
    Opening,
    /// Stored messages and notes.
    History,
    /// This turn alone: notes rebuilt every turn, the prompt, rounds.
    Turn,
}

impl Segment {
    /// Every segment, in the order a request holds them.
    pub const ALL: [Segment; 5] = [
        Segment::Agent,
        Segment::Person,
        Segment::Opening,
        Segment::History,
        Segment::Turn,
    ];
}

/// One part of a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Part {
    /// Which segment it belongs to, and so who shares it.
    pub segment: Segment,
    /// What it is, for people: "tool definitions", "system prompt: agent part".
    pub label: String,
    /// What the model reads.
    pub text: String,
    /// Its size in the request tokenizer's tokens; for eager loads, what
    /// the checker measured.
    pub tokens: u64,
}

impl Part {
    /// A part whose tokens are counted with the request tokenizer.
    pub fn counted(segment: Segment, label: impl Into<String>, text: String) -> Part {
        Part {
            segment,
            label: label.into(),
            tokens: REQUEST_TOKENIZER.count(&text) as u64,
            text,
        }
    }
}

/// Where eager loads go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EagerLoads {
    /// In the agent prefix: tools with the tool definitions, operations
    /// after the agent part of the system prompt. Cache-optimal.
    SharedPrefix,
    /// In the opening, after the person part: the design's placement table.
    Opening,
    /// Not loaded at all: every first use costs a round.
    None,
}

/// The kept prefix of `conversation`'s requests: `host_tools` (the host's
/// own tool definitions, when known) first, then eager loads and the
/// system prompt as `eager` says, then the opening.
pub fn kept<G: Gate>(
    conversation: &Composer<'_, G>,
    host_tools: Option<Part>,
    eager: EagerLoads,
) -> Vec<Part> {
    let preloaded = conversation.preloaded();
    let tools = || {
        preloaded
            .iter()
            .filter(|item| item.kind == OpeningKind::LoadTools)
            .map(|item| preloaded_part(item, "tool definitions loaded eagerly"))
    };
    let reads = || {
        preloaded
            .iter()
            .filter(|item| item.kind != OpeningKind::LoadTools)
            .map(|item| preloaded_part(item, "skill operations read eagerly"))
    };
    let system = conversation.system_prompt();
    let mut parts: Vec<Part> = host_tools.into_iter().collect();
    if eager == EagerLoads::SharedPrefix {
        parts.extend(tools());
    }
    // A block per contribution, as the naive layout has them. The skill
    // reads, the same for every agent that installs the plugin, go between
    // the platform part and the agent part: a provider that reads any
    // cached prefix (automatic caching) then shares them across agents,
    // ahead of the first text that names the agent.
    parts.extend(system_parts(system, |placement| {
        placement == Placement::Platform
    }));
    if eager == EagerLoads::SharedPrefix {
        parts.extend(reads());
    }
    parts.extend(system_parts(system, |placement| {
        placement == Placement::Agent
    }));
    parts.extend(system_parts(system, |placement| {
        placement == Placement::Person
    }));
    if eager == EagerLoads::Opening {
        parts.extend(tools().chain(reads()));
    }
    parts.extend(conversation.opening().iter().map(|item| Part {
        segment: Segment::Opening,
        label: format!("opening: {}", item.contributor),
        text: item.text.clone(),
        tokens: item.tokens,
    }));
    parts
}

/// The system prompt's contributions `placed` picks, one part each, as the
/// kept text has them (each followed by a blank line).
fn system_parts<'s>(
    system: &'s SystemPrompt,
    placed: impl Fn(Placement) -> bool + 's,
) -> impl Iterator<Item = Part> + 's {
    system
        .contributions
        .iter()
        .filter(move |contribution| placed(contribution.placement))
        .map(|contribution| {
            let (segment, part) = if contribution.placement == Placement::Person {
                (Segment::Person, "person part")
            } else {
                (Segment::Agent, "platform and agent parts")
            };
            Part::counted(
                segment,
                format!("system prompt, {part}: {}", contribution.contributor),
                format!("{}\n\n", contribution.text),
            )
        })
}

/// An eager load's item: agent-invariant content wherever it is placed.
fn preloaded_part(item: &OpeningItem, label: &str) -> Part {
    Part {
        segment: Segment::Agent,
        label: format!("{label}: {}", item.contributor),
        text: item.text.clone(),
        tokens: item.tokens,
    }
}

/// Where each shared prefix of `parts` ends: (boundary, index of the part
/// it follows, tokens through it), in request order. The agent prefix ends
/// after the last part before the person part, and so on; a boundary whose
/// prefix adds nothing to the one before is still listed, and the profile
/// skips it.
pub fn boundaries(parts: &[Part]) -> Vec<(Boundary, usize, u64)> {
    let ends = |segment: Segment| {
        parts
            .iter()
            .rposition(|part| part.segment <= segment)
            .unwrap_or(0)
    };
    let through = |end: usize| parts.iter().take(end + 1).map(|part| part.tokens).sum();
    let mut found: Vec<(Boundary, usize, u64)> = Vec::new();
    for (boundary, segment) in [
        (Boundary::Agent, Segment::Agent),
        (Boundary::Person, Segment::Person),
        (Boundary::Opening, Segment::Opening),
    ] {
        // The prefix through the last part that anyone narrower than
        // `segment` would also share: parts are in request order, so the
        // first part of a narrower segment ends it.
        let end = parts
            .iter()
            .position(|part| part.segment > segment)
            .map_or(ends(segment), |first| first.saturating_sub(1));
        found.push((boundary, end, through(end)));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(segment: Segment, tokens: u64) -> Part {
        Part {
            segment,
            label: String::new(),
            text: String::new(),
            tokens,
        }
    }

    #[test]
    fn boundaries_end_where_a_narrower_segment_begins() {
        let parts = [
            part(Segment::Agent, 100),
            part(Segment::Agent, 900),
            part(Segment::Person, 50),
            part(Segment::Opening, 40),
            part(Segment::Opening, 10),
        ];
        assert_eq!(
            boundaries(&parts),
            [
                (Boundary::Agent, 1, 1_000),
                (Boundary::Person, 2, 1_050),
                (Boundary::Opening, 4, 1_100),
            ]
        );
    }

    #[test]
    fn agent_content_behind_the_person_part_is_not_in_the_agent_prefix() {
        // The design's table: eager loads (agent-invariant) after the person.
        let parts = [
            part(Segment::Agent, 200),
            part(Segment::Person, 50),
            part(Segment::Agent, 2_000),
            part(Segment::Opening, 40),
        ];
        let found = boundaries(&parts);
        assert_eq!(found[0], (Boundary::Agent, 0, 200));
        assert_eq!(found[1], (Boundary::Person, 2, 2_250));
    }
}

//! One conversation, played once and laid out every way the report
//! compares: each turn becomes one request per layout (more when the turn
//! spends rounds fetching what was not loaded ahead).

use std::collections::BTreeSet;

use super::prompt_cache::{Block, Mark, Request};
use super::script::{mix, Rng};
use super::{LayoutName, Loadable, Options, Step};
use crate::bundle::usage::Item;
use crate::bundle::Bundle;
use crate::ir::Kind;
use crate::runtime::layout::{self, EagerLoads, Part, Segment};
use crate::runtime::Session;
use crate::runtime::REQUEST_TOKENIZER;
use crate::runtime::{Boundary, Profile};
use crate::runtime::{CliGate, Composer};
use crate::runtime::{RequestInput, TurnInput};

/// A conversation's place in the fleet.
#[derive(Debug, Clone, Copy)]
pub(super) struct Key {
    pub agent: usize,
    pub person: usize,
    /// The conversation's number across the fleet: who wrote a cache entry.
    pub writer: u32,
}

/// A request, with what the figures need beside the cache's view of it.
#[derive(Clone)]
pub(super) struct Sent {
    pub key: Key,
    pub request: Request,
    pub model: String,
    /// `(from, to, segment)` runs of the request's tokens.
    pub runs: Vec<(u64, u64, Segment)>,
    pub output_tokens: u64,
    /// The system prompt's hash, on the first request of a turn.
    pub system: Option<u64>,
    /// Rounds this request spent fetching: 1 for a request that ends in a
    /// load the next request answers.
    pub round: bool,
    /// The block the agent prefix ends at, when the request has one.
    pub agent_end: Option<usize>,
}

/// A part of a request reduced to what the cache and the figures need.
#[derive(Debug, Clone, Copy)]
struct Piece {
    hash: u64,
    tokens: u64,
    bytes: u64,
    segment: Segment,
}

impl Piece {
    fn of(part: &Part) -> Piece {
        Piece {
            hash: fnv(FNV_OFFSET, part.text.as_bytes()),
            tokens: part.tokens,
            bytes: part.text.len() as u64,
            segment: part.segment,
        }
    }

    fn text(segment: Segment, text: &str) -> Piece {
        Piece {
            hash: fnv(FNV_OFFSET, text.as_bytes()),
            tokens: REQUEST_TOKENIZER.count(text) as u64,
            bytes: text.len() as u64,
            segment,
        }
    }
}

/// Everything one conversation sent, per layout.
pub(super) struct Played {
    pub sent: Vec<(LayoutName, Sent)>,
    pub recompositions: u32,
    /// Each shared prefix of the contrib layout too short to cache, with its
    /// tokens, per request.
    pub short: Vec<(Boundary, u64)>,
}

/// What a conversation keeps turn to turn, per history.
#[derive(Default)]
struct History {
    pieces: Vec<Piece>,
    /// What it fetched with rounds since its last compaction.
    loaded: BTreeSet<usize>,
}

/// Plays one conversation's script in every layout.
pub(super) fn play(
    bundles: &[Bundle],
    profile: &Profile,
    session: Session,
    script: &[Step],
    loadable: &[Loadable],
    options: &Options,
    key: Key,
) -> Played {
    let mut conversation = Composer::start(bundles, session.clone(), CliGate, profile);
    // A host without contrib rebuilds every turn's notes from scratch: the
    // same contributors, told everything afresh (a compaction on every turn).
    let mut fresh = Composer::start(bundles, session, CliGate, profile);
    let mut words = Rng(options.seed ^ mix(key.agent, key.person, key.writer as usize));
    let mut stored = History::default();
    let mut plain = History::default();
    let mut bare = History::default();
    let mut played = Played {
        sent: Vec::new(),
        recompositions: 0,
        short: Vec::new(),
    };
    for step in script {
        if step.input.compaction {
            let summary = Piece::text(Segment::History, &words.words(options.summary_words));
            for history in [&mut stored, &mut plain, &mut bare] {
                *history = History {
                    pieces: vec![summary],
                    loaded: BTreeSet::new(),
                };
            }
        }
        let turn = conversation.turn(step.input.clone());
        let afresh = fresh.turn(TurnInput {
            compaction: true,
            ..step.input.clone()
        });
        // The turn's first request: the fact sections to tell, appended
        // after the prompt; the host that rebuilds everything tells them in
        // full every turn.
        let told = told_pieces(conversation.request(RequestInput::at(turn.at)));
        let told_afresh = told_pieces(fresh.request(RequestInput::at(turn.at)));
        let model = conversation.session().model.name.clone();
        let at = turn.at.unix_seconds;
        let user = Piece::text(Segment::Turn, &words.words(step.user_words));
        let reply = Piece::text(Segment::History, &words.words(step.reply_words));
        let host = host_tools(conversation.session());
        let preloaded = preloaded(bundles, conversation.session(), loadable);
        let notes: Vec<Piece> = turn
            .notes
            .iter()
            .map(|note| Piece::text(Segment::Turn, &note.text))
            .collect();
        let kept_notes: Vec<Piece> = turn
            .notes
            .iter()
            .filter(|note| note.persisted)
            .map(|note| Piece::text(Segment::History, &note.text))
            .collect();
        let system = fnv(FNV_OFFSET, conversation.system_prompt().text.as_bytes());
        let facts = TurnFacts {
            key,
            model: &model,
            at,
            reply: reply.tokens,
            system,
            retention: profile.retention_index(&model),
        };
        let turn_of = |name: LayoutName,
                       kept: &[Part],
                       history: &[Piece],
                       tail: &[Piece],
                       told: &[Piece],
                       rounds: &[Piece]|
         -> Vec<(LayoutName, Sent)> {
            let mut pieces: Vec<Piece> = kept.iter().map(Piece::of).collect();
            pieces.extend_from_slice(history);
            let history_end = pieces.len().saturating_sub(1);
            pieces.extend_from_slice(tail);
            pieces.push(user);
            pieces.extend_from_slice(told);
            let marks = composed_marks(profile, &model, kept, &pieces, history_end);
            requests(name, &facts, &pieces, rounds, &marks)
        };

        // contrib, the design's table, and contrib without eager loads.
        let full_rounds = rounds(&step.calls, &preloaded, &mut stored.loaded, loadable);
        let kept = layout::kept(&conversation, Some(host.clone()), EagerLoads::SharedPrefix);
        played.short.extend(short_prefixes(profile, &model, &kept));
        played.sent.extend(turn_of(
            LayoutName::Contrib,
            &kept,
            &stored.pieces,
            &notes,
            &told,
            &full_rounds,
        ));
        let in_opening = layout::kept(&conversation, Some(host.clone()), EagerLoads::Opening);
        played.sent.extend(turn_of(
            LayoutName::DesignTable,
            &in_opening,
            &stored.pieces,
            &notes,
            &told,
            &full_rounds,
        ));
        if !loadable.is_empty() {
            let bare_rounds = rounds(&step.calls, &BTreeSet::new(), &mut bare.loaded, loadable);
            let unloaded = layout::kept(&conversation, Some(host.clone()), EagerLoads::None);
            played.sent.extend(turn_of(
                LayoutName::WithoutEagerLoads,
                &unloaded,
                &bare.pieces,
                &notes,
                &told,
                &bare_rounds,
            ));
            bare.pieces.extend_from_slice(&kept_notes);
            bare.pieces
                .extend(stored_turn(user, &told, &bare_rounds, reply));
        }

        // (b): the same static prefix, a plain history, and a per-turn block
        // rebuilt every turn and never stored.
        let block: Vec<Piece> = afresh
            .notes
            .iter()
            .map(|note| Piece::text(Segment::Turn, &note.text))
            .collect();
        played.sent.extend(turn_of(
            LayoutName::HandPlaced,
            &kept,
            &plain.pieces,
            &block,
            &told_afresh,
            &full_rounds,
        ));

        // (a): everything in the system prompt, rendered again now.
        let (pieces, marks, naive_system) = naive(
            &mut conversation,
            &turn,
            host,
            &kept,
            &plain.pieces,
            user,
            profile,
        );
        let facts = TurnFacts {
            system: naive_system,
            ..facts
        };
        played.sent.extend(requests(
            LayoutName::Naive,
            &facts,
            &pieces,
            &full_rounds,
            &marks,
        ));

        stored.pieces.extend_from_slice(&kept_notes);
        stored
            .pieces
            .extend(stored_turn(user, &told, &full_rounds, reply));
        plain
            .pieces
            .extend(stored_turn(user, &[], &full_rounds, reply));
    }
    played.recompositions = conversation.recompositions();
    played
}

/// The host's own tool definitions: `load_tools`, and the names of the
/// tools it can load. The same for every conversation of an agent until
/// its tools change.
fn host_tools(session: &Session) -> Part {
    Part::counted(
        Segment::Agent,
        "tool definitions: the host's",
        format!(
            "load_tools(names: list of tool names): loads tools for the rest of the conversation. Tools it can load: {}.",
            session.tools.join(", ")
        ),
    )
}

/// The items the session's eager loads put in the shared prefix, as
/// indices into `loadable`.
fn preloaded(bundles: &[Bundle], session: &Session, loadable: &[Loadable]) -> BTreeSet<usize> {
    let items: BTreeSet<Item> = bundles
        .iter()
        .flat_map(|bundle| &bundle.contributors)
        .filter(|contributor| contributor.kind == Kind::EagerLoad)
        .flat_map(|contributor| {
            let tools = contributor
                .tools
                .iter()
                .filter(|tool| session.tools.contains(tool))
                .map(|tool| Item::Tool { tool: tool.clone() });
            let operations = contributor
                .operations
                .iter()
                .filter(|load| session.skills.contains_key(&load.skill))
                .flat_map(|load| {
                    load.operations.iter().map(|operation| Item::Operation {
                        skill: load.skill.clone(),
                        operation: operation.clone(),
                    })
                });
            tools.chain(operations).collect::<Vec<_>>()
        })
        .collect();
    (0..loadable.len())
        .filter(|&index| items.contains(&loadable[index].item))
        .collect()
}

/// The rounds a turn spends fetching what it calls and has neither
/// preloaded nor fetched since the last compaction: a call and its result
/// per item.
fn rounds(
    calls: &[usize],
    preloaded: &BTreeSet<usize>,
    loaded: &mut BTreeSet<usize>,
    loadable: &[Loadable],
) -> Vec<Piece> {
    let mut pieces = Vec::new();
    for &index in calls {
        if preloaded.contains(&index) || !loaded.insert(index) {
            continue;
        }
        let item = &loadable[index];
        let call = match &item.item {
            Item::Tool { tool } => format!("load_tools {{\"names\": [\"{tool}\"]}}"),
            Item::Operation { skill, operation } => {
                format!("read skill {skill}: operation {operation}")
            }
        };
        pieces.push(Piece::text(Segment::Turn, &call));
        let result = format!("loaded {}", item.item);
        pieces.push(Piece {
            tokens: item.tokens,
            ..Piece::text(Segment::Turn, &result)
        });
    }
    pieces
}

/// The fact sections a request tells, one message each.
fn told_pieces(request: crate::runtime::Request) -> Vec<Piece> {
    request
        .messages
        .iter()
        .map(|message| Piece::text(Segment::Turn, &message.text))
        .collect()
}

/// What a turn leaves in the history: the prompt, the facts told after it,
/// its rounds, the reply.
fn stored_turn(user: Piece, told: &[Piece], rounds: &[Piece], reply: Piece) -> Vec<Piece> {
    std::iter::once(user)
        .chain(told.iter().copied())
        .chain(rounds.iter().copied())
        .chain(std::iter::once(reply))
        .map(|piece| Piece {
            segment: Segment::History,
            ..piece
        })
        .collect()
}

/// Breakpoints where `kept`'s shared prefixes and the stored history end,
/// as the profile places them.
fn composed_marks(
    profile: &Profile,
    model: &str,
    kept: &[Part],
    pieces: &[Piece],
    history_end: usize,
) -> Vec<Mark> {
    let mut boundaries = layout::boundaries(kept);
    let through: u64 = pieces.iter().take(history_end + 1).map(|p| p.tokens).sum();
    boundaries.push((Boundary::History, history_end, through));
    let placed = profile.place(
        model,
        &boundaries
            .iter()
            .map(|(boundary, _, tokens)| (*boundary, *tokens))
            .collect::<Vec<_>>(),
    );
    placed
        .breakpoints
        .iter()
        .filter_map(|breakpoint| {
            let (_, after, _) = boundaries
                .iter()
                .find(|(boundary, _, _)| *boundary == breakpoint.after)?;
            Some(Mark {
                after: *after,
                lifetime: profile.lifetime_index(breakpoint.after)?,
            })
        })
        .collect()
}

/// The contrib layout's shared prefixes too short for `model` to cache.
fn short_prefixes(profile: &Profile, model: &str, kept: &[Part]) -> Vec<(Boundary, u64)> {
    if profile.caching == crate::runtime::Caching::None {
        return Vec::new();
    }
    let minimum = profile.minimum_prefix(model);
    let mut previous = 0;
    let mut short = Vec::new();
    for (boundary, _, tokens) in layout::boundaries(kept) {
        if tokens != previous && tokens < minimum {
            short.push((boundary, tokens));
        }
        previous = tokens;
    }
    short
}

/// What every layout's requests on one turn share.
#[derive(Clone, Copy)]
struct TurnFacts<'m> {
    key: Key,
    model: &'m str,
    at: i64,
    /// The reply's tokens: the output of the turn's last request.
    reply: u64,
    /// The system prompt's hash in this layout.
    system: u64,
    /// The lifetime automatic caching keeps the model's prefixes for.
    retention: usize,
}

/// A turn's requests: the first, then one more per round, each with the
/// call and result before it; the last breakpoint moves to the end of the
/// request, so each round reads the one before.
fn requests(
    name: LayoutName,
    facts: &TurnFacts<'_>,
    pieces: &[Piece],
    rounds: &[Piece],
    marks: &[Mark],
) -> Vec<(LayoutName, Sent)> {
    let count = rounds.len() / 2;
    (0..=count)
        .map(|round| {
            let mut all = pieces.to_vec();
            all.extend_from_slice(&rounds[..2 * round]);
            let mut marks = marks.to_vec();
            if round > 0 {
                if let Some(last) = marks.iter_mut().max_by_key(|mark| mark.after) {
                    last.after = all.len() - 1;
                }
            }
            let output_tokens = rounds
                .get(2 * round)
                .map_or(facts.reply, |call| call.tokens);
            let sent = Sent {
                key: facts.key,
                request: request(facts, &all, marks),
                model: facts.model.to_string(),
                runs: runs(&all),
                output_tokens,
                system: (round == 0).then_some(facts.system),
                round: round < count,
                agent_end: all
                    .iter()
                    .rposition(|piece| piece.segment == Segment::Agent),
            };
            (name, sent)
        })
        .collect()
}

/// (a) naive: the host's tools, then every contribution rendered into the
/// system prompt now, then the stored messages; breakpoints after the
/// system prompt and after the history. Returns the pieces, the marks and
/// the system prompt's hash.
fn naive(
    conversation: &mut Composer<'_, CliGate>,
    turn: &crate::runtime::Turn,
    host: Part,
    kept: &[Part],
    history: &[Piece],
    user: Piece,
    profile: &Profile,
) -> (Vec<Piece>, Vec<Mark>, u64) {
    // What placement-aware layouts would share: the same texts come first
    // here, in the same order, so the first tokens are tagged by theirs.
    let shared = |segment: Segment| -> u64 {
        let kept: u64 = kept
            .iter()
            .filter(|part| part.segment <= segment)
            .map(|part| part.tokens)
            .sum();
        kept - host.tokens
    };
    let (agent, person) = (shared(Segment::Agent), shared(Segment::Person));
    let mut pieces = vec![Piece::of(&host)];
    let mut through = 0;
    let mut system = FNV_OFFSET;
    for (text, tokens) in conversation.everything_now(turn) {
        let text = format!("{text}\n\n");
        system = fnv(system, text.as_bytes());
        through += tokens;
        let segment = if through <= agent {
            Segment::Agent
        } else if through <= person {
            Segment::Person
        } else {
            Segment::Turn
        };
        pieces.push(Piece {
            tokens,
            ..Piece::text(segment, &text)
        });
    }
    let system_end = pieces.len().saturating_sub(1);
    pieces.extend_from_slice(history);
    let history_end = pieces.len().saturating_sub(1);
    pieces.push(user);
    // What a host that caches "the system prompt and the history" marks.
    let shortest = profile.lifetime_index(Boundary::History).unwrap_or(0);
    let marks = vec![
        Mark {
            after: system_end,
            lifetime: shortest,
        },
        Mark {
            after: history_end,
            lifetime: shortest,
        },
    ];
    (pieces, marks, system)
}

/// The request: each block's hash chains the model and everything before.
fn request(facts: &TurnFacts<'_>, pieces: &[Piece], marks: Vec<Mark>) -> Request {
    // The provider's cache is per model: the model name seeds the chain.
    let mut prefix = fnv(FNV_OFFSET, facts.model.as_bytes());
    let blocks = pieces
        .iter()
        .map(|piece| {
            prefix = fnv(prefix ^ 0xff, &piece.hash.to_le_bytes());
            Block {
                prefix,
                tokens: piece.tokens,
                bytes: piece.bytes,
            }
        })
        .collect();
    Request {
        at: facts.at,
        blocks,
        marks,
        retention: facts.retention,
        writer: facts.key.writer,
    }
}

/// The segment runs of `pieces`, adjacent runs of one segment merged.
fn runs(pieces: &[Piece]) -> Vec<(u64, u64, Segment)> {
    let mut runs: Vec<(u64, u64, Segment)> = Vec::new();
    let mut at = 0;
    for piece in pieces {
        let end = at + piece.tokens;
        match runs.last_mut() {
            Some(last) if last.2 == piece.segment && last.1 == at => last.1 = end,
            _ => runs.push((at, end, piece.segment)),
        }
        at = end;
    }
    runs
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, continuing from `hash`.
fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

//! The simulated world: agents, people, their sessions, and each
//! conversation's script of turns, all drawn from one seeded generator.

use std::collections::BTreeMap;

use super::{Options, Step};
use crate::bundle::usage::Item;
use crate::bundle::Bundle;
use crate::ir::Kind;
use crate::runtime::time::Timestamp;
use crate::runtime::TurnInput;
use crate::runtime::{Agent, Environment, Model, Permissions, Person, Session, Skill};

const AGENTS: &[&str] = &[
    "Review Assistant",
    "Research Helper",
    "Support Desk",
    "Release Captain",
    "Docs Writer",
];

const FIRST: &[&str] = &[
    "Sam",
    "Ada",
    "Kenji",
    "Priya",
    "Lucía",
    "Tomasz",
    "Amara",
    "Jonas",
    "Mei",
    "Oluwaseun",
];
const LAST: &[&str] = &[
    "Okafor", "Lovelace", "Watanabe", "Raman", "García", "Nowak", "Diallo", "Berg", "Chen",
];
/// Locale, zone label and its offset.
const PLACES: &[(&str, &str, i32)] = &[
    ("en-GB", "Europe/London", 0),
    ("en-US", "America/New_York", -300),
    ("de-DE", "Europe/Berlin", 60),
    ("ja-JP", "Asia/Tokyo", 540),
    ("en-IN", "Asia/Kolkata", 330),
    ("pt-BR", "America/Sao_Paulo", -180),
];

/// The agent's name: one of a few, then numbered.
pub(super) fn agent_name(agent: usize) -> String {
    match AGENTS.get(agent) {
        Some(name) => name.to_string(),
        None => format!("Agent {agent}"),
    }
}

pub(super) fn person(index: usize, rng: &mut Rng) -> Person {
    let (locale, timezone, offset) = *rng.pick(PLACES);
    Person {
        id: format!("person-{index}"),
        name: format!("{} {}", rng.pick(FIRST), rng.pick(LAST)),
        locale: locale.into(),
        timezone: timezone.into(),
        utc_offset: Some(offset),
    }
}

/// A session for one conversation: the tools and skills the bundles use,
/// started during the person's working week.
pub(super) fn session(
    bundles: &[Bundle],
    agent: usize,
    person: &Person,
    options: &Options,
    rng: &mut Rng,
) -> Session {
    let name = agent_name(agent);
    let mut tools: Vec<String> = bundles
        .iter()
        .flat_map(|bundle| &bundle.contributors)
        .filter(|contributor| contributor.kind == Kind::EagerLoad)
        .flat_map(|contributor| {
            let candidates = contributor.choice.iter().flat_map(|choice| {
                choice
                    .candidates
                    .iter()
                    .filter_map(|candidate| match &candidate.item {
                        Item::Tool { tool } => Some(tool.clone()),
                        Item::Operation { .. } => None,
                    })
            });
            contributor.tools.iter().cloned().chain(candidates)
        })
        .chain(["get_current_time".to_string(), "fetch_url".to_string()])
        .collect();
    tools.sort();
    tools.dedup();
    Session {
        // The simulated people have fixed offsets, so the figures do not
        // depend on the time zone database.
        started_at: working_hours(
            options.start,
            options.days,
            person.offset_at(options.start),
            rng,
        ),
        tools,
        agent: Agent { name },
        person: Some(person.clone()),
        max_tokens: None,
        model: Model {
            name: options.model.clone(),
            effort: Some("medium".into()),
        },
        environment: Environment {
            os: Some("linux".into()),
            arch: Some("x86_64".into()),
            workspace_root: Some(format!("/srv/workspaces/agent-{agent}")),
        },
        skills: skills(bundles),
        permissions: Permissions {
            mode: Some("default".to_string()),
            allowed: Vec::new(),
        },
        origins: BTreeMap::new(),
    }
}

/// A moment in the person's working hours on one of the first `days` days
/// of the week, between 08:00 and 20:00 in their own offset, so that an
/// agent's traffic follows the sun across its people and goes quiet at
/// night.
fn working_hours(week: Timestamp, days: u32, offset_minutes: i32, rng: &mut Rng) -> Timestamp {
    let day = rng.below(u64::from(days.max(1))) as i64;
    let local = 8 * 3_600 + rng.below(12 * 3_600) as i64;
    week.plus_seconds(day * 86_400 + local - i64::from(offset_minutes) * 60)
        .at_offset(offset_minutes)
}

/// A version of each required skill that meets every requirement on it.
fn skills(bundles: &[Bundle]) -> BTreeMap<String, Skill> {
    let mut requirements: BTreeMap<&str, Vec<semver::VersionReq>> = BTreeMap::new();
    for bundle in bundles {
        for (skill, requirement) in &bundle.requires {
            if let Ok(requirement) = semver::VersionReq::parse(requirement) {
                requirements.entry(skill).or_default().push(requirement);
            }
        }
    }
    requirements
        .into_iter()
        .map(|(skill, requirements)| {
            let candidates = requirements.iter().flat_map(|requirement| {
                requirement.comparators.iter().map(|comparator| {
                    semver::Version::new(
                        comparator.major,
                        comparator.minor.unwrap_or(0),
                        comparator.patch.unwrap_or(0),
                    )
                })
            });
            let version = candidates
                .clone()
                .filter(|version| requirements.iter().all(|r| r.matches(version)))
                .max()
                .or_else(|| candidates.max())
                .unwrap_or_else(|| semver::Version::new(1, 0, 0));
            (skill.to_string(), Skill::at(version))
        })
        .collect()
}

/// A conversation's turns: gaps, who is replying, a model switch, the skill
/// update if the week's midpoint falls inside it, compactions, and what
/// each turn calls (`calls[i]` is item `i`'s chance per turn).
pub(super) fn script(
    session: &Session,
    options: &Options,
    calls: &[f64],
    skill_update_at: Timestamp,
    rng: &mut Rng,
) -> Vec<Step> {
    let turns = length(options, rng);
    let switch_at =
        (turns > 1 && rng.below(4) == 0).then(|| 1 + rng.below(turns as u64 - 1) as usize);
    let mut at = session.started_at;
    let mut skills_updated = session.started_at.unix_seconds >= skill_update_at.unix_seconds;
    let mut history_tokens = 0u64;
    let mut steps = Vec::new();
    for index in 0..turns {
        at = at.plus_seconds(gap(rng));
        let mut input = TurnInput::reply_at(at);
        input.replying = rng.below(10) != 0;
        if switch_at == Some(index) {
            input.model = Some(Model {
                name: options.switch_model.clone(),
                effort: session.model.effort.clone(),
            });
        }
        if !skills_updated && at.unix_seconds >= skill_update_at.unix_seconds {
            skills_updated = true;
            input.skills = Some(
                session
                    .skills
                    .iter()
                    .map(|(slug, skill)| {
                        let version = &skill.version;
                        (
                            slug.clone(),
                            Skill::at(semver::Version::new(version.major, version.minor + 1, 0)),
                        )
                    })
                    .collect(),
            );
        }
        if history_tokens > options.compact_after_tokens {
            input.compaction = true;
            history_tokens = options.summary_words as u64;
        }
        let user_words = 15 + rng.below(100) as usize;
        let reply_words = 40 + rng.below(360) as usize;
        // Roughly 1.3 tokens a word, as the synthetic words tokenize.
        history_tokens += (user_words + reply_words) as u64 * 13 / 10;
        let calls = calls
            .iter()
            .enumerate()
            .filter(|(_, per_turn)| rng.unit() < **per_turn)
            .map(|(item, _)| item)
            .collect();
        steps.push(Step {
            input,
            user_words,
            reply_words,
            calls,
        });
    }
    steps
}

/// How many turns a conversation has: from `min_turns` to `turns`, short
/// ones commonest (the square of a uniform draw), so the mean is about a
/// third of the way up.
fn length(options: &Options, rng: &mut Rng) -> usize {
    let fewest = options.min_turns.clamp(1, options.turns.max(1));
    let span = options.turns.max(fewest) - fewest + 1;
    let u = rng.unit();
    fewest + ((span as f64 * u * u) as usize).min(span - 1)
}

/// An idle gap before a turn, in seconds: mostly minutes, sometimes hours,
/// now and then overnight.
fn gap(rng: &mut Rng) -> i64 {
    let roll = rng.below(100);
    let (low, high) = match roll {
        0..70 => (20, 300),
        70..90 => (300, 2 * 3_600),
        90..98 => (2 * 3_600, 12 * 3_600),
        _ => (12 * 3_600, 36 * 3_600),
    };
    (low + rng.below(high - low)) as i64
}

pub(super) fn mix(agent: usize, person: usize, conversation: usize) -> u64 {
    let mut rng = Rng(((agent as u64) << 40) ^ ((person as u64) << 20) ^ conversation as u64);
    rng.next()
}

/// splitmix64: small, fast, and the same on every machine.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `[0, 1)`.
    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        self.next() % n
    }

    fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// `count` synthetic words.
    pub(super) fn words(&mut self, count: usize) -> String {
        const WORDS: &[&str] = &[
            "the", "review", "function", "returns", "a", "value", "when", "cache", "is", "warm",
            "please", "check", "diff", "and", "test", "why", "does", "this", "fail", "on",
            "release", "build", "prefix", "person", "agent", "budget", "token", "we", "should",
            "refactor", "module", "error", "handling", "in", "parser",
        ];
        let mut text = String::new();
        for index in 0..count {
            if index > 0 {
                text.push(' ');
            }
            let word: &&str = self.pick(WORDS);
            text.push_str(word);
        }
        text
    }
}

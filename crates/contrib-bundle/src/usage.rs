//! Eager loads chosen by usage: what recorded turns called, and the tools
//! and skill operations worth loading before the first turn.
//!
//! A usage file is JSON Lines, one turn per line: the turn as the runtime
//! reports it (`contrib compose --format json` prints them under `turns`),
//! with two fields the host adds from what it saw, `conversation` (an id
//! the turns of one conversation share) and `calls` (what the model called
//! on that turn). Every other field is ignored, so a host can append its
//! stored turn records as they are:
//!
//! ```json
//! {"conversation": "c-1842", "number": 3, "calls": [{"tool": "read_object"}, {"skill": "code-review", "operation": "diff"}]}
//! ```
//!
//! An eager load saves one round the first time a conversation needs what
//! it loads, and costs its tokens in every request, so the choice counts
//! *conversations*: an item called in 60% of them saves 0.6 rounds per
//! conversation. Items called in fewer than [`FLOOR`] of conversations are
//! never loaded; of the rest, the choice is the set that saves the most
//! rounds within the budget (an exact knapsack, the skill's manifest paid
//! once if any operation is chosen). The choice is frozen into the bundle
//! with the usage file's digest, so a version always loads the same things
//! and the cached prefix stays stable; new usage means a new version.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The share of conversations an item must be called in to be loaded ahead.
pub const FLOOR: f64 = 0.05;

/// Above this many budget tokens the knapsack counts in coarser units
/// (item costs rounded up, so the choice still fits).
const KNAPSACK_CELLS: u64 = 100_000;

/// Something a turn can call that an eager load can load ahead.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Item {
    Tool { tool: String },
    Operation { skill: String, operation: String },
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Tool { tool } => write!(f, "{tool}"),
            Item::Operation { skill, operation } => write!(f, "{skill}.{operation}"),
        }
    }
}

/// Why a usage file could not be read, or a manifest's usage found.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be read, or leads out of the manifest's folder.
    Fs(contrib_core::fs::Error),
    /// Line `number` is not a turn's JSON.
    NotJson {
        number: usize,
        source: serde_json::Error,
    },
    /// A call on line `number` names neither a tool nor a skill operation.
    NotACall { number: usize },
    /// The usage file at `path` does not parse.
    File { path: PathBuf, source: Box<Error> },
    /// The usage file `contributor` of `manifest` chooses from cannot be
    /// read.
    Chosen {
        manifest: PathBuf,
        contributor: String,
        source: Box<Error>,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Fs(error) => error.fmt(f),
            Error::NotJson { number, source } => write!(f, "line {number}: {source}"),
            Error::NotACall { number } => write!(
                f,
                "line {number}: a call names a `tool`, or a `skill` and its `operation`"
            ),
            Error::File { path, source } => write!(f, "`{}`, {source}", path.display()),
            Error::Chosen {
                manifest,
                contributor,
                source,
            } => write!(
                f,
                "`{}`: `{contributor}` chooses from usage, but {source}",
                manifest.display()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Fs(error) => Some(error),
            Error::NotJson { source, .. } => Some(source),
            Error::NotACall { .. } => None,
            Error::File { source, .. } | Error::Chosen { source, .. } => Some(source.as_ref()),
        }
    }
}

impl From<contrib_core::fs::Error> for Error {
    fn from(error: contrib_core::fs::Error) -> Error {
        Error::Fs(error)
    }
}

into_text!(Error);

/// How often one item was called.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Turns that called it.
    pub turns: u64,
    /// Conversations in which some turn called it.
    pub conversations: u64,
}

/// A usage file, read.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Usage {
    pub turns: u64,
    pub conversations: u64,
    pub items: BTreeMap<Item, Tally>,
    /// `sha256:<hex>` of the file's bytes.
    pub digest: String,
}

/// One line of a usage file; other fields are the turn record's.
#[derive(Deserialize)]
struct Line {
    #[serde(default)]
    conversation: Option<String>,
    calls: Vec<RawCall>,
}

#[derive(Deserialize)]
struct RawCall {
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    skill: Option<String>,
    #[serde(default)]
    operation: Option<String>,
}

impl RawCall {
    /// The item called; `None` when the call names neither a tool nor a
    /// skill and its operation.
    fn item(self) -> Option<Item> {
        match (self.tool, self.skill, self.operation) {
            (Some(tool), None, None) => Some(Item::Tool { tool }),
            (None, Some(skill), Some(operation)) => Some(Item::Operation { skill, operation }),
            _ => None,
        }
    }
}

impl Usage {
    /// Reads usage from JSON Lines; blank lines are skipped. A line without
    /// a `conversation` is a conversation of its own.
    pub fn parse(text: &str) -> Result<Usage, Error> {
        let mut usage = Usage {
            digest: super::canonical::digest_of_bytes(text.as_bytes()),
            ..Usage::default()
        };
        let mut seen: BTreeMap<Item, BTreeSet<String>> = BTreeMap::new();
        let mut conversations = BTreeSet::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let number = index + 1;
            let parsed: Line =
                serde_json::from_str(line).map_err(|source| Error::NotJson { number, source })?;
            let conversation = parsed
                .conversation
                .unwrap_or_else(|| format!("\u{0}line {number}"));
            conversations.insert(conversation.clone());
            usage.turns += 1;
            let mut called = BTreeSet::new();
            for call in parsed.calls {
                called.insert(call.item().ok_or(Error::NotACall { number })?);
            }
            for item in called {
                usage.items.entry(item.clone()).or_default().turns += 1;
                seen.entry(item).or_default().insert(conversation.clone());
            }
        }
        usage.conversations = conversations.len() as u64;
        for (item, in_conversations) in seen {
            usage.items.entry(item).or_default().conversations = in_conversations.len() as u64;
        }
        Ok(usage)
    }

    /// Reads a usage file.
    pub fn read(path: &Path) -> Result<Usage, Error> {
        let text = contrib_core::fs::read_text(path, contrib_core::limits::files::USAGE)?;
        Usage::parse(&text).map_err(|error| Error::File {
            path: path.to_path_buf(),
            source: Box::new(error),
        })
    }

    pub fn tally(&self, item: &Item) -> Tally {
        self.items.get(item).copied().unwrap_or_default()
    }

    /// The share of conversations that called `item`.
    pub fn share(&self, item: &Item) -> f64 {
        if self.conversations == 0 {
            return 0.0;
        }
        self.tally(item).conversations as f64 / self.conversations as f64
    }

    /// The share of turns that called `item`.
    pub fn per_turn(&self, item: &Item) -> f64 {
        if self.turns == 0 {
            return 0.0;
        }
        self.tally(item).turns as f64 / self.turns as f64
    }
}

/// Something an eager load may load, and what it adds to every request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub item: Item,
    pub tokens: u64,
}

/// One candidate, weighed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Considered {
    pub item: Item,
    pub tokens: u64,
    /// Conversations in the usage file that called it.
    pub conversations: u64,
    pub chosen: bool,
    pub why: String,
}

/// The choice for one eager load.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    pub chosen: Vec<Item>,
    /// What the chosen items add to every request, the manifest included.
    pub tokens: u64,
    /// The rounds a conversation saves on average.
    pub rounds_saved_per_conversation: f64,
    pub considered: Vec<Considered>,
}

/// Chooses from `candidates` what saves the most rounds within `budget`,
/// paying `manifest_tokens` once if any skill operation is chosen.
pub fn choose(
    candidates: &[Candidate],
    manifest_tokens: u64,
    budget: u64,
    usage: &Usage,
) -> Choice {
    let worth = |candidate: &&Candidate| {
        usage.share(&candidate.item) >= FLOOR && candidate.tokens <= budget
    };
    let tools: Vec<&Candidate> = candidates
        .iter()
        .filter(worth)
        .filter(|candidate| matches!(candidate.item, Item::Tool { .. }))
        .collect();
    let everything: Vec<&Candidate> = candidates.iter().filter(worth).collect();
    let value = |set: &[&Candidate]| -> u64 {
        set.iter()
            .map(|candidate| usage.tally(&candidate.item).conversations)
            .sum()
    };
    let tools_only = knapsack(&tools, budget, usage);
    let with_operations = (everything.len() > tools.len() && manifest_tokens <= budget)
        .then(|| knapsack(&everything, budget - manifest_tokens, usage))
        .filter(|set| set.iter().any(|c| matches!(c.item, Item::Operation { .. })));
    let cost = |set: &[&Candidate], manifest: u64| -> u64 {
        set.iter().map(|candidate| candidate.tokens).sum::<u64>() + manifest
    };
    let (set, manifest) = match with_operations {
        Some(set)
            if (value(&set), std::cmp::Reverse(cost(&set, manifest_tokens)))
                > (value(&tools_only), std::cmp::Reverse(cost(&tools_only, 0))) =>
        {
            (set, manifest_tokens)
        }
        _ => (tools_only, 0),
    };
    let chosen: BTreeSet<&Item> = set.iter().map(|candidate| &candidate.item).collect();
    let considered = candidates
        .iter()
        .map(|candidate| weigh(candidate, chosen.contains(&candidate.item), budget, usage))
        .collect();
    Choice {
        chosen: chosen.iter().map(|item| (*item).clone()).collect(),
        tokens: cost(&set, manifest),
        rounds_saved_per_conversation: set.iter().map(|c| usage.share(&c.item)).sum(),
        considered,
    }
}

/// Why `candidate` was chosen or not, in a sentence.
fn weigh(candidate: &Candidate, chosen: bool, budget: u64, usage: &Usage) -> Considered {
    let tally = usage.tally(&candidate.item);
    let share = usage.share(&candidate.item);
    let called = format!(
        "called in {:.0}% of conversations ({} of {})",
        share * 100.0,
        tally.conversations,
        usage.conversations
    );
    let why = if chosen {
        called
    } else if tally.turns == 0 {
        "never called in the usage file".to_string()
    } else if share < FLOOR {
        format!("{called}, under the {:.0}% floor", FLOOR * 100.0)
    } else if candidate.tokens > budget {
        format!(
            "{called}, but its {} tokens exceed the budget",
            candidate.tokens
        )
    } else {
        format!("{called}, but the budget saves more rounds when spent on others")
    };
    Considered {
        item: candidate.item.clone(),
        tokens: candidate.tokens,
        conversations: tally.conversations,
        chosen,
        why,
    }
}

/// The subset of `items` with the most conversations calling them whose
/// tokens fit in `capacity`; ties go to fewer tokens, then to the earlier
/// items.
fn knapsack<'c>(items: &[&'c Candidate], capacity: u64, usage: &Usage) -> Vec<&'c Candidate> {
    let total: u64 = items.iter().map(|candidate| candidate.tokens).sum();
    if total <= capacity {
        return items.to_vec();
    }
    let unit = capacity.div_ceil(KNAPSACK_CELLS).max(1);
    let cells = (capacity / unit) as usize;
    let weight = |candidate: &Candidate| candidate.tokens.div_ceil(unit) as usize;
    // best[w] = (conversations saved, -tokens) with weight at most w.
    let mut best = vec![(0u64, 0i64); cells + 1];
    let mut keep = vec![vec![false; cells + 1]; items.len()];
    for (index, candidate) in items.iter().enumerate() {
        let w = weight(candidate);
        let gain = usage.tally(&candidate.item).conversations;
        for cell in (w..=cells).rev() {
            let (value, negative_tokens) = best[cell - w];
            let taken = (value + gain, negative_tokens - candidate.tokens as i64);
            if taken > best[cell] {
                best[cell] = taken;
                keep[index][cell] = true;
            }
        }
    }
    let mut cell = cells;
    let mut chosen = Vec::new();
    for index in (0..items.len()).rev() {
        if keep[index][cell] {
            chosen.push(items[index]);
            cell -= weight(items[index]);
        }
    }
    chosen.reverse();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, tokens: u64) -> Candidate {
        Candidate {
            item: Item::Tool { tool: name.into() },
            tokens,
        }
    }

    fn operation(name: &str, tokens: u64) -> Candidate {
        Candidate {
            item: Item::Operation {
                skill: "review".into(),
                operation: name.into(),
            },
            tokens,
        }
    }

    /// `lines` conversations of one turn each, calling what each line names.
    fn usage(lines: &[&[&str]]) -> Usage {
        let text: Vec<String> = lines
            .iter()
            .enumerate()
            .map(|(index, calls)| {
                let calls: Vec<String> = calls
                    .iter()
                    .map(|call| match call.split_once('.') {
                        Some((skill, operation)) => {
                            format!(r#"{{"skill": "{skill}", "operation": "{operation}"}}"#)
                        }
                        None => format!(r#"{{"tool": "{call}"}}"#),
                    })
                    .collect();
                format!(
                    r#"{{"conversation": "c{index}", "calls": [{}]}}"#,
                    calls.join(", ")
                )
            })
            .collect();
        Usage::parse(&text.join("\n")).unwrap()
    }

    #[test]
    fn counts_conversations_not_calls() {
        let text = concat!(
            r#"{"conversation": "a", "number": 1, "calls": [{"tool": "x"}, {"tool": "x"}]}"#,
            "\n",
            r#"{"conversation": "a", "number": 2, "calls": [{"tool": "x", "arguments": {}}]}"#,
            "\n\n",
            r#"{"conversation": "b", "calls": []}"#,
        );
        let usage = Usage::parse(text).unwrap();
        let x = Item::Tool { tool: "x".into() };
        assert_eq!((usage.turns, usage.conversations), (3, 2));
        assert_eq!(
            usage.tally(&x),
            Tally {
                turns: 2,
                conversations: 1
            }
        );
        assert!((usage.share(&x) - 0.5).abs() < 1e-9);
        assert!(usage.digest.starts_with("sha256:"));
    }

    #[test]
    fn bad_lines_are_located() {
        let error = Usage::parse("{\"calls\": []}\n{\"calls\": [{\"skill\": \"s\"}]}")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "line 2: a call names a `tool`, or a `skill` and its `operation`"
        );
        assert!(Usage::parse("not json")
            .unwrap_err()
            .to_string()
            .starts_with("line 1:"));
    }

    #[test]
    fn the_choice_saves_the_most_rounds_within_the_budget() {
        // a: 6 of 10 conversations, b: 5, c: 4, d: 1 (under the floor? no, 10%).
        let usage = usage(&[
            &["a", "b", "c"],
            &["a", "b", "c"],
            &["a", "b", "c"],
            &["a", "b", "c"],
            &["a", "b", "d"],
            &["a"],
            &[],
            &[],
            &[],
            &[],
        ]);
        let candidates = [
            tool("a", 300),
            tool("b", 300),
            tool("c", 200),
            tool("d", 50),
            tool("e", 10),
        ];
        // 500 tokens: a + c saves 10 rounds in 10 conversations, b + c 9.
        let choice = choose(&candidates, 0, 500, &usage);
        let names: Vec<String> = choice.chosen.iter().map(ToString::to_string).collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(choice.tokens, 500);
        assert!((choice.rounds_saved_per_conversation - 1.0).abs() < 1e-9);
        let why: Vec<&str> = choice.considered.iter().map(|c| c.why.as_str()).collect();
        assert_eq!(why[0], "called in 60% of conversations (6 of 10)");
        assert_eq!(
            why[1],
            "called in 50% of conversations (5 of 10), but the budget saves more rounds when spent on others"
        );
        assert_eq!(why[4], "never called in the usage file");
    }

    #[test]
    fn the_floor_and_the_manifest_are_honoured() {
        let mut lines: Vec<&[&str]> = vec![&["review.diff"]; 10];
        lines.push(&["rare"]);
        lines.extend(std::iter::repeat_n(&[][..], 29));
        let usage = usage(&lines);
        let candidates = [operation("diff", 400), tool("rare", 10)];
        // 1 conversation in 40 is 2.5%: under the floor.
        let choice = choose(&candidates, 300, 800, &usage);
        assert_eq!(
            choice.chosen,
            [Item::Operation {
                skill: "review".into(),
                operation: "diff".into()
            }]
        );
        assert_eq!(choice.tokens, 700, "the manifest is paid once");
        assert!(choice.considered[1].why.ends_with("under the 5% floor"));
        // Without room for the manifest, no operation is loaded.
        assert!(choose(&candidates, 300, 600, &usage).chosen.is_empty());
    }

    #[test]
    fn a_large_budget_counts_in_coarser_units_and_still_fits() {
        let lines: Vec<&[&str]> = vec![&["a", "b", "c"]; 4];
        let usage = usage(&lines);
        let candidates = [tool("a", 150_001), tool("b", 150_001), tool("c", 100_000)];
        let choice = choose(&candidates, 0, 300_001, &usage);
        assert!(choice.tokens <= 300_001);
        assert_eq!(choice.chosen.len(), 2);
    }
}

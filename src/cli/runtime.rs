//! `contrib compose` and `contrib simulate`: the runtime, from the command
//! line.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::output::{self, ReportFormat};
use super::{fail, installed, Outcome};
use crate::report::terminal::visible;
use crate::runtime::simulate::{self, Figures, Options, Report};
use crate::runtime::{
    Boundary, Breakpoint, Caching, OpeningItem, Profile, Profiles, Session, SystemPrompt, Turn,
    TurnInput,
};

#[derive(Args)]
pub struct ComposeArgs {
    /// The workspace (holding `contrib.toml` and `contrib.lock`): compose
    /// exactly what its lock pins, re-checked under its policy.
    #[arg(long, value_name = "DIR", required_unless_present = "bundles")]
    workspace: Option<PathBuf>,
    /// A folder of bundles (`*.bundle.json`, searched recursively) to look
    /// at UNAPPROVED: nothing is installed or re-checked.
    #[arg(long, value_name = "DIR", conflicts_with = "workspace")]
    bundles: Option<PathBuf>,
    /// The session file: agent, person, model, tools, skills, permissions,
    /// start (see `docs/config.md`).
    #[arg(long, value_name = "FILE")]
    session: PathBuf,
    /// The turns file (`[[turn]]` tables); one turn a minute after the
    /// start when left out.
    #[arg(long, value_name = "FILE")]
    turns: Option<PathBuf>,
    #[command(flatten)]
    cache: CacheArgs,
    /// How to write the layout.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    format: ReportFormat,
}

#[derive(Args)]
pub struct SimulateArgs {
    /// The workspace: simulate exactly what its lock pins, re-checked.
    #[arg(long, value_name = "DIR", required_unless_present = "bundles")]
    workspace: Option<PathBuf>,
    /// A folder of bundles to simulate UNAPPROVED: nothing is installed or
    /// re-checked.
    #[arg(long, value_name = "DIR", conflicts_with = "workspace")]
    bundles: Option<PathBuf>,
    /// Agents, each with its own system prompt (1 to 100).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = up_to(100))]
    agents: usize,
    /// Persons, each talking to every agent (1 to 10,000).
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = up_to(10_000))]
    persons: usize,
    /// Conversations per agent and person (1 to 1,000).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = up_to(1_000))]
    conversations: usize,
    /// Turns per conversation (1 to 1,000).
    #[arg(long, value_name = "N", default_value_t = 12, value_parser = up_to(1_000))]
    turns: usize,
    /// Seeds the simulated people and timings: the same seed, the same run.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Compact a conversation when its stored history passes this many
    /// tokens (1 to 10,000,000).
    #[arg(
        long,
        value_name = "TOKENS",
        default_value_t = Options::default().compact_after_tokens,
        value_parser = clap::value_parser!(u64).range(1..=10_000_000)
    )]
    compact_after: u64,
    #[command(flatten)]
    cache: CacheArgs,
    /// How to write the report.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    format: ReportFormat,
}

/// A count that must be at least one: a simulation of no one has no
/// figures to compare.
/// A count from 1 to `max`: each bound is generous on its own, and
/// refusing more at parse time keeps a run from aborting on allocation.
fn up_to(max: usize) -> impl Fn(&str) -> Result<usize, String> + Clone + Send + Sync + 'static {
    move |text: &str| match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(count) if count > max => Err(format!("must be at most {max}")),
        Ok(count) => Ok(count),
        Err(_) => Err(format!("`{text}` is not a whole number")),
    }
}

#[derive(Args)]
struct CacheArgs {
    /// The provider cache profile: `anthropic`, `openai`, `none`, or one
    /// from `--profiles`.
    #[arg(long, default_value = "anthropic")]
    profile: String,
    /// A profiles file replacing the shipped `profiles.toml`.
    #[arg(long, value_name = "FILE")]
    profiles: Option<PathBuf>,
}

impl CacheArgs {
    fn profile(&self) -> Result<Profile, String> {
        let profiles = match &self.profiles {
            Some(path) => Profiles::load(path)?,
            None => Profiles::builtin(),
        };
        profiles.get(&self.profile).cloned().ok_or_else(|| {
            format!(
                "there is no cache profile `{}`; there are: {}",
                self.profile,
                profiles.names().collect::<Vec<_>>().join(", ")
            )
        })
    }
}

/// The request layout `compose` prints.
#[derive(Serialize)]
struct Layout {
    /// Loaded from `--bundles`: nothing here was installed or re-checked.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    unapproved: bool,
    /// What the workspace's lock pins but loading refused, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    refused_at_load: Vec<String>,
    profile: String,
    system_prompt: SystemPrompt,
    breakpoints: Vec<Breakpoint>,
    opening: Vec<OpeningItem>,
    turns: Vec<TurnLayout>,
    warnings: Vec<String>,
}

#[derive(Serialize)]
struct TurnLayout {
    #[serde(flatten)]
    turn: Turn,
    /// The system prompt, when a recomposition changed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    system_prompt: Option<SystemPrompt>,
    /// The opening, when a recomposition changed its texts.
    #[serde(skip_serializing_if = "Option::is_none")]
    opening: Option<Vec<OpeningItem>>,
}

pub fn compose(args: &ComposeArgs) -> Outcome {
    match layout(args) {
        Ok(layout) => {
            let text = match args.format {
                ReportFormat::Json => match serde_json::to_string_pretty(&layout) {
                    Ok(text) => text,
                    Err(error) => return fail(format!("cannot write the layout: {error}")),
                },
                ReportFormat::Human => visible(&human_layout(&layout)).into_owned(),
            };
            output::result(text, Outcome::Clean)
        }
        Err(message) => fail(message),
    }
}

fn layout(args: &ComposeArgs) -> Result<Layout, String> {
    let host = installed::Host::open(args.workspace.as_deref(), args.bundles.as_deref())?;
    let session = Session::load(&args.session)?;
    let turns = match &args.turns {
        Some(path) => installed::read_turns(path)?,
        None => vec![(
            TurnInput::reply_at(session.started_at.plus_seconds(60)),
            installed::Events::default(),
        )],
    };
    let profile = args.cache.profile()?;
    let mut conversation = host.start(session, &profile);
    let system_prompt = conversation.system_prompt().clone();
    let breakpoints = conversation.breakpoints().to_vec();
    let opening = conversation.opening().to_vec();
    let mut warnings = conversation.warnings().to_vec();
    let mut kept = system_prompt.clone();
    let mut kept_opening = opening.clone();
    let mut laid_out = Vec::new();
    for (input, events) in turns {
        host.before_turn(&mut conversation, &events);
        let turn = conversation.turn(input);
        let now = conversation.system_prompt();
        let changed = (*now != kept).then(|| now.clone());
        kept = now.clone();
        let opening_now = conversation.opening();
        let opening_changed = (opening_now != kept_opening).then(|| opening_now.to_vec());
        kept_opening = opening_now.to_vec();
        for warning in conversation.warnings() {
            if !warnings.contains(warning) {
                warnings.push(warning.clone());
            }
        }
        laid_out.push(TurnLayout {
            turn,
            system_prompt: changed,
            opening: opening_changed,
        });
    }
    Ok(Layout {
        unapproved: host.unapproved(),
        refused_at_load: host.refused_at_load().to_vec(),
        profile: profile.name,
        system_prompt,
        breakpoints,
        opening,
        turns: laid_out,
        warnings,
    })
}

fn human_layout(layout: &Layout) -> String {
    let mut out = String::new();
    if layout.unapproved {
        let _ = writeln!(
            out,
            "!! unapproved: these bundles were loaded from a folder; nothing here was installed or re-checked (use `--workspace`)\n"
        );
    }
    for refused in &layout.refused_at_load {
        let _ = writeln!(out, "refused at load: {refused}");
    }
    if !layout.refused_at_load.is_empty() {
        out.push('\n');
    }
    let marker = |out: &mut String, boundary: Boundary| {
        let placed = layout
            .breakpoints
            .iter()
            .position(|breakpoint| breakpoint.after == boundary);
        match placed {
            Some(index) => {
                let breakpoint = &layout.breakpoints[index];
                let _ = writeln!(
                    out,
                    "~~~~ cache breakpoint {}: {} ends here ({} tokens, lifetime {})",
                    index + 1,
                    boundary.describe(),
                    breakpoint.tokens,
                    breakpoint.lifetime
                );
            }
            None => {
                let _ = writeln!(out, "~~~~ {} ends here", boundary.describe());
            }
        }
    };
    let _ = writeln!(
        out,
        "== system prompt (kept; cache profile `{}`)",
        layout.profile
    );
    system_prompt(&mut out, &layout.system_prompt, |out| {
        marker(out, Boundary::Agent)
    });
    marker(&mut out, Boundary::Person);
    let _ = writeln!(out, "\n== conversation opening");
    opening(&mut out, &layout.opening);
    marker(&mut out, Boundary::Opening);
    for turn in &layout.turns {
        human_turn(&mut out, turn);
    }
    for warning in &layout.warnings {
        let _ = writeln!(out, "\nwarning: {warning}");
    }
    out.trim_end().to_string()
}

/// The system prompt's contributions, calling `agent_end` where the agent
/// prefix ends.
fn system_prompt(out: &mut String, prompt: &SystemPrompt, agent_end: impl Fn(&mut String)) {
    let mut marked = false;
    for contribution in &prompt.contributions {
        if contribution.placement == crate::ir::Placement::Person && !marked {
            agent_end(out);
            marked = true;
        }
        let _ = writeln!(
            out,
            "-- {} [{}]\n{}\n",
            contribution.contributor, contribution.placement, contribution.text
        );
    }
    if !marked {
        agent_end(out);
    }
}

fn opening(out: &mut String, items: &[OpeningItem]) {
    for item in items {
        let label = item
            .label
            .as_ref()
            .map_or_else(String::new, |label| format!(", {label}"));
        let _ = writeln!(
            out,
            "-- {} [{}{label}]\n{}",
            item.contributor,
            kind_name(item.kind),
            item.text
        );
    }
}

fn kind_name(kind: crate::runtime::OpeningKind) -> &'static str {
    match kind {
        crate::runtime::OpeningKind::LoadTools => "load_tools call",
        crate::runtime::OpeningKind::SkillRead => "skill read",
        crate::runtime::OpeningKind::Run => "eager run",
        crate::runtime::OpeningKind::Text => "conversation text",
    }
}

fn human_turn(out: &mut String, layout: &TurnLayout) {
    let turn = &layout.turn;
    let _ = writeln!(out, "\n== turn {} at {}", turn.number, turn.at);
    if let Some(why) = &turn.recomposed {
        let what = if layout.system_prompt.is_some() {
            "composed again, and it changed"
        } else {
            "composed again, byte for byte the same"
        };
        let _ = writeln!(out, "system prompt {what}: {why}");
    }
    if let Some(prompt) = &layout.system_prompt {
        system_prompt(out, prompt, |_| {});
    }
    if let Some(items) = &layout.opening {
        let _ = writeln!(out, "the opening's texts, rendered again:");
        opening(out, items);
    }
    let _ = writeln!(
        out,
        "~~~~ the stored history ends here: a host with a breakpoint to spare puts it here"
    );
    if turn.notes.is_empty() {
        let _ = writeln!(out, "(no notes)");
    }
    for note in &turn.notes {
        let stored = if note.persisted {
            "stored"
        } else {
            "not stored"
        };
        let _ = writeln!(
            out,
            "-- {} [{}, {stored}]\n{}",
            note.contributor, note.kind, note.text
        );
    }
    let record = &turn.record;
    let _ = writeln!(out, "record:");
    let _ = writeln!(out, "  turn contributors:");
    let mut by_plugin: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    for contributor in &record.turn_contributors {
        match by_plugin.last_mut() {
            Some((plugin, _, ids)) if *plugin == contributor.plugin => {
                ids.push(&contributor.id);
            }
            _ => by_plugin.push((
                &contributor.plugin,
                &contributor.digest,
                vec![&contributor.id],
            )),
        }
    }
    for (plugin, digest, ids) in by_plugin {
        let _ = writeln!(out, "    {plugin} ({digest}): {}", ids.join(", "));
    }
    for fired in &record.system_messages {
        let _ = writeln!(out, "  system message {}: {}", fired.contributor, fired.why);
    }
    for (what, runs) in [
        ("eager run", &record.eager_runs),
        ("retrieval", &record.retrievals),
    ] {
        for run in runs {
            let outcome = match (&run.reason, run.approval) {
                (None, Some(crate::runtime::Approval::Approved)) => "approved, ran".to_string(),
                (None, _) => "ran".to_string(),
                (Some(reason), Some(crate::runtime::Approval::Pending)) => {
                    format!("pending: {reason}")
                }
                (Some(reason), Some(crate::runtime::Approval::Denied)) => {
                    format!("denied: {reason}")
                }
                (Some(reason), _) => format!("refused: {reason}"),
            };
            let _ = writeln!(
                out,
                "  {what} {} ({}): {outcome}",
                run.contributor, run.tool
            );
        }
    }
    for refusal in &record.refusals {
        let _ = writeln!(out, "  refused {}: {}", refusal.contributor, refusal.reason);
    }
    for withdrawal in &record.withdrawn {
        let _ = writeln!(
            out,
            "  withdrawn {}: {}",
            withdrawal.plugin, withdrawal.reason
        );
    }
}

/// Most turns one `simulate` run composes: each bound above is generous
/// on its own, but their product bounds the time and memory a run takes
/// (a few seconds and tens of megabytes per hundred thousand turns).
const MAX_SIMULATED_TURNS: usize = 1_000_000;

pub fn simulate(args: &SimulateArgs) -> Outcome {
    let profile = match args.cache.profile() {
        Ok(profile) => profile,
        Err(message) => return fail(message),
    };
    let host = match installed::Host::open(args.workspace.as_deref(), args.bundles.as_deref()) {
        Ok(host) => host,
        Err(message) => return fail(message),
    };
    let total = [args.agents, args.persons, args.conversations, args.turns]
        .into_iter()
        .fold(1usize, usize::saturating_mul);
    if total > MAX_SIMULATED_TURNS {
        return fail(format!(
            "{} agents × {} people × {} conversations × {} turns is {total} turns; simulate at most {MAX_SIMULATED_TURNS}",
            args.agents, args.persons, args.conversations, args.turns
        ));
    }
    for refused in host.refused_at_load() {
        eprintln!("refused at load: {refused}");
    }
    if host.unapproved() {
        eprintln!(
            "warning: simulating unapproved bundles: nothing here was installed or re-checked"
        );
    }
    let bundles = host.bundles();
    let options = Options {
        agents: args.agents,
        persons: args.persons,
        conversations: args.conversations,
        turns: args.turns,
        seed: args.seed,
        compact_after_tokens: args.compact_after,
        ..Options::default()
    };
    let report = simulate::simulate(bundles, &profile, &options);
    let text = match args.format {
        ReportFormat::Json => {
            #[derive(Serialize)]
            struct WithRatio<'r> {
                #[serde(flatten)]
                report: &'r Report,
                naive_cost_ratio: f64,
                naive_unmarked_cost_ratio: f64,
            }
            let document = WithRatio {
                report: &report,
                naive_cost_ratio: report.naive_cost_ratio(),
                naive_unmarked_cost_ratio: report.naive_unmarked_cost_ratio(),
            };
            match serde_json::to_string_pretty(&document) {
                Ok(text) => text,
                Err(error) => return fail(format!("cannot write the report: {error}")),
            }
        }
        // Bodies and names come from bundles: control characters are shown
        // as escapes, never sent to the terminal (JSON escapes them itself).
        ReportFormat::Human => visible(&human_report(&report)).into_owned(),
    };
    output::result(text, Outcome::Clean)
}

/// One row of the report: its label's figure, from a layout's figures.
type Row = fn(&Figures) -> String;

fn human_report(report: &Report) -> String {
    let options = &report.options;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} agents × {} persons × {} conversations × {} turns = {} requests (seed {}, profile `{}`, compaction past {} tokens)\n",
        options.agents,
        options.persons,
        options.conversations,
        options.turns,
        report.requests,
        options.seed,
        report.profile,
        options.compact_after_tokens
    );
    let _ = writeln!(out, "{:<46} {:>18} {:>18}", "", "composed", "naive");
    let rows: [(&str, Row); 12] = [
        ("system prompt identical for an agent", |f| {
            format!(
                "{:.0} B / {:.0} tok",
                f.agent_shared_bytes, f.agent_shared_tokens
            )
        }),
        ("system prompt identical for a person", |f| {
            format!(
                "{:.0} B / {:.0} tok",
                f.person_shared_bytes, f.person_shared_tokens
            )
        }),
        ("mean system prompt", |f| {
            format!("{:.0} B", f.system_prompt_bytes)
        }),
        ("recompositions per conversation", |f| {
            format!("{:.2}", f.recompositions_per_conversation)
        }),
        ("bytes re-sent per turn", |f| {
            format!("{:.0} B", f.resent_bytes_per_turn)
        }),
        ("mean request", |f| {
            format!("{:.0} B / {:.0} tok", f.request_bytes, f.request_tokens)
        }),
        ("input tokens", |f| f.cache.input_tokens.to_string()),
        ("cache reads (tokens)", |f| f.cache.read_tokens.to_string()),
        ("cache writes (tokens)", |f| {
            f.cache.write_tokens.to_string()
        }),
        ("uncached (tokens)", |f| f.cache.uncached_tokens.to_string()),
        ("cost (uncached-input-token units)", |f| {
            format!("{:.0}", f.cache.cost)
        }),
        ("cost against no caching", |f| {
            format!("{:.3}", f.relative_cost)
        }),
    ];
    for (label, value) in rows {
        let _ = writeln!(
            out,
            "{label:<46} {:>18} {:>18}",
            value(&report.composed),
            value(&report.naive)
        );
    }
    let unmarked = if report.caching == Caching::Explicit {
        format!(
            " ({:.2}× if it marks no breakpoints)",
            report.naive_unmarked_cost_ratio()
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "\nthe naive layout costs {:.2}× the composed one{unmarked}",
        report.naive_cost_ratio()
    );
    for short in &report.short_prefixes {
        let _ = writeln!(out, "warning: {}", short.describe(report.requests));
    }
    out.trim_end().to_string()
}

//! `contrib simulate`, and what it shares with `contrib compose`: the
//! runtime, from the command line.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::output::{self, ReportFormat};
use super::progress::{Conditions, Progress};
use super::{fail, installed, Outcome};
use crate::report::terminal::visible;
use crate::runtime::simulate::{self, Figures, Options, Report};
use crate::runtime::{Caching, Profile, Profiles};

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
    /// Also write the report as one self-contained HTML page with charts
    /// to FILE; the cost chart runs the same simulation under every other
    /// profile too.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
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
pub(super) struct CacheArgs {
    /// The provider cache profile: `anthropic`, `openai`, `none`, or one
    /// from `--profiles`.
    #[arg(long, default_value = "anthropic")]
    profile: String,
    /// A profiles file replacing the shipped `profiles.toml`.
    #[arg(long, value_name = "FILE")]
    profiles: Option<PathBuf>,
}

impl CacheArgs {
    /// The profiles file, or the shipped one.
    fn profiles(&self) -> Result<Profiles, String> {
        match &self.profiles {
            Some(path) => Profiles::load(path),
            None => Ok(Profiles::builtin()),
        }
    }

    pub(super) fn profile(&self) -> Result<Profile, String> {
        let profiles = self.profiles()?;
        profiles.get(&self.profile).cloned().ok_or_else(|| {
            format!(
                "there is no cache profile `{}`; there are: {}",
                self.profile,
                profiles.names().collect::<Vec<_>>().join(", ")
            )
        })
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
    let others: Vec<Profile> = match (&args.html, args.cache.profiles()) {
        (Some(_), Ok(profiles)) => profiles
            .names()
            .filter(|name| *name != profile.name)
            .filter_map(|name| profiles.get(name).cloned())
            .collect(),
        _ => Vec::new(),
    };
    let progress = Progress::new(
        "simulating",
        Conditions::here(args.format == ReportFormat::Human, 1 + others.len()),
    );
    let run = |profile: &Profile| {
        progress.stage(format_args!(
            "{} requests under `{}`",
            options.agents * options.persons * options.conversations * options.turns,
            profile.name
        ));
        simulate::simulate(bundles, profile, &options)
    };
    let report = run(&profile);
    let others: Vec<Report> = others.iter().map(&run).collect();
    drop(progress);
    if let Some(path) = &args.html {
        let mut reports = vec![report.clone()];
        reports.extend(others);
        let page = crate::pages::simulation::render(&reports);
        if let Err(message) = crate::fs::write_atomically(path, page.as_bytes()) {
            return fail(message);
        }
        output::status(format_args!(
            "wrote the simulation's page to `{}`",
            path.display()
        ));
    }
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

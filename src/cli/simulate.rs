//! `contrib simulate`: a fleet of conversations, every layout's cache
//! figures, and the fair ratio against a careful engineer's layout.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use super::output::{self, ReportFormat};
use super::progress::{Conditions, Progress};
use super::runtime::CacheArgs;
use super::{fail, installed, Outcome};
use crate::bundle::usage::Usage;
use crate::import::report::thousands as count;
use crate::report::terminal::visible;
use crate::runtime::simulate::{self, LayoutReport, Options, Report, Shares};
use crate::runtime::Profile;

#[derive(Args)]
pub(super) struct SimulateArgs {
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
    /// The most turns a conversation has (1 to 1,000).
    #[arg(long, value_name = "N", default_value_t = 12, value_parser = up_to(1_000))]
    turns: usize,
    /// The fewest turns a conversation has (short ones are commonest).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = up_to(1_000))]
    min_turns: usize,
    /// Seeds the simulated people and timings: the same seed, the same run.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The days of the week (Monday on) over which conversations start: 6
    /// spreads them over a working week, 1 makes one busy day.
    #[arg(long, default_value_t = Options::default().days, value_parser = clap::value_parser!(u32).range(1..=7))]
    days: u32,
    /// Compact a conversation when its stored history passes this many
    /// tokens (1 to 10,000,000).
    #[arg(
        long,
        value_name = "TOKENS",
        default_value_t = Options::default().compact_after_tokens,
        value_parser = clap::value_parser!(u64).range(1..=10_000_000)
    )]
    compact_after: u64,
    /// Where the profile offers pre-warming: keep an agent prefix warm for
    /// this many seconds after its last use (0: pre-warm only a new prefix).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = Options::default().keep_warm_seconds,
        value_parser = clap::value_parser!(i64).range(0..=604_800)
    )]
    keep_warm: i64,
    /// The model conversations start on (default: the profile's).
    #[arg(long)]
    model: Option<String>,
    /// The model a quarter of conversations switch to (default: the
    /// simulator's when the profile lists it, otherwise no switch).
    #[arg(long)]
    switch_model: Option<String>,
    /// A usage file (JSON Lines of turn records with `calls`): the rates at
    /// which turns call what eager loads name, so rounds are simulated.
    #[arg(long, value_name = "FILE")]
    usage: Option<PathBuf>,
    #[command(flatten)]
    cache: CacheArgs,
    /// How to write the report.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    format: ReportFormat,
    /// Also write contrib's requests (and the pre-warmed layout's), with
    /// what the simulated cache did with each, to FILE as JSON Lines, for
    /// replaying against a provider double (tests/sdk/replay.py).
    #[arg(long, value_name = "FILE")]
    requests: Option<PathBuf>,
    /// Also write the report as one self-contained HTML page with charts
    /// to FILE; the cost chart runs the same simulation under every other
    /// profile too.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// A count from 1 to `max`: a simulation of no one has no figures to
/// compare, and each bound is generous on its own; refusing more at parse
/// time keeps a run from aborting on allocation.
fn up_to(max: usize) -> impl Fn(&str) -> Result<usize, String> + Clone + Send + Sync + 'static {
    move |text: &str| match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(count) if count > max => Err(format!("must be at most {max}")),
        Ok(count) => Ok(count),
        Err(_) => Err(format!("`{text}` is not a whole number")),
    }
}

/// Most turns one `simulate` run plays: each bound above is generous on
/// its own, but their product bounds the time and memory a run takes (a
/// few seconds and tens of megabytes per hundred thousand turns).
const MAX_SIMULATED_TURNS: usize = 1_000_000;

pub(super) fn simulate(args: &SimulateArgs) -> Outcome {
    let profile = match args.cache.profile() {
        Ok(profile) => profile,
        Err(message) => return fail(message),
    };
    if let Some(message) = unpriced_model(args, &profile) {
        return fail(message);
    }
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
        output::status(format_args!("refused at load: {refused}"));
    }
    if host.unapproved() {
        output::status(
            "warning: simulating unapproved bundles: nothing here was installed or re-checked",
        );
    }
    let bundles = host.bundles();
    let usage = match args.usage.as_deref().map(Usage::read).transpose() {
        Ok(usage) => usage,
        Err(message) => return fail(message),
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
        let options = options(args, profile);
        progress.stage(format_args!(
            "{} conversations under `{}`",
            options.agents * options.persons * options.conversations,
            profile.name
        ));
        simulate::simulate(bundles, profile, &options, usage.as_ref())
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
    if let Some(path) = &args.requests {
        let mut lines = String::new();
        for one in &report.replayable {
            match serde_json::to_string(one) {
                Ok(line) => {
                    lines.push_str(&line);
                    lines.push('\n');
                }
                Err(error) => return fail(format!("cannot write the requests: {error}")),
            }
        }
        if let Err(message) = crate::fs::write_atomically(path, lines.as_bytes()) {
            return fail(message);
        }
        output::status(format_args!(
            "wrote {} requests to `{}`",
            report.replayable.len(),
            path.display()
        ));
    }
    let text = match args.format {
        ReportFormat::Json => match serde_json::to_string_pretty(&report) {
            Ok(text) => text,
            Err(error) => return fail(format!("cannot write the report: {error}")),
        },
        // Names come from bundles: control characters are shown as
        // escapes, never sent to the terminal (JSON escapes them itself).
        ReportFormat::Human => visible(&human(&report)).into_owned(),
    };
    output::result(text, Outcome::Clean)
}

/// Why a model given with `--model` or `--switch-model` cannot be
/// simulated under `profile`: one it does not price would be simulated on
/// the profile's fallbacks without a word.
fn unpriced_model(args: &SimulateArgs, profile: &Profile) -> Option<String> {
    if profile.models.is_empty() {
        return None;
    }
    [&args.model, &args.switch_model]
        .into_iter()
        .flatten()
        .find(|model| profile.model(model).is_none())
        .map(|model| {
            format!(
                "the `{}` profile knows no model `{model}`; it knows: {}",
                profile.name,
                profile
                    .models
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// The simulation's options under `profile`: the models default to the
/// profile's, so that each profile of the page's cost chart is run on a
/// model it prices.
fn options(args: &SimulateArgs, profile: &Profile) -> Options {
    let defaults = Options::default();
    let model = args
        .model
        .clone()
        .or_else(|| profile.default_model.clone())
        .unwrap_or(defaults.model.clone());
    let switch_model = args.switch_model.clone().unwrap_or_else(|| {
        if profile.model(&defaults.switch_model).is_some() {
            defaults.switch_model.clone()
        } else {
            model.clone()
        }
    });
    Options {
        agents: args.agents,
        persons: args.persons,
        conversations: args.conversations,
        turns: args.turns,
        min_turns: args.min_turns,
        seed: args.seed,
        days: args.days,
        compact_after_tokens: args.compact_after,
        keep_warm_seconds: args.keep_warm,
        record_requests: args.requests.is_some(),
        model,
        switch_model,
        ..defaults
    }
}

/// The report for people: the fleet, a row per layout, the fair ratio, the
/// sharing metric, eager loads, each layout's assumptions, warnings.
fn human(report: &Report) -> String {
    let mut out = String::new();
    fleet(&mut out, report);
    layouts(&mut out, report);
    ratios(&mut out, report);
    if let Some(contrib) = report.layout("contrib") {
        sharing(&mut out, contrib);
    }
    changes(&mut out, report);
    if let Some(eager) = &report.eager_loads {
        let _ = writeln!(
            out,
            "\neager loads: {:.0} tokens in every request buy {} rounds fewer ({} with them, {} without: {:.2} per conversation); input cost {} with them, {} without",
            eager.preloaded_tokens_per_request,
            eager.rounds_without.saturating_sub(eager.rounds_with),
            eager.rounds_with,
            eager.rounds_without,
            eager.rounds_saved_per_conversation,
            count(eager.cost_with as u64),
            count(eager.cost_without as u64),
        );
    }
    let _ = writeln!(out, "\nassumptions:");
    for layout in &report.layouts {
        let _ = writeln!(out, "  {}:", layout.title);
        for assumption in layout.assumptions {
            let _ = writeln!(out, "    - {assumption}");
        }
    }
    for short in &report.short_prefixes {
        let _ = writeln!(out, "\nwarning: {}", short.describe(report.turns));
    }
    out.trim_end().to_string()
}

fn fleet(out: &mut String, report: &Report) {
    let options = &report.options;
    let switch = if options.switch_model == options.model {
        String::new()
    } else {
        format!(", a quarter switching to {}", options.switch_model)
    };
    let _ = writeln!(
        out,
        "fleet: {} agents × {} persons × {} conversations = {} conversations of {} to {} turns, {} turns in all, starting over {} day(s) (seed {})",
        options.agents,
        options.persons,
        options.conversations,
        count(report.conversations),
        options.min_turns,
        options.turns,
        count(report.turns),
        options.days,
        options.seed
    );
    let _ = writeln!(
        out,
        "profile `{}` on {}{switch}; compaction past {} tokens",
        report.profile,
        options.model,
        count(options.compact_after_tokens)
    );
    let _ = writeln!(out, "cost: {}\n", report.cost_includes);
}

fn layouts(out: &mut String, report: &Report) {
    let _ = writeln!(
        out,
        "{:<38} {:>8} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>10} {:>10} {:>10}",
        "layout",
        "requests",
        "input",
        "read",
        "written",
        "uncached",
        "rel.cost",
        "shared",
        "input $",
        "output $",
        "total $"
    );
    for layout in &report.layouts {
        let dollars = |pick: fn(&simulate::Usd) -> f64| {
            layout
                .usd
                .as_ref()
                .map_or_else(|| "—".to_string(), |usd| format!("{:.2}", pick(usd)))
        };
        let _ = writeln!(
            out,
            "{:<38} {:>8} {:>10} {:>10} {:>10} {:>10} {:>9.3} {:>8.1}% {:>10} {:>10} {:>10}",
            layout.title,
            count(layout.requests),
            count(layout.input_tokens),
            count(layout.read_tokens),
            count(layout.written_tokens),
            count(layout.uncached_tokens),
            layout.relative_cost,
            layout.agent_shared_from_other_conversations * 100.0,
            dollars(|usd| usd.input),
            dollars(|usd| usd.output),
            dollars(|usd| usd.total),
        );
    }
    let _ = writeln!(
        out,
        "(rel.cost: input cost against sending every input token uncached; shared: agent-prefix tokens read from a cache entry another conversation, or a pre-warm request, wrote)"
    );
    if let Some(limit) = report.layout("contrib").and_then(|contrib| contrib.limit) {
        let _ = writeln!(
            out,
            "the limit of layout alone on this traffic: {:.1}% shared, {} agent-prefix writes no layout avoids (each prefix's first use, and each after it went unused longer than its longest lifetime)",
            limit.best_share_from_other_conversations * 100.0,
            count(limit.unavoidable_writes)
        );
    }
    if let Some(prewarm) = &report.prewarm {
        let verdict = if prewarm.pays { "pays" } else { "does not pay" };
        let _ = writeln!(
            out,
            "pre-warming {verdict}: {} pre-warm requests (agent prefixes kept warm {} s after their last use) make the input cost {} against {} without",
            count(prewarm.requests),
            prewarm.keep_warm_seconds,
            count(prewarm.cost_with as u64),
            count(prewarm.cost_without as u64),
        );
    }
}

fn ratios(out: &mut String, report: &Report) {
    let Some(contrib) = report.layout("contrib") else {
        return;
    };
    let with_output = report
        .fair_ratio_with_output
        .map_or_else(String::new, |ratio| {
            format!("; output priced in, {ratio:.2}×")
        });
    let _ = writeln!(
        out,
        "\nthe hand-placed layout (b) costs {:.2}× contrib's input{with_output}",
        report.fair_ratio
    );
    for name in ["uncached", "naive", "design-table"] {
        if let Some(layout) = report.layout(name) {
            let _ = writeln!(
                out,
                "{} costs {:.2}× contrib's input",
                layout.title,
                ratio(layout.input_cost, contrib.input_cost)
            );
        }
    }
}

fn sharing(out: &mut String, contrib: &LayoutReport) {
    let _ = writeln!(
        out,
        "\nsharing under contrib: where the provider got each kind of kept token"
    );
    // Wide enough for the longest agent name, indented under its heading.
    let width = contrib
        .by_agent
        .iter()
        .map(|agent| agent.agent.chars().count() + 2)
        .max()
        .unwrap_or(0)
        .max(14);
    let _ = writeln!(
        out,
        "  {:<width$} {:>12} {:>12} {:>12} {:>9} {:>9}",
        "", "tokens", "other conv.", "same conv.", "written", "uncached"
    );
    for (label, shares) in [
        ("agent prefix", &contrib.agent_prefix),
        ("person part", &contrib.person_part),
        ("opening", &contrib.opening),
    ] {
        let _ = writeln!(out, "  {label:<width$} {}", shares_row(shares));
    }
    let _ = writeln!(out, "  by agent, the agent prefix:");
    for agent in &contrib.by_agent {
        let _ = writeln!(
            out,
            "    {:<inner$} {}",
            agent.agent,
            shares_row(&agent.agent_prefix),
            inner = width - 2
        );
    }
    let mut person: Vec<f64> = contrib
        .by_person
        .iter()
        .filter(|one| one.person_part.tokens > 0)
        .map(|one| one.person_part.fraction_from_other())
        .collect();
    let mut opening: Vec<f64> = contrib
        .by_person
        .iter()
        .filter(|one| one.opening.tokens > 0)
        .map(|one| {
            let read = one.opening.from_same_conversation + one.opening.from_other_conversations;
            read as f64 / one.opening.tokens as f64
        })
        .collect();
    let _ = writeln!(
        out,
        "  by person ({} agent and person pairs): the person part read from the person's other conversations {}; the opening read from cache {}",
        contrib.by_person.len(),
        spread(&mut person),
        spread(&mut opening)
    );
}

fn shares_row(shares: &Shares) -> String {
    let part = |tokens: u64| {
        if shares.tokens == 0 {
            0.0
        } else {
            tokens as f64 * 100.0 / shares.tokens as f64
        }
    };
    format!(
        "{:>12} {:>11.1}% {:>11.1}% {:>8.1}% {:>8.1}%",
        count(shares.tokens),
        part(shares.from_other_conversations),
        part(shares.from_same_conversation),
        part(shares.written),
        part(shares.uncached)
    )
}

/// `min a, median b, max c` of fractions, as percentages.
fn spread(values: &mut [f64]) -> String {
    if values.is_empty() {
        return "(none)".to_string();
    }
    values.sort_by(f64::total_cmp);
    let at = |index: usize| values[index] * 100.0;
    format!(
        "min {:.0}%, median {:.0}%, max {:.0}%",
        at(0),
        at(values.len() / 2),
        at(values.len() - 1)
    )
}

fn changes(out: &mut String, report: &Report) {
    let _ = writeln!(out, "\nsystem prompt changes per conversation, measured:");
    for layout in &report.layouts {
        let recomposed = layout
            .recompositions_per_conversation
            .map_or_else(String::new, |n| {
                format!(" (composed again {n:.2} times, at compactions and model changes)")
            });
        let _ = writeln!(
            out,
            "  {:<38} {:.2}{recomposed}",
            layout.title, layout.system_prompt_changes_per_conversation
        );
    }
}

fn ratio(numerator: f64, denominator: f64) -> f64 {
    if denominator == 0.0 {
        0.0
    } else {
        numerator / denominator
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_read_as_percentages() {
        assert_eq!(spread(&mut []), "(none)");
        assert_eq!(spread(&mut [0.5, 0.1, 0.9]), "min 10%, median 50%, max 90%");
    }
}

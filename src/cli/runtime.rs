//! `contrib compose`: the runtime, from the command line, and what
//! `contrib simulate` shares with it.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::output::{self, ReportFormat};
use super::{fail, installed, Outcome};
use crate::runtime::{
    Boundary, Breakpoint, OpeningItem, OpeningKind, Profile, Profiles, Session, Skipped,
    SystemPrompt, Turn, TurnInput,
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
    pub(super) fn profile(&self) -> Result<Profile, String> {
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
    model: String,
    /// Tools advertised and skill operations read before the first turn,
    /// in the agent prefix.
    preloaded: Vec<OpeningItem>,
    system_prompt: SystemPrompt,
    breakpoints: Vec<Breakpoint>,
    /// The shared prefixes that got no breakpoint, and why.
    skipped: Vec<Skipped>,
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
                ReportFormat::Human => human_layout(&layout),
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
    let model = conversation.session().model.name.clone();
    // The same placement the composer made, with the boundaries it skipped.
    let skipped = profile.place(&model, &conversation.prefix_tokens()).skipped;
    let preloaded = conversation.preloaded().to_vec();
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
        model,
        preloaded,
        system_prompt,
        breakpoints,
        skipped,
        opening,
        turns: laid_out,
        warnings,
    })
}

/// The request as the provider reads it: tools, the system prompt with the
/// eager loads' skill reads after its platform part, the opening; a marker
/// where each shared prefix ends, saying whether a breakpoint went there
/// and why.
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
        if let Some(index) = placed {
            let breakpoint = &layout.breakpoints[index];
            let _ = writeln!(
                out,
                "~~~~ cache breakpoint {}: {} ends here ({} tokens, lifetime {})\n     {}",
                index + 1,
                boundary.describe(),
                breakpoint.tokens,
                breakpoint.lifetime,
                breakpoint.why
            );
        } else if let Some(skipped) = layout
            .skipped
            .iter()
            .find(|skipped| skipped.after == boundary)
        {
            let _ = writeln!(
                out,
                "~~~~ {} ends here ({} tokens): no breakpoint, {}",
                boundary.describe(),
                skipped.tokens,
                skipped.why
            );
        }
    };
    let (tools, reads): (Vec<OpeningItem>, Vec<OpeningItem>) = layout
        .preloaded
        .iter()
        .cloned()
        .partition(|item| item.kind == OpeningKind::LoadTools);
    let _ = writeln!(
        out,
        "== tools (first in the request; cache profile `{}`, model `{}`)",
        layout.profile, layout.model
    );
    if tools.is_empty() {
        let _ = writeln!(out, "(the host's own tool definitions only)");
    }
    opening(&mut out, &tools);
    let _ = writeln!(out, "\n== system prompt (kept)");
    system_prompt(&mut out, &layout.system_prompt, &reads, |out| {
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

/// The system prompt's contributions in the order the cache-optimal layout
/// sends them ([`crate::runtime::layout::kept`]): the platform part,
/// `reads` (the eager loads' skill reads, the same for every agent), the
/// agent part, calling `agent_end` where the agent prefix ends, then the
/// person part.
fn system_prompt(
    out: &mut String,
    prompt: &SystemPrompt,
    reads: &[OpeningItem],
    agent_end: impl Fn(&mut String),
) {
    use crate::ir::Placement;
    let mut read = false;
    let mut marked = false;
    for contribution in &prompt.contributions {
        if contribution.placement != Placement::Platform && !read {
            opening(out, reads);
            read = true;
        }
        if contribution.placement == Placement::Person && !marked {
            agent_end(out);
            marked = true;
        }
        let _ = writeln!(
            out,
            "-- {} [{}]\n{}\n",
            contribution.contributor, contribution.placement, contribution.text
        );
    }
    if !read {
        opening(out, reads);
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
        system_prompt(out, prompt, &[], |_| {});
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

//! `contrib compose`: the request layout the runtime composes, turn by
//! turn and request by request, or with `--wire` each request's body as
//! the provider takes it; optionally writing or continuing a session log.

mod script;
mod wire;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use self::script::{read_steps, Step};
use self::wire::Bodies;
use super::installed::Host;
use super::output::{self, ReportFormat};
use super::runtime::CacheArgs;
use super::{fail, Outcome};
use crate::runtime::wire::Wire;
use crate::runtime::{
    create_log_file, Approval, Boundary, Breakpoint, FactsAt, ModelChange, Note, OpeningItem,
    OpeningKind, Options, PersonPart, Position, PrefacesAt, Request, RequestInput, Session,
    Skipped, SystemPrompt, Turn,
};

#[derive(Args)]
pub(super) struct ComposeArgs {
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
    /// The turns file (`[[turn]]` tables, each with its later requests as
    /// `[[turn.request]]`); one turn a minute after the start when left
    /// out.
    #[arg(long, value_name = "FILE")]
    turns: Option<PathBuf>,
    /// Write the session log to FILE as the conversation goes (a new file).
    #[arg(long, value_name = "FILE", conflicts_with = "resume")]
    log: Option<PathBuf>,
    /// Continue the conversation a session log records, appending to it.
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// Where person-placed text goes: `system-prompt` or `opening`.
    #[arg(long, value_name = "WHERE", value_parser = kebab::<PersonPart>, default_value = "system-prompt")]
    person_part: PersonPart,
    /// Where facts go on a turn's first request: `after-prompt` or
    /// `before-prompt`.
    #[arg(long, value_name = "WHERE", value_parser = kebab::<FactsAt>, default_value = "after-prompt")]
    facts: FactsAt,
    /// Where prefaces go: `after-history` or `first` (position 0).
    #[arg(long, value_name = "WHERE", value_parser = kebab::<PrefacesAt>, default_value = "after-history")]
    prefaces: PrefacesAt,
    /// What a model change does: `note` or `recompose`.
    #[arg(long, value_name = "WHAT", value_parser = kebab::<ModelChange>, default_value = "note")]
    on_model_change: ModelChange,
    #[command(flatten)]
    cache: CacheArgs,
    /// How to write the layout.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human, conflicts_with = "wire")]
    format: ReportFormat,
    /// Print each request's body as the provider takes it instead of the
    /// layout: `anthropic`, `openai-responses` or `openai-chat`, one JSON
    /// line per request.
    #[arg(long, value_name = "WIRE")]
    wire: Option<Wire>,
    /// The host's tool definitions for `--wire`: a JSON array of
    /// `{"name", "description", "input_schema", "deferred"}`; a tool the
    /// session lists without one is sent with an empty object schema.
    #[arg(long, value_name = "FILE", requires = "wire")]
    tools: Option<PathBuf>,
}

/// A choice spelled in kebab case, as the runtime's types serialise it.
fn kebab<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(text.to_string()))
        .map_err(|_| format!("`{text}` is not one of the choices"))
}

/// Everything the layout left out and why, in the order it happened:
/// versions refused at load, then each turn's and each request's
/// refusals.
fn refusals(layout: &Layout) -> Vec<String> {
    let mut lines: Vec<String> = layout
        .refused_at_load
        .iter()
        .map(|refused| format!("refused at load: {refused}"))
        .collect();
    for turn in &layout.turns {
        let requests = turn
            .requests
            .iter()
            .flat_map(|request| &request.record.refusals);
        for refusal in turn.turn.record.refusals.iter().chain(requests) {
            lines.push(format!(
                "turn {}: refused {}: {}",
                turn.turn.number, refusal.contributor, refusal.reason
            ));
        }
    }
    lines
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
    options: Options,
    system_prompt: SystemPrompt,
    breakpoints: Vec<Breakpoint>,
    /// The shared prefixes that got no breakpoint, and why.
    skipped: Vec<Skipped>,
    /// Tools advertised and skill operations read before the first turn,
    /// in the agent prefix.
    preloaded: Vec<OpeningItem>,
    opening: Vec<OpeningItem>,
    turns: Vec<TurnLayout>,
    warnings: Vec<String>,
}

#[derive(Serialize)]
struct TurnLayout {
    #[serde(flatten)]
    turn: Turn,
    /// The requests the turn made, the first after the prompt.
    requests: Vec<Request>,
    /// The system prompt, when a recomposition changed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    system_prompt: Option<SystemPrompt>,
    /// What eager loads put before the first turn, when a recomposition
    /// changed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    preloaded: Option<Vec<OpeningItem>>,
    /// The opening, when a recomposition changed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    opening: Option<Vec<OpeningItem>>,
}

pub(super) fn compose(args: &ComposeArgs) -> Outcome {
    let mut bodies = match args
        .wire
        .map(|wire| Bodies::new(wire, args.tools.as_deref()))
    {
        Some(Ok(bodies)) => Some(bodies),
        Some(Err(message)) => return fail(message),
        None => None,
    };
    match layout(args, bodies.as_mut()) {
        Ok(layout) if bodies.is_some() => {
            // The bodies are the output, so what was left out of them is
            // said on standard error, never dropped without a word.
            for refusal in refusals(&layout) {
                output::status(format_args!("warning: {refusal}"));
            }
            let lines = bodies.map(Bodies::finish).unwrap_or_default();
            output::result(lines, Outcome::Clean)
        }
        Ok(layout) => {
            let text = match args.format {
                ReportFormat::Json => match serde_json::to_string_pretty(&layout) {
                    Ok(text) => text,
                    Err(error) => return fail(format!("cannot write the layout: {error}")),
                },
                ReportFormat::Human => {
                    crate::report::terminal::visible(&human_layout(&layout)).into_owned()
                }
            };
            output::result(text, Outcome::Clean)
        }
        Err(message) => fail(message),
    }
}

/// The conversation's layout, and with `bodies` each request's body.
fn layout(args: &ComposeArgs, mut bodies: Option<&mut Bodies>) -> Result<Layout, String> {
    let host = Host::open(args.workspace.as_deref(), args.bundles.as_deref())?;
    let session = Session::load(&args.session).map_err(|error| error.to_string())?;
    let (steps, answers) = match &args.turns {
        Some(path) => read_steps(path, host.unapproved())?,
        None => (
            vec![Step::reply_at(session.started_at.plus_seconds(60))],
            BTreeMap::new(),
        ),
    };
    // A request body is written for one model: the profile that prices
    // it decides the cache fields, unless `--profile` says otherwise.
    let profile = match args.wire {
        Some(_) => args.cache.profile_for_model(&session.model.name)?,
        None => args.cache.profile()?,
    };
    let options = Options {
        person_part: args.person_part,
        facts: args.facts,
        prefaces: args.prefaces,
        model_change: args.on_model_change,
    };
    let builder = host.builder(session, &profile, answers).options(options);
    let mut conversation = match (&args.log, &args.resume) {
        (Some(path), _) => builder.log(create_log(path)?).start(),
        (None, Some(path)) => {
            let text = std::fs::read(path)
                .map_err(|error| format!("cannot read `{}`: {error}", path.display()))?;
            builder
                .log(append_log(path)?)
                .resume(&text)
                .map_err(|error| format!("`{}`: {error}", path.display()))?
        }
        (None, None) => builder.start(),
    };
    host.admit(&mut conversation);
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
    let mut kept_preloaded = preloaded.clone();
    let mut laid_out = Vec::new();
    for step in &steps {
        if let Some(installed) = &step.install {
            conversation.install(installed);
        }
        host.before_turn(&mut conversation, &step.events);
        let turn = conversation.turn(step.input.clone());
        if let Some(bodies) = bodies.as_deref_mut() {
            bodies.begin(&turn, step);
        }
        let mut requests = Vec::new();
        let rounds = std::iter::once((None, RequestInput::at(turn.at))).chain(
            step.requests
                .iter()
                .map(|(round, input)| (Some(round), input.clone())),
        );
        for (round, input) in rounds {
            if let (Some(bodies), Some(round)) = (bodies.as_deref_mut(), round) {
                bodies.round(round);
            }
            let request = conversation.request(input);
            if let Some(bodies) = bodies.as_deref_mut() {
                bodies.request(&conversation, &request)?;
            }
            requests.push(request);
        }
        if let Some(bodies) = bodies.as_deref_mut() {
            bodies.end(step);
        }
        let now = conversation.system_prompt();
        let changed = (*now != kept).then(|| now.clone());
        kept = now.clone();
        let opening_now = conversation.opening();
        let opening_changed = (opening_now != kept_opening).then(|| opening_now.to_vec());
        kept_opening = opening_now.to_vec();
        let preloaded_now = conversation.preloaded();
        let preloaded_changed = (preloaded_now != kept_preloaded).then(|| preloaded_now.to_vec());
        kept_preloaded = preloaded_now.to_vec();
        for warning in conversation.warnings() {
            if !warnings.contains(warning) {
                warnings.push(warning.clone());
            }
        }
        laid_out.push(TurnLayout {
            turn,
            requests,
            system_prompt: changed,
            preloaded: preloaded_changed,
            opening: opening_changed,
        });
    }
    if let Some(error) = conversation.log_error() {
        return Err(error.to_string());
    }
    Ok(Layout {
        unapproved: host.unapproved(),
        refused_at_load: host.refused_at_load().to_vec(),
        profile: profile.name.clone(),
        model,
        options,
        system_prompt,
        breakpoints,
        skipped,
        preloaded,
        opening,
        turns: laid_out,
        warnings,
    })
}

/// A new log file: an existing one is never overwritten.
fn create_log(path: &Path) -> Result<File, String> {
    create_log_file(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::AlreadyExists => format!(
            "`{}` already exists; continue it with `--resume {}`, or choose another file",
            path.display(),
            path.display()
        ),
        _ => format!("cannot create `{}`: {error}", path.display()),
    })
}

fn append_log(path: &Path) -> Result<File, String> {
    OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|error| format!("cannot append to `{}`: {error}", path.display()))
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

fn kind_name(kind: OpeningKind) -> &'static str {
    match kind {
        OpeningKind::LoadTools => "load_tools call",
        OpeningKind::SkillRead => "skill read",
        OpeningKind::Run => "eager run",
        OpeningKind::Text => "conversation text",
        OpeningKind::PersonPart => "person part",
    }
}

fn note(out: &mut String, note: &Note) {
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
    if let Some(items) = &layout.preloaded {
        let _ = writeln!(out, "before the first turn, as recomposed:");
        opening(out, items);
    }
    if let Some(items) = &layout.opening {
        let _ = writeln!(out, "the opening, as recomposed:");
        opening(out, items);
    }
    let at = |position: Position| turn.notes.iter().filter(move |n| n.position == position);
    if at(Position::First).next().is_some() {
        let _ = writeln!(out, "~~~~ at position 0, before everything stored:");
        at(Position::First).for_each(|n| note(out, n));
    }
    let _ = writeln!(
        out,
        "~~~~ the stored history ends here: a host with a breakpoint to spare puts it here"
    );
    at(Position::BeforePrompt).for_each(|n| note(out, n));
    let _ = writeln!(out, ">> the person's message");
    at(Position::WithPrompt).for_each(|n| note(out, n));
    for request in &layout.requests {
        let _ = writeln!(out, "~~~~ request {} at {}", request.number, request.at);
        if request.messages.is_empty() {
            let _ = writeln!(out, "(no facts changed)");
        }
        request.messages.iter().for_each(|n| note(out, n));
        for held in &request.record.held {
            let _ = writeln!(out, "held: {held}");
        }
        for refusal in &request.record.refusals {
            let _ = writeln!(out, "refused {}: {}", refusal.contributor, refusal.reason);
        }
    }
    human_record(out, turn);
}

fn human_record(out: &mut String, turn: &Turn) {
    let record = &turn.record;
    let _ = writeln!(out, "record:");
    for held in &record.held {
        let _ = writeln!(out, "  held: {held}");
    }
    let _ = writeln!(out, "  versions:");
    for version in &record.versions {
        let running = version.running.as_ref().map_or_else(
            || "none".to_string(),
            |v| format!("{} ({})", v.version, v.digest),
        );
        let change = version
            .change
            .as_ref()
            .map_or_else(String::new, |change| format!(": {change}"));
        let _ = writeln!(out, "    {} {running}{change}", version.plugin);
    }
    for skill in &record.skills {
        let _ = writeln!(
            out,
            "  skill {} {}: {}",
            skill.skill, skill.version, skill.why
        );
    }
    let _ = writeln!(out, "  contributors:");
    for contributor in &record.contributors {
        let mark = if contributor.included { "+" } else { "-" };
        let _ = writeln!(
            out,
            "    {mark} {} [{}, {} tokens]: {}",
            contributor.contributor, contributor.kind, contributor.tokens, contributor.why
        );
    }
    for fired in &record.system_messages {
        let _ = writeln!(out, "  system message {}: {}", fired.contributor, fired.why);
    }
    for (what, runs) in [
        ("eager run", &record.eager_runs),
        ("retrieval", &record.retrievals),
    ] {
        for run in runs {
            let outcome = match (&run.reason, run.approval, &run.provenance) {
                (Some(reason), Some(Approval::Pending), _) => format!("pending: {reason}"),
                (Some(reason), Some(Approval::Denied), _) => format!("denied: {reason}"),
                (Some(reason), _, _) => format!("refused: {reason}"),
                (None, Some(Approval::Approved), _) => "approved, ran".to_string(),
                (None, _, Some(provenance)) => format!("ran; marked `{provenance}`"),
                (None, _, None) => "ran".to_string(),
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

//! `contrib usage`: what the eager loads that choose from usage load, and
//! why, as the build chooses it.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use super::compile::{compile_with_usage, NotBuilt};
use super::output::{self, ReportFormat};
use super::{fail, Outcome};
use crate::bundle::{Bundle, BundledChoice, BundledContributor};
use crate::config::Resolver;

#[derive(Args)]
pub(super) struct UsageArgs {
    /// A manifest with eager loads that `choose from usage`.
    manifest: PathBuf,
    /// Choose from this usage file instead of the one each eager load
    /// names, to see what a new file would change.
    #[arg(long, value_name = "FILE")]
    usage: Option<PathBuf>,
    /// The workspace configuration (default: the nearest `contrib.toml`
    /// above the manifest).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// How to write the choice.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    format: ReportFormat,
}

pub(super) fn run(args: &UsageArgs) -> Outcome {
    let mut resolver = Resolver::new(args.config.clone());
    let bundle = match compile_with_usage(&args.manifest, &mut resolver, args.usage.as_deref()) {
        Ok(compiled) => compiled.bundle,
        Err(NotBuilt::Failed(message)) => return fail(message),
        Err(
            NotBuilt::Errors(source, diagnostics) | NotBuilt::Config(Some((source, diagnostics))),
        ) => {
            let errors = diagnostics.iter().filter(|d| d.is_error()).count();
            return fail(format!(
                "`{}` has {errors} error(s); run `contrib check {}`",
                source.name,
                args.manifest.display()
            ));
        }
        Err(NotBuilt::Config(None)) => {
            return fail("the manifest's configuration has errors; run `contrib check`")
        }
    };
    let chosen: Vec<&BundledContributor> = bundle
        .contributors
        .iter()
        .filter(|contributor| contributor.choice.is_some())
        .collect();
    if chosen.is_empty() {
        return fail(format!(
            "no eager load in `{}` chooses from usage; add `choose from usage \"FILE\"` to one",
            args.manifest.display()
        ));
    }
    let text = match args.format {
        ReportFormat::Json => {
            let choices: Vec<serde_json::Value> = chosen
                .iter()
                .map(|contributor| {
                    serde_json::json!({
                        "contributor": bundle.contributor_name(contributor),
                        "budget": contributor.budget,
                        "loads_tokens": contributor.measured_tokens,
                        "rounds_saved_per_conversation": contributor.choice.as_ref().map(rounds_saved),
                        "choice": contributor.choice,
                    })
                })
                .collect();
            serde_json::to_string_pretty(&serde_json::json!({ "eager_loads": choices }))
                .unwrap_or_default()
        }
        ReportFormat::Human => human(&bundle, &chosen),
    };
    output::result(text, Outcome::Clean)
}

/// The rounds a conversation saves on average: each chosen item saves one
/// in every conversation that calls it.
pub(super) fn rounds_saved(choice: &BundledChoice) -> f64 {
    if choice.conversations == 0 {
        return 0.0;
    }
    let saved: u64 = choice
        .candidates
        .iter()
        .filter(|candidate| candidate.chosen)
        .map(|candidate| candidate.conversations)
        .sum();
    saved as f64 / choice.conversations as f64
}

fn human(bundle: &Bundle, chosen: &[&BundledContributor]) -> String {
    let mut out = String::new();
    for contributor in chosen {
        let Some(choice) = &contributor.choice else {
            continue;
        };
        let _ = writeln!(
            out,
            "{}: chosen from `{}` ({} conversations, {} turns, {})",
            bundle.contributor_name(contributor),
            choice.usage,
            choice.conversations,
            choice.turns,
            choice.usage_digest
        );
        let _ = writeln!(
            out,
            "loads {} of its {} tokens into every request; saves {:.2} rounds per conversation",
            contributor.measured_tokens,
            contributor.budget,
            rounds_saved(choice)
        );
        let width = choice
            .candidates
            .iter()
            .map(|candidate| candidate.item.to_string().len())
            .max()
            .unwrap_or(0);
        for candidate in &choice.candidates {
            let _ = writeln!(
                out,
                "  {} {:<width$} {:>6} tokens  {}",
                if candidate.chosen {
                    "loaded "
                } else {
                    "skipped"
                },
                candidate.item.to_string(),
                candidate.tokens,
                candidate.why
            );
        }
        out.push('\n');
    }
    out.trim_end().to_string()
}

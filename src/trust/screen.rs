//! The approval screen: everything a person agrees to by installing, in
//! one structure that the terminal preview (`contrib preview`, `contrib
//! install`) and the page (`--html`, [`crate::pages::approval`]) both
//! draw. What is shown is decided here once, so the two cannot disagree
//! about what a plugin asks for; each part the model reads is shown in the
//! words [`crate::bundle::surface`] gives it, the words the approval
//! delta uses.

use crate::bundle::diff::Change;
use crate::bundle::surface;
use crate::bundle::Bundle;
use crate::ir::Owner;

use super::install::Candidate;

/// The headings of the screen's closing lists, the same in every drawing.
pub mod headings {
    pub const OVERSTATED: &str = "The bundle's own permissions also claim (not asked for here)";
    pub const WAIVED: &str = "Its author waived (recorded in the bundle; not obeyed here)";
    pub const RELAXED: &str = "Relaxed by this workspace's contrib.toml (recorded in contrib.lock)";
}

/// What a person approves: a bundle as previewed, and when it is being
/// installed, as this workspace reads it.
#[derive(Debug, Clone)]
pub struct Screen {
    /// `scope/name@version`.
    pub id: String,
    pub requested_owner: Owner,
    pub summary: Option<String>,
    pub digest: Option<String>,
    /// Present when installing: who asks, who grants, from where.
    pub install: Option<Install>,
    pub asks: Asks,
    pub contributors: Vec<Added>,
    /// Permissions the bundle claims that this workspace does not ask for.
    pub overstated: Vec<String>,
    /// What the author waived: recorded, shown, not obeyed.
    pub waivers: Vec<Waived>,
    /// What this workspace's `contrib.toml` relaxes for the plugin.
    pub relaxed: Vec<Relaxation>,
    /// For an update: what changed since the approved version.
    pub delta: Option<Delta>,
}

/// The installing workspace's side of the screen.
#[derive(Debug, Clone)]
pub struct Install {
    pub catalog: String,
    pub granted: Owner,
    pub installer: Owner,
}

/// The plugin's permissions as a whole.
#[derive(Debug, Clone, Default)]
pub struct Asks {
    pub budgets: Vec<Budget>,
    pub highest_priority: String,
    pub reaches: Vec<String>,
    /// Tools loaded when a conversation starts.
    pub loads: Vec<String>,
    /// Tools run with nobody asking.
    pub runs: Vec<Run>,
    pub hosts: Vec<String>,
    /// `(skill, version requirement)`.
    pub requires: Vec<(String, String)>,
}

/// Tokens asked for at one placement.
#[derive(Debug, Clone)]
pub struct Budget {
    pub placement: String,
    pub tokens: u64,
    /// Who shares what is placed there.
    pub shared_by: &'static str,
}

/// A tool run with nobody asking.
#[derive(Debug, Clone)]
pub struct Run {
    pub tool: String,
    pub effect: &'static str,
    /// Waits for a person's approval at each run.
    pub gated: bool,
}

/// One contributor: what it adds and where.
#[derive(Debug, Clone)]
pub struct Added {
    pub kind: String,
    pub id: String,
    pub placement: String,
    pub priority: String,
    pub reach: String,
    pub budget: u64,
    pub measured_tokens: u64,
    pub framing: Option<String>,
    /// The exact text, variables shown as `{name}`.
    pub text: Option<String>,
    /// When it applies, when not always, as the manifest says it: `on
    /// command deploy`, or `on request "…"` with the very description the
    /// model is shown in the kept system prompt.
    pub applies: Option<String>,
    /// When a system message is sent, in words.
    pub when: Option<String>,
    /// A fact's heading, which the model reads above its sections.
    pub heading: Option<String>,
    pub loads_tools: Vec<String>,
    /// `(skill, operations)` loaded ahead.
    pub loads_skill: Option<(String, Vec<String>)>,
    /// How an eager load that chooses from usage chose: the usage file,
    /// how many conversations it records, its digest, and what it left out.
    pub chosen: Option<String>,
    pub calls: Option<Call>,
    /// `(origin, source)` of retrieved text.
    pub retrieved: Option<(String, String)>,
    pub states: Vec<String>,
}

/// An eager run's call.
#[derive(Debug, Clone)]
pub struct Call {
    pub tool: String,
    /// The arguments as JSON.
    pub arguments: String,
    pub effect: &'static str,
}

/// One thing the author waived.
#[derive(Debug, Clone)]
pub enum Waived {
    /// `allow(rule)` on a contributor (`None`: the whole file), with why.
    Allow {
        rule: String,
        scope: Option<String>,
        reason: String,
    },
    /// A `[lints]` level.
    Lint { rule: String, level: &'static str },
}

/// One relaxation by the installing workspace.
#[derive(Debug, Clone)]
pub struct Relaxation {
    pub rule: String,
    pub contributor: String,
    /// The `contrib.toml` table that relaxes it.
    pub by: String,
    pub reason: String,
}

/// An update's changes against the approved version.
#[derive(Debug, Clone)]
pub struct Delta {
    pub from: String,
    pub to: String,
    pub changes: Vec<Change>,
}

impl Screen {
    /// The screen for a bundle as its author built it (`contrib preview`).
    pub fn of_bundle(bundle: &Bundle) -> Screen {
        Screen {
            id: bundle.id(),
            requested_owner: bundle.requested_owner,
            summary: bundle.summary.clone(),
            digest: bundle.digest.clone(),
            install: None,
            asks: Asks::of(bundle),
            contributors: bundle
                .contributors
                .iter()
                .map(|contributor| Added::of(bundle, contributor))
                .collect(),
            overstated: Vec::new(),
            waivers: Vec::new(),
            relaxed: Vec::new(),
            delta: None,
        }
    }

    /// The screen for an install: the bundle as this workspace re-read
    /// it, with who grants what, what was waived and relaxed, and the
    /// delta against the version approved before.
    pub fn of_candidate(candidate: &Candidate) -> Screen {
        let checked = &candidate.recheck;
        let approved = &checked.approved;
        let mut screen = Screen::of_bundle(approved);
        screen.install = Some(Install {
            catalog: candidate.catalog.display().to_string(),
            granted: checked.granted,
            installer: candidate.installer,
        });
        screen.overstated = checked
            .overstated
            .iter()
            .map(|change| change.message.clone())
            .collect();
        let waivers = &approved.author_waivers;
        screen.waivers = waivers
            .suppressions
            .iter()
            .map(|waiver| Waived::Allow {
                rule: waiver.rule.clone(),
                scope: waiver.contributor.clone(),
                reason: waiver.reason.clone(),
            })
            .chain(waivers.lints.iter().map(|(rule, level)| Waived::Lint {
                rule: rule.clone(),
                level: level.as_str(),
            }))
            .collect();
        screen.relaxed = checked
            .relaxed
            .iter()
            .map(|relaxed| Relaxation {
                rule: relaxed.rule.clone(),
                contributor: relaxed.contributor.clone(),
                by: relaxed.tool.as_ref().map_or_else(
                    || format!("[trust.plugins.\"{}\"]", approved.plugin),
                    |tool| format!("[trust.tools.{tool}]"),
                ),
                reason: relaxed.reason.clone(),
            })
            .collect();
        screen.delta = candidate.previous.as_ref().map(|previous| Delta {
            from: previous.id(),
            to: approved.id(),
            changes: candidate.changes.clone(),
        });
        screen
    }
}

impl Asks {
    fn of(bundle: &Bundle) -> Asks {
        let permissions = &bundle.permissions;
        Asks {
            budgets: permissions
                .budgets
                .iter()
                .map(|(placement, tokens)| Budget {
                    placement: placement.to_string(),
                    tokens: *tokens,
                    shared_by: placement.shared_by(),
                })
                .collect(),
            highest_priority: permissions.highest_priority.to_string(),
            reaches: permissions
                .reaches
                .iter()
                .map(ToString::to_string)
                .collect(),
            loads: permissions.tools_loaded.clone(),
            runs: permissions
                .tools_run
                .iter()
                .map(|run| Run {
                    tool: run.tool.clone(),
                    effect: run.effect.as_str(),
                    gated: run.gated,
                })
                .collect(),
            hosts: permissions.egress_hosts.clone(),
            requires: bundle
                .requires
                .iter()
                .map(|(skill, version)| (skill.clone(), version.clone()))
                .collect(),
        }
    }
}

impl Added {
    fn of(bundle: &Bundle, contributor: &crate::bundle::BundledContributor) -> Added {
        Added {
            kind: contributor.kind.to_string(),
            id: contributor.id.clone(),
            placement: contributor.placement.to_string(),
            priority: contributor.priority.to_string(),
            reach: contributor.reach.to_string(),
            budget: contributor.budget,
            measured_tokens: contributor.measured_tokens,
            framing: contributor.framing.as_ref().map(ToString::to_string),
            text: contributor
                .template
                .is_some()
                .then(|| contributor.render(|variable| format!("{{{variable}}}"))),
            applies: contributor
                .activation
                .as_ref()
                .map(|activation| surface::applies(Some(activation))),
            when: contributor.condition.as_ref().map(surface::when),
            heading: contributor.heading.clone(),
            loads_tools: contributor.tools.clone(),
            loads_skill: contributor
                .operations
                .as_ref()
                .map(|operations| (operations.skill.clone(), operations.operations.clone())),
            chosen: contributor.choice.as_ref().map(|choice| {
                format!(
                    "chosen from usage `{}` ({} conversations, {}); candidates left out: {}",
                    choice.usage,
                    choice.conversations,
                    choice.usage_digest,
                    choice
                        .candidates
                        .iter()
                        .filter(|candidate| !candidate.chosen)
                        .map(|candidate| candidate.item.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }),
            calls: contributor.call.as_ref().map(|call| Call {
                tool: call.tool.clone(),
                arguments: serde_json::to_string(&call.arguments).unwrap_or_default(),
                effect: bundle
                    .run_effect(&call.tool)
                    .map_or("unknown", |effect| effect.as_str()),
            }),
            retrieved: (contributor.source.is_some() || contributor.origin.is_some()).then(|| {
                (
                    contributor.origin.clone().unwrap_or_default(),
                    contributor
                        .source
                        .map_or_else(String::new, |source| source.to_string()),
                )
            }),
            states: contributor.says.iter().map(ToString::to_string).collect(),
        }
    }
}

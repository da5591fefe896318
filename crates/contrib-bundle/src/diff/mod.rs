//! The approval delta between two versions of a plugin: what the new one
//! asks for beyond the old (needs a person's approval) and what merely
//! changed (an update, approved already); and for each change, the cached
//! prefixes it invalidates and what writing them again costs.
//!
//! A change to bytes a provider caches as a shared prefix (the kept system
//! prompt and the eager loads) invalidates that prefix for everyone who
//! shares it: a platform edit, every agent's; an agent edit, the agent
//! prefix of every conversation of the agents it is installed on; a person
//! edit, that person's. Running conversations keep the prompt they were
//! composed with until they compact, so the cost is paid as new
//! conversations start: each invalidated prefix written once again,
//! instead of read. What is not shared (the opening, notes) is composed per
//! conversation anyway and costs nothing extra.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

mod contributor;

use super::{Bundle, BundledActivation, BundledContributor, Permissions};
use contrib_core::config::Effect;
use contrib_core::vocabulary::{Delivery, Placement};

/// Whether a change needs a new approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Asks for more: a person must approve it before it applies.
    NeedsApproval,
    /// Within what was approved.
    Update,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub class: Class,
    /// The contributor it concerns, or `None` for the plugin as a whole.
    pub contributor: Option<String>,
    pub message: String,
    /// What it does to cached prefixes.
    pub cache: CacheImpact,
}

impl Change {
    fn new(class: Class, contributor: Option<&str>, message: String) -> Self {
        Change {
            class,
            contributor: contributor.map(str::to_string),
            message,
            cache: CacheImpact::none("it changes no byte of a cached prefix"),
        }
    }

    /// A change of the plugin as a whole that needs a person's approval.
    pub fn asks_for_more(message: String) -> Self {
        Change::new(Class::NeedsApproval, None, message)
    }

    fn invalidating(mut self, placement: Option<Placement>) -> Self {
        if let Some(placement) = placement {
            self.cache = CacheImpact::of(placement);
        }
        self
    }
}

/// What a change does to the provider's cached prefixes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheImpact {
    /// The widest placement whose cached prefix the change writes again,
    /// or `None` when it changes no byte of a shared prefix.
    pub invalidates: Option<Placement>,
    /// Which cached prefixes, in words.
    pub prefixes: String,
    /// What writing them again costs, under a traffic assumption, when
    /// [`estimate`] priced it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<Rewrite>,
}

impl CacheImpact {
    pub fn none(why: &str) -> CacheImpact {
        CacheImpact {
            invalidates: None,
            prefixes: format!("none: {why}"),
            rewrite: None,
        }
    }

    fn of(placement: Placement) -> CacheImpact {
        let prefixes = match placement {
            Placement::Platform => "every agent's cached prefix, and so every request on the platform once",
            Placement::Agent => "the agent prefix of each agent it is installed on, and so every conversation of those agents",
            Placement::Person => "the person prefix of each person it is installed for, with each agent",
            Placement::Conversation | Placement::Message => {
                return CacheImpact::none("it is composed per conversation or per turn, never shared");
            }
        };
        CacheImpact {
            invalidates: Some(placement),
            prefixes: format!(
                "{prefixes}; running conversations keep the prefix they were composed with until they compact"
            ),
            rewrite: None,
        }
    }
}

/// What is warm in the provider's cache when an update lands: the
/// assumption a re-write estimate rests on, which the user sets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Traffic {
    /// Agents holding the edited prefix: every agent on the platform for a
    /// platform edit, those the plugin is installed on otherwise.
    pub agents: u64,
    /// Models each agent runs on: the cache is per model.
    pub models: u64,
    /// People per agent whose person prefix is warm.
    pub persons: u64,
    /// Tokens of each agent prefix (tools, platform and agent parts, eager
    /// loads); by default this plugin's own kept contributions at platform
    /// and agent placement, a lower bound.
    pub agent_prefix_tokens: Option<u64>,
    /// Tokens of each person part; by default this plugin's own.
    pub person_part_tokens: Option<u64>,
}

impl Default for Traffic {
    fn default() -> Self {
        Traffic {
            agents: 1,
            models: 1,
            persons: 10,
            agent_prefix_tokens: None,
            person_part_tokens: None,
        }
    }
}

/// What a written token costs against a read one, on one model of one
/// profile, in uncached-input-token units.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RewritePrice {
    pub profile: String,
    pub model: String,
    pub read: f64,
    /// Writing an agent prefix (the longest lifetime on offer).
    pub agent_write: f64,
    /// Writing a person prefix (the shortest).
    pub person_write: f64,
    /// USD per uncached input token, when the profile prices the model.
    pub input_usd: Option<f64>,
}

/// The estimated cost of writing invalidated prefixes again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rewrite {
    /// Cache entries written again.
    pub entries: u64,
    /// Tokens written again instead of read.
    pub tokens: u64,
    /// What that costs beyond reading them, in uncached-input-token units.
    pub extra_cost: f64,
    pub extra_usd: Option<f64>,
    /// The traffic and prices it assumes, in a sentence.
    pub assumes: String,
}

/// Prices every change's re-write under `traffic` and `price`; the
/// prefix sizes default to `new`'s own kept contributions.
pub fn estimate(changes: &mut [Change], new: &Bundle, traffic: &Traffic, price: &RewritePrice) {
    for change in changes {
        if let Some(placement) = change.cache.invalidates {
            change.cache.rewrite = Some(rewrite(placement, new, traffic, price));
        }
    }
}

/// The cost of one update: the widest prefix its changes invalidate,
/// written again once however many changes touch it.
pub fn update_rewrite(
    changes: &[Change],
    new: &Bundle,
    traffic: &Traffic,
    price: &RewritePrice,
) -> Option<(Placement, Rewrite)> {
    let widest = changes
        .iter()
        .filter_map(|change| change.cache.invalidates)
        .min()?;
    Some((widest, rewrite(widest, new, traffic, price)))
}

fn rewrite(placement: Placement, new: &Bundle, traffic: &Traffic, price: &RewritePrice) -> Rewrite {
    let own = |placements: &[Placement]| -> u64 {
        new.contributors
            .iter()
            .filter(|contributor| kept(contributor) && placements.contains(&contributor.placement))
            .map(|contributor| contributor.measured_tokens)
            .sum()
    };
    let agent_tokens = traffic
        .agent_prefix_tokens
        .unwrap_or_else(|| own(&[Placement::Platform, Placement::Agent]));
    let person_tokens = traffic
        .person_part_tokens
        .unwrap_or_else(|| own(&[Placement::Person]));
    let agents = traffic.agents * traffic.models;
    let persons = agents * traffic.persons;
    let (entries, agent_written, person_written) = match placement {
        Placement::Platform | Placement::Agent => (
            agents + persons,
            agents * agent_tokens,
            persons * person_tokens,
        ),
        _ => (agents, 0, agents * person_tokens),
    };
    let extra_cost = agent_written as f64 * (price.agent_write - price.read)
        + person_written as f64 * (price.person_write - price.read);
    Rewrite {
        entries,
        tokens: agent_written + person_written,
        extra_cost,
        extra_usd: price.input_usd.map(|usd| extra_cost * usd),
        assumes: format!(
            "{} agent(s) × {} model(s), {} warm person prefix(es) per agent, agent prefixes of {agent_tokens} tokens and person parts of {person_tokens}, `{}` on the `{}` profile",
            traffic.agents, traffic.models, traffic.persons, price.model, price.profile
        ),
    }
}

/// Whether what `contributor` adds is kept in a shared prefix: the system
/// prompt (its text, or the listing of a text asked for by description) or
/// the eager loads.
fn kept(contributor: &BundledContributor) -> bool {
    matches!(
        contributor.delivery,
        Delivery::SystemPrompt | Delivery::Preloaded
    ) || matches!(
        contributor.activation,
        Some(BundledActivation::Request { .. })
    ) && contributor.placement.is_system_prompt()
}

/// The placement whose prefix a change to `old` or `new` invalidates: the
/// wider of the two kept ones.
fn kept_placement(
    old: Option<&BundledContributor>,
    new: Option<&BundledContributor>,
) -> Option<Placement> {
    [old, new]
        .into_iter()
        .flatten()
        .filter(|contributor| kept(contributor))
        .map(|contributor| contributor.placement)
        .min()
}

/// Whether `old` and `new` are versions of one plugin: a delta between
/// two different plugins would read as an approval of one by the other.
pub fn comparable(old: &Bundle, new: &Bundle) -> Result<(), DifferentPlugins> {
    if old.plugin == new.plugin {
        Ok(())
    } else {
        Err(DifferentPlugins {
            old: old.id(),
            new: new.id(),
        })
    }
}

/// Two bundles of different plugins, by `plugin@version`: no delta
/// between them is an approval of either.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DifferentPlugins {
    pub old: String,
    pub new: String,
}

impl std::fmt::Display for DifferentPlugins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` and `{}` are different plugins; `contrib diff` compares two versions of one plugin",
            self.old, self.new
        )
    }
}

impl std::error::Error for DifferentPlugins {}

/// Every change from `old` to `new`, escalations first. Each field is
/// classed as [`super::surface::BUNDLE_FIELDS`] says.
pub fn diff(old: &Bundle, new: &Bundle) -> Vec<Change> {
    // Every field, named: one added to the model does not compile here
    // until it is compared (and classed in `surface`).
    let Bundle {
        format: _,
        plugin: _,
        version,
        requested_owner,
        summary,
        requires,
        tokenizer: _,
        contributors,
        permissions,
        author_waivers: _,
        digest: _,
    } = new;
    let mut changes = Vec::new();
    if *summary != old.summary {
        changes.push(Change::new(
            Class::Update,
            None,
            "its summary changes".to_string(),
        ));
    }
    if *requires != old.requires {
        // What it requires narrows where it runs, never what it reaches.
        changes.push(Change::new(
            Class::Update,
            None,
            format!(
                "the skills it requires change from {} to {}",
                requirements(&old.requires),
                requirements(requires)
            ),
        ));
    }
    if *version < old.version {
        // An older version may lack a fix the approved one has, and a
        // catalog never installs it over a newer one: a person decides.
        changes.push(Change::new(
            Class::NeedsApproval,
            None,
            format!(
                "the version goes down from {} to {}",
                old.version, new.version
            ),
        ));
    }
    if old.requested_owner != *requested_owner {
        // Priorities and framing follow the owner: every kept text may read
        // differently.
        let widest = new
            .contributors
            .iter()
            .filter_map(|contributor| kept_placement(None, Some(contributor)))
            .min();
        changes.push(
            Change::new(
                Class::NeedsApproval,
                None,
                format!(
                    "the plugin's owner changes from {} to {}",
                    old.requested_owner, new.requested_owner
                ),
            )
            .invalidating(widest),
        );
    }
    for contributor in contributors {
        match old
            .contributors
            .iter()
            .find(|previous| previous.id == contributor.id)
        {
            None => changes.push(
                Change::new(
                    Class::NeedsApproval,
                    Some(&contributor.id),
                    format!(
                        "adds {} at {} placement, {} priority, budget {} tokens",
                        contributor.kind.with_article(),
                        contributor.placement,
                        contributor.priority,
                        contributor.budget
                    ),
                )
                .invalidating(kept_placement(None, Some(contributor))),
            ),
            Some(previous) => contributor::compare(previous, contributor, &mut changes),
        }
    }
    for previous in &old.contributors {
        if !contributors
            .iter()
            .any(|contributor| contributor.id == previous.id)
        {
            changes.push(
                Change::new(
                    Class::Update,
                    Some(&previous.id),
                    format!("removes the `{}`", previous.kind),
                )
                .invalidating(kept_placement(Some(previous), None)),
            );
        }
    }
    compare_tools(&old.permissions, permissions, &mut changes);
    changes.sort_by_key(|change| change.class);
    changes
}

fn requirements(requires: &std::collections::BTreeMap<String, String>) -> String {
    if requires.is_empty() {
        return "none".to_string();
    }
    requires
        .iter()
        .map(|(skill, version)| format!("{skill} {version}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What `new` asks for beyond `old`, and what it asks for less of, from the
/// permissions alone: tools loaded and run, effects, gates and hosts, then
/// placements, budgets, priority and reaches. An installer compares a
/// bundle's own permissions with those its tools make of it, and a load
/// compares what was approved with what is asked for now.
pub fn permissions(old: &Permissions, new: &Permissions) -> Vec<Change> {
    // Every field, named: one added does not compile here until it is
    // compared (and classed in `surface::PERMISSION_FIELDS`). The first
    // four are compared by `compare_totals`, the others by `compare_tools`.
    let Permissions {
        placements: _,
        budgets: _,
        highest_priority: _,
        reaches: _,
        tools_loaded: _,
        tools_run: _,
        egress_hosts: _,
    } = new;
    let mut changes = Vec::new();
    compare_tools(old, new, &mut changes);
    compare_totals(old, new, &mut changes);
    changes.sort_by_key(|change| change.class);
    changes
}

/// Whether any change needs approval.
pub fn needs_approval(changes: &[Change]) -> bool {
    changes
        .iter()
        .any(|change| change.class == Class::NeedsApproval)
}

fn compare_tools(
    old_permissions: &Permissions,
    new_permissions: &Permissions,
    changes: &mut Vec<Change>,
) {
    let old_loaded: BTreeSet<&String> = old_permissions.tools_loaded.iter().collect();
    for tool in &new_permissions.tools_loaded {
        if !old_loaded.contains(tool) {
            changes.push(Change::new(
                Class::NeedsApproval,
                None,
                format!("newly loads `{tool}` when a conversation starts"),
            ));
        }
    }
    for run in &new_permissions.tools_run {
        match old_permissions
            .tools_run
            .iter()
            .find(|previous| previous.tool == run.tool)
        {
            None => changes.push(Change::new(
                Class::NeedsApproval,
                None,
                format!(
                    "newly runs `{}` ({}{}) with nobody asking",
                    run.tool,
                    run.effect.as_str(),
                    if run.gated { ", gated" } else { "" }
                ),
            )),
            Some(previous) => {
                if run.effect == Effect::Write && previous.effect != Effect::Write {
                    changes.push(Change::new(
                        Class::NeedsApproval,
                        None,
                        format!("`{}` now writes", run.tool),
                    ));
                }
                if previous.gated && !run.gated {
                    changes.push(Change::new(
                        Class::NeedsApproval,
                        None,
                        format!("`{}` is no longer gated", run.tool),
                    ));
                }
            }
        }
    }
    for host in &new_permissions.egress_hosts {
        if !old_permissions.egress_hosts.contains(host) {
            changes.push(Change::new(
                Class::NeedsApproval,
                None,
                format!("newly reaches the host `{host}`"),
            ));
        }
    }
}

/// Placements, budgets per placement, the highest priority and reaches.
fn compare_totals(old: &Permissions, new: &Permissions, changes: &mut Vec<Change>) {
    let mut push = |class, message: String| changes.push(Change::new(class, None, message));
    for placement in &new.placements {
        if !old.placements.contains(placement) {
            push(
                Class::NeedsApproval,
                format!("newly adds at {placement} placement"),
            );
        }
    }
    for (placement, budget) in &new.budgets {
        let before = old.budgets.get(placement).copied().unwrap_or(0);
        if *budget > before {
            push(
                Class::NeedsApproval,
                format!(
                    "its budgets at {placement} placement rise from {before} to {budget} tokens"
                ),
            );
        } else if *budget < before {
            push(
                Class::Update,
                format!(
                    "its budgets at {placement} placement fall from {before} to {budget} tokens"
                ),
            );
        }
    }
    if new.highest_priority < old.highest_priority {
        push(
            Class::NeedsApproval,
            format!(
                "its highest priority rises from {} to {}",
                old.highest_priority, new.highest_priority
            ),
        );
    }
    for reach in &new.reaches {
        if !old.reaches.contains(reach) {
            push(Class::NeedsApproval, format!("newly reaches {reach} turns"));
        }
    }
}

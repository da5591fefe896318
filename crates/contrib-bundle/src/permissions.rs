//! The summary a person approves when installing a plugin version.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::BundledContributor;
use contrib_core::config::{Config, Effect};
use contrib_core::policy::url;
use contrib_core::vocabulary::{Kind, Placement, Priority, Reach};

/// What a plugin version asks for, in the terms a person approves it in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permissions {
    /// Placements used, widest first.
    pub placements: Vec<Placement>,
    /// Total budget per placement.
    pub budgets: BTreeMap<Placement, u64>,
    /// Tools loaded when a conversation starts.
    pub tools_loaded: Vec<String>,
    /// Tools run with nobody asking (eager runs and prefaces).
    pub tools_run: Vec<ToolRun>,
    /// Hosts those runs may reach.
    pub egress_hosts: Vec<String>,
    /// The highest priority any contributor claims.
    pub highest_priority: Priority,
    /// Reaches used, widest first.
    pub reaches: Vec<Reach>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolRun {
    pub tool: String,
    pub effect: Effect,
    pub gated: bool,
}

impl Permissions {
    /// What `contributors` ask for, under `config`'s tools: what a build
    /// records, and what an installer recomputes under its own registry
    /// rather than believe the bundle's record.
    pub fn of(contributors: &[BundledContributor], config: &Config) -> Permissions {
        summarise(contributors, config)
    }
}

fn summarise(contributors: &[BundledContributor], config: &Config) -> Permissions {
    let mut budgets = BTreeMap::new();
    let mut tools_loaded = BTreeSet::new();
    let mut tools_run = BTreeSet::new();
    let mut egress_hosts = BTreeSet::new();
    for contributor in contributors {
        *budgets.entry(contributor.placement).or_insert(0) += contributor.budget;
        tools_loaded.extend(contributor.tools.iter().cloned());
        if let Some(call) = &contributor.call {
            let tool = config.tools.get(&call.tool);
            tools_run.insert(ToolRun {
                tool: call.tool.clone(),
                effect: tool.map_or(Effect::Write, |tool| tool.effect),
                gated: tool.is_some_and(|tool| tool.gated),
            });
            if let Some(tool) = tool {
                let arguments = call
                    .arguments
                    .iter()
                    .map(|(name, value)| (name.as_str(), value));
                egress_hosts.extend(
                    url::hosts(tool, arguments)
                        .into_iter()
                        .filter_map(|found| found.host.ok()),
                );
            }
        }
        if contributor.kind == Kind::EagerLoad {
            if let Some(operations) = &contributor.operations {
                tools_loaded.extend(
                    operations
                        .operations
                        .iter()
                        .map(|op| format!("{}.{op}", operations.skill)),
                );
            }
        }
    }
    let placements: BTreeSet<Placement> = contributors.iter().map(|c| c.placement).collect();
    let reaches: BTreeSet<Reach> = contributors.iter().map(|c| c.reach).collect();
    Permissions {
        placements: placements.into_iter().collect(),
        budgets,
        tools_loaded: tools_loaded.into_iter().collect(),
        tools_run: tools_run.into_iter().collect(),
        egress_hosts: egress_hosts.into_iter().collect(),
        highest_priority: contributors
            .iter()
            .map(|c| c.priority)
            .min()
            .unwrap_or(Priority::Person),
        reaches: reaches.into_iter().collect(),
    }
}

//! The installer's policy as the runtime applies it, call by call.
//!
//! A contributor's tool call (an eager run, a preface's retrieval) is
//! decided from the workspace's own registry and egress allow-list, never
//! from what the bundle records: the tool must be one the workspace has; a
//! tool that writes runs only when the workspace opted it in (`eager =
//! true`) or relaxed the rule for it; every host its arguments carry,
//! whatever the parameter is called, must be allowed; a gated tool waits
//! for a person's approval. A host reads the policy again before each turn
//! ([`Policy::new`] from the files as they are then), so a gate tightened
//! or a host removed reaches running conversations at their next turn.

use std::collections::BTreeMap;

use crate::codes::{EAGER_RUN_WRITES, EGRESS_NOT_ALLOWED};
use crate::config::{Config, Effect};
use crate::ir::Value;
use contrib_core::policy::call::{self, Call};

use super::lock::{Relaxed, WorkspaceLock};

/// What the policy makes of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallDecision {
    /// It may run, with the effect the workspace's registry gives it.
    Allow { effect: Effect },
    /// It may run once a person approves it.
    AwaitApproval,
    /// It may not run, and why.
    Refuse(String),
}

/// A workspace's configuration and what its lock recorded as relaxed.
#[derive(Debug, Clone)]
pub struct Policy {
    config: Config,
    /// By plugin name.
    relaxed: BTreeMap<String, Vec<Relaxed>>,
}

impl Policy {
    pub fn new(config: Config, lock: &WorkspaceLock) -> Policy {
        let relaxed = lock
            .installed
            .iter()
            .map(|entry| (entry.plugin.clone(), entry.relaxed.clone()))
            .collect();
        Policy { config, relaxed }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Decides a call by `contributor` of `plugin` (its name, without the
    /// version).
    pub fn call(
        &self,
        plugin: &str,
        contributor: &str,
        tool_name: &str,
        arguments: &BTreeMap<String, Value>,
    ) -> CallDecision {
        let arguments: Vec<(&str, &Value)> = arguments
            .iter()
            .map(|(name, value)| (name.as_str(), value))
            .collect();
        let call = Call {
            contributor,
            tool: tool_name,
            arguments: &arguments,
        };
        if let Some(unknown) = call::unknown_tool(&self.config, tool_name) {
            return CallDecision::Refuse(unknown.to_string());
        }
        if let Some(writes) = call::writes(&self.config, &call) {
            if !writes.opted_in && !self.relaxes(plugin, contributor, EAGER_RUN_WRITES.name) {
                return CallDecision::Refuse(writes.to_string());
            }
        }
        if !self.relaxes(plugin, contributor, EGRESS_NOT_ALLOWED.name) {
            if let Some(egress) = call::egress(&self.config, &call).first() {
                return CallDecision::Refuse(egress.to_string());
            }
        }
        if call::gated(&self.config, &call).is_some() {
            return CallDecision::AwaitApproval;
        }
        CallDecision::Allow {
            effect: self
                .config
                .tools
                .get(tool_name)
                .map_or(Effect::Write, |tool| tool.effect),
        }
    }

    /// Whether the lock recorded `rule` relaxed for this contributor, and
    /// the configuration still relaxes it.
    fn relaxes(&self, plugin: &str, contributor: &str, rule: &str) -> bool {
        let recorded = self.relaxed.get(plugin).map_or(&[][..], Vec::as_slice);
        relaxes(&self.config, plugin, recorded, contributor, rule)
    }
}

/// Whether `recorded` (the lock's relaxations of `plugin`) holds `rule`
/// relaxed for `contributor`, and `config` still relaxes it.
pub fn relaxes(
    config: &Config,
    plugin: &str,
    recorded: &[Relaxed],
    contributor: &str,
    rule: &str,
) -> bool {
    recorded.iter().any(|relaxed| {
        relaxed.rule == rule
            && relaxed.contributor == contributor
            && still_relaxes(config, plugin, relaxed)
    })
}

/// Whether `config`'s `[trust]` table (or, for `eager-run-writes`, the
/// tool's `eager = true`) still relaxes what the lock recorded.
pub fn still_relaxes(config: &Config, plugin: &str, relaxed: &Relaxed) -> bool {
    let trust = &config.trust;
    let found = match &relaxed.tool {
        None => trust.plugins.get(plugin),
        Some(tool) => trust.tools.get(tool),
    };
    let by_eager = relaxed.rule == EAGER_RUN_WRITES.name
        && relaxed
            .tool
            .as_ref()
            .and_then(|tool| config.tools.get(tool))
            .is_some_and(|tool| tool.eager);
    by_eager
        || found.is_some_and(|relaxation| {
            relaxation
                .rules
                .iter()
                .any(|rule| rule.name == relaxed.rule)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;

    fn policy(toml: &str) -> Policy {
        let (config, diagnostics) = Config::from_source(SourceFile::new("contrib.toml", toml));
        assert!(diagnostics.is_empty(), "{diagnostics:#?}");
        Policy::new(config, &WorkspaceLock::default())
    }

    fn url(text: &str) -> BTreeMap<String, Value> {
        BTreeMap::from([("url".to_string(), Value::String(text.to_string()))])
    }

    #[test]
    fn egress_and_gates_come_from_the_workspace() {
        let strict = policy("[egress]\nallow = [\"docs.acme.dev\"]\n");
        assert_eq!(
            strict.call("acme/a", "x", "fetch_url", &url("https://docs.acme.dev/a")),
            CallDecision::Allow {
                effect: Effect::Read
            }
        );
        assert!(matches!(
            strict.call("acme/a", "x", "fetch_url", &url("https://evil.example/a")),
            CallDecision::Refuse(_)
        ));
        let gated = policy(
            "[egress]\nallow = [\"docs.acme.dev\"]\n[tools.fetch_url]\neffect = \"read\"\negress = true\ngated = true\nhosts = [\"url\"]\nparams = { url = \"string\" }\n",
        );
        assert_eq!(
            gated.call("acme/a", "x", "fetch_url", &url("https://docs.acme.dev/a")),
            CallDecision::AwaitApproval
        );
        assert!(matches!(
            strict.call("acme/a", "x", "deploy", &BTreeMap::new()),
            CallDecision::Refuse(_)
        ));
    }
}

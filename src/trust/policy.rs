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

use crate::check::url;
use crate::codes::{EAGER_RUN_WRITES, EGRESS_NOT_ALLOWED};
use crate::config::{Config, Effect};
use crate::ir::Value;

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
        let Some(tool) = self.config.tools.get(tool_name) else {
            return CallDecision::Refuse(format!("`{tool_name}` is not a tool of this workspace"));
        };
        if tool.effect == Effect::Write
            && !tool.eager
            && !self.relaxes(plugin, contributor, EAGER_RUN_WRITES.name)
        {
            return CallDecision::Refuse(format!(
                "`{tool_name}` writes, and this workspace runs only read-only tools with nobody asking"
            ));
        }
        let arguments = arguments.iter().map(|(name, value)| (name.as_str(), value));
        for found in url::hosts(tool, arguments) {
            if self.relaxes(plugin, contributor, EGRESS_NOT_ALLOWED.name) {
                continue;
            }
            match found.host {
                Ok(host) if self.config.egress_allows(&host) => {}
                Ok(host) => {
                    return CallDecision::Refuse(format!(
                    "`{}` reaches `{host}`, which this workspace's `[egress] allow` does not list",
                    found.param
                ))
                }
                Err(why) => {
                    return CallDecision::Refuse(format!(
                        "`{}` cannot be checked against `[egress] allow`: {}",
                        found.param, why.why
                    ))
                }
            }
        }
        if tool.gated {
            return CallDecision::AwaitApproval;
        }
        CallDecision::Allow {
            effect: tool.effect,
        }
    }

    /// Whether the lock recorded `rule` relaxed for this contributor, and
    /// the configuration still relaxes it.
    fn relaxes(&self, plugin: &str, contributor: &str, rule: &str) -> bool {
        let Some(recorded) = self.relaxed.get(plugin) else {
            return false;
        };
        recorded.iter().any(|relaxed| {
            relaxed.rule == rule
                && relaxed.contributor == contributor
                && self.still_relaxes(plugin, relaxed)
        })
    }

    fn still_relaxes(&self, plugin: &str, relaxed: &Relaxed) -> bool {
        let trust = &self.config.trust;
        let found = match &relaxed.tool {
            None => trust.plugins.get(plugin),
            Some(tool) => trust.tools.get(tool),
        };
        let by_eager = relaxed.rule == EAGER_RUN_WRITES.name
            && relaxed
                .tool
                .as_ref()
                .and_then(|tool| self.config.tools.get(tool))
                .is_some_and(|tool| tool.eager);
        by_eager
            || found.is_some_and(|relaxation| {
                relaxation
                    .rules
                    .iter()
                    .any(|rule| rule.name == relaxed.rule)
            })
    }
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

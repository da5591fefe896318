//! What a workspace judges of a version it approved, each time it loads
//! it: on the bundle itself, never on its text read back.
//!
//! The bundle is the workspace's own copy, verified by digest, so its
//! content is what was approved and what the checker judged at install.
//! What can have changed since is the workspace: its tools (their effects,
//! parameters, schemas and gates), its egress allow-list, its skills, its
//! tokenizer and context budget, and what its `[trust]` table relaxes. So
//! loading judges the bundle, as granted ([`as_granted`]), under the
//! policy as it is now ([`judge`]), with the same judgements the checker
//! makes of a manifest ([`contrib_core::policy`]):
//!
//! - authority: each contributor's placement and priority within what the
//!   authority granted may claim;
//! - calls and loads: the tool is the workspace's, a tool that writes runs
//!   only where the workspace opted it in or relaxed the rule, every host
//!   its arguments carry is allowed, the arguments fit the parameters;
//! - skills: each requirement met, each operation loaded one the skill
//!   has;
//! - budgets: what each contributor adds within its budget, measured with
//!   the workspace's tokenizer and costs, and what the plugin puts before
//!   every conversation within the workspace's share;
//! - relaxations: what the lock recorded as relaxed for the text's own
//!   lints (hidden characters, override attempts, external prefaces) is
//!   still relaxed by the workspace's `[trust]` table;
//! - permissions: the bundle's own claims do not say less than the
//!   workspace's tools make of it.
//!
//! The language's rules are not judged again: the content cannot have
//! changed, and it met them when it was approved.

use crate::bundle::diff::{self, Class};
use crate::bundle::{Bundle, Permissions};
use crate::codes::{
    self, EAGER_RUN_GATED, EAGER_RUN_WRITES, EGRESS_NOT_ALLOWED, INVALID_BUNDLE,
    INVALID_TOOL_ARGUMENTS, OVER_BUDGET, OWNER_CANNOT_PLACE, PERMISSIONS_MISMATCH,
    PRIORITY_ABOVE_OWNER, SYSTEM_PROMPT_OVER_BUDGET, UNKNOWN_OPERATION, UNKNOWN_TOOL,
    UNSATISFIED_REQUIREMENT,
};
use crate::config::Config;
use crate::diagnostic::{Rule, Severity};
use crate::ir::{framing_for, Owner, Value};
use contrib_core::policy::authority::{cannot_place, narrower, priority_above};
use contrib_core::policy::call::{self, Call, Egress};
use contrib_core::policy::{budget, skills};

use super::lock::Relaxed;
use super::policy::{relaxes, still_relaxes};

/// One thing the policy finds in a bundle it loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: &'static Rule,
    pub severity: Severity,
    /// The contributor it is about; `None` for the plugin as a whole.
    pub contributor: Option<String>,
    /// In the words the checker uses for the same finding.
    pub reason: String,
}

impl Finding {
    fn new(rule: &'static Rule, contributor: Option<&str>, reason: impl ToString) -> Finding {
        Finding {
            rule,
            severity: rule.default_level.severity().unwrap_or(Severity::Warning),
            contributor: contributor.map(str::to_string),
            reason: reason.to_string(),
        }
    }

    fn warning(self) -> Finding {
        Finding {
            severity: Severity::Warning,
            ..self
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The bundle as this workspace runs it: each contributor's owner narrowed
/// to the authority `granted` (and, for a kind whose priority is its
/// owner's, that priority and its framing with it), measured with the
/// workspace's tokenizer and costs, and the permissions those the
/// workspace's own tools make of it.
/// Its digest is still the one approved, so records name what was
/// approved.
pub fn as_granted(bundle: &Bundle, granted: Owner, config: &Config) -> Bundle {
    let mut granted_bundle = bundle.clone();
    granted_bundle.tokenizer = config.tokenizer;
    for contributor in &mut granted_bundle.contributors {
        contributor.owner = narrower(contributor.owner, granted);
        if !contributor.kind.spec().has_priority {
            contributor.priority = contributor.owner.highest_priority();
            contributor.framing = framing_for(&bundle.plugin, contributor.priority);
        }
        contributor.measured_tokens = contributor.measure(config).tokens();
    }
    granted_bundle.permissions = Permissions::of(&granted_bundle.contributors, config);
    granted_bundle
}

/// Everything the policy in `config` finds in `granted` (what
/// [`as_granted`] made of `bundle`), less what the lock recorded as
/// relaxed (`recorded`) and the workspace still relaxes, in the order of
/// its contributors.
pub fn judge(
    bundle: &Bundle,
    granted: &Bundle,
    config: &Config,
    recorded: &[Relaxed],
) -> Vec<Finding> {
    let plugin = granted.plugin.as_str();
    let mut findings = Vec::new();
    findings.extend(requirements(granted, config));
    for contributor in &granted.contributors {
        let id = contributor.id.as_str();
        findings.extend(authority(contributor));
        if let Some(bundled) = &contributor.call {
            let arguments: Vec<(&str, &Value)> = bundled.arguments();
            let call = Call {
                contributor: id,
                tool: &bundled.tool,
                arguments: &arguments,
            };
            findings.extend(calls(config, &call));
        }
        for tool in &contributor.tools {
            findings.extend(
                call::unknown_tool(config, tool)
                    .map(|unknown| Finding::new(&UNKNOWN_TOOL, Some(id), unknown)),
            );
        }
        if let Some(load) = &contributor.operations {
            for operation in &load.operations {
                findings.extend(
                    skills::unknown_operation(config, &load.skill, operation)
                        .map(|unknown| Finding::new(&UNKNOWN_OPERATION, Some(id), unknown)),
                );
            }
        }
        let measure = contributor.measure(config);
        findings.extend(
            budget::over_budget(id, contributor.budget, &measure)
                .map(|over| Finding::new(&OVER_BUDGET, Some(id), over)),
        );
    }
    findings.extend(
        budget::system_prompt_over(granted.kept_share(), config)
            .map(|over| Finding::new(&SYSTEM_PROMPT_OVER_BUDGET, None, over)),
    );
    findings.retain(|finding| !relaxed(config, plugin, recorded, finding));
    findings.extend(revoked(config, plugin, recorded));
    findings.extend(understated(bundle, granted, config));
    findings
}

/// A contributor's placement and priority under the authority it was
/// granted. A kind whose priority is fixed by the table is not judged on
/// it.
fn authority(contributor: &crate::bundle::BundledContributor) -> Vec<Finding> {
    let id = contributor.id.as_str();
    let mut found = Vec::new();
    if let Some(cannot) = cannot_place(id, contributor.owner, contributor.placement) {
        found.push(Finding::new(&OWNER_CANNOT_PLACE, Some(id), cannot));
    }
    if contributor.kind.spec().has_priority {
        if let Some(above) = priority_above(id, contributor.owner, contributor.priority) {
            found.push(Finding::new(&PRIORITY_ABOVE_OWNER, Some(id), above));
        }
    }
    found
}

/// What the policy makes of one call made with nobody asking.
fn calls(config: &Config, call: &Call<'_>) -> Vec<Finding> {
    let id = Some(call.contributor);
    let Some(unknown) = call::unknown_tool(config, call.tool) else {
        let mut found = Vec::new();
        if let Some(writes) = call::writes(config, call) {
            let finding = Finding::new(&EAGER_RUN_WRITES, id, &writes);
            found.push(if writes.opted_in {
                finding.warning()
            } else {
                finding
            });
        }
        for egress in call::egress(config, call) {
            match &egress {
                Egress::Unprovable { why, .. } if !why.from_variable => {}
                _ => found.push(Finding::new(&EGRESS_NOT_ALLOWED, id, egress)),
            }
        }
        for argument in call::arguments(config, call) {
            found.push(Finding::new(&INVALID_TOOL_ARGUMENTS, id, argument));
        }
        if let Some(gated) = call::gated(config, call) {
            found.push(Finding::new(&EAGER_RUN_GATED, id, gated));
        }
        return found;
    };
    vec![Finding::new(&UNKNOWN_TOOL, id, unknown)]
}

/// Each skill the plugin requires, at a version the workspace has.
fn requirements(bundle: &Bundle, config: &Config) -> Vec<Finding> {
    let mut found = Vec::new();
    for (skill, wanted) in &bundle.requires {
        match semver::VersionReq::parse(wanted) {
            Ok(wanted) => found.extend(
                skills::unsatisfied(config, skill, &wanted)
                    .map(|unsatisfied| Finding::new(&UNSATISFIED_REQUIREMENT, None, unsatisfied)),
            ),
            Err(_) => found.push(Finding::new(
                &INVALID_BUNDLE,
                None,
                format!("its requirement of `{skill}` is `{wanted}`, which is not a version requirement"),
            )),
        }
    }
    found
}

/// Whether the lock recorded `finding` relaxed and the workspace still
/// relaxes it.
fn relaxed(config: &Config, plugin: &str, recorded: &[Relaxed], finding: &Finding) -> bool {
    let Some(contributor) = &finding.contributor else {
        return false;
    };
    codes::is_relaxable(finding.rule)
        && relaxes(config, plugin, recorded, contributor, finding.rule.name)
}

/// The relaxations the lock recorded for the text's own lints (judged at
/// install, on text that cannot have changed) that the workspace no
/// longer makes.
fn revoked(config: &Config, plugin: &str, recorded: &[Relaxed]) -> Vec<Finding> {
    recorded
        .iter()
        .filter(|relaxed| codes::PROTECTIVE_LINTS.iter().any(|rule| rule.name == relaxed.rule))
        .filter(|relaxed| !judged_again(&relaxed.rule))
        .filter(|relaxed| !still_relaxes(config, plugin, relaxed))
        .filter_map(|relaxed| {
            let rule = codes::find(&relaxed.rule)?;
            Some(Finding::new(
                rule,
                Some(&relaxed.contributor),
                format!(
                    "it was approved with `{}` relaxed for `{}` ({}), and this workspace's `contrib.toml` no longer relaxes it",
                    relaxed.rule, relaxed.contributor, relaxed.reason
                ),
            ))
        })
        .collect()
}

/// Whether loading judges `rule` itself, rather than trusting the record
/// of what was relaxed for it.
fn judged_again(rule: &str) -> bool {
    [&EAGER_RUN_GATED, &EAGER_RUN_WRITES, &EGRESS_NOT_ALLOWED]
        .iter()
        .any(|judged| judged.name == rule)
}

/// Where the bundle's own `permissions` say less than the workspace's
/// tools make of it (a run of a tool the workspace does not have is
/// `unknown-tool`'s to report).
fn understated(bundle: &Bundle, granted: &Bundle, config: &Config) -> Vec<Finding> {
    let known = |permissions: &Permissions| Permissions {
        tools_run: permissions
            .tools_run
            .iter()
            .filter(|run| config.tools.contains_key(&run.tool))
            .cloned()
            .collect(),
        ..permissions.clone()
    };
    diff::permissions(&known(&bundle.permissions), &known(&granted.permissions))
        .into_iter()
        .filter(|change| change.class == Class::NeedsApproval)
        .map(|change| {
            let what = change.message.replacen("newly ", "", 1).replace(" now ", " ");
            Finding::new(
                &PERMISSIONS_MISMATCH,
                None,
                format!("the bundle's permissions understate what it asks for under this workspace's tools: {what}"),
            )
        })
        .collect()
}

//! IR → bundle.

use std::collections::BTreeMap;

use super::usage::{self, Candidate, Item, Usage};
use super::{
    AuthorWaivers, Bundle, BundledActivation, BundledCall, BundledChoice, BundledCondition,
    BundledContributor, NoCanonicalForm, Permissions, Segment, SkillOperations, Waiver, FORMAT,
};
use crate::check::suppress::Waived;
use crate::config::Config;
use crate::ir::{
    framing, Activation, Choose, Contributor, ContributorBody, Plugin, SkillLoad, Template,
    TemplatePart,
};

/// Usage files read for the eager loads that choose from usage, by
/// contributor id.
pub type Usages = BTreeMap<String, Usage>;

/// The bundle of a plugin that checked without errors, with its digest,
/// recording no waivers; an error when it has no canonical form to take a
/// digest of. An eager load that chooses from usage loads nothing here;
/// [`build_with_usage`] is the build for those.
pub fn build(plugin: &Plugin, config: &Config) -> Result<Bundle, NoCanonicalForm> {
    build_with_usage(plugin, config, &[], &Usages::new())
}

/// The bundle of a plugin that checked without errors, recording what its
/// author waived: the suppressions that silenced a diagnostic (`waived`,
/// from the analysis) and the `[lints]` levels `config` sets.
pub fn build_with_waivers(
    plugin: &Plugin,
    config: &Config,
    waived: &[Waived],
) -> Result<Bundle, NoCanonicalForm> {
    build_with_usage(plugin, config, waived, &Usages::new())
}

/// The bundle, with its waivers, and with each eager load that chooses
/// from usage choosing from `usages`: what it loads is frozen in the
/// bundle with the usage file's digest.
pub fn build_with_usage(
    plugin: &Plugin,
    config: &Config,
    waived: &[Waived],
    usages: &Usages,
) -> Result<Bundle, NoCanonicalForm> {
    let mut contributors: Vec<&Contributor> = plugin.contributors.iter().collect();
    contributors.sort_by(|a, b| {
        (a.placement.value, a.priority.value, &a.id.value).cmp(&(
            b.placement.value,
            b.priority.value,
            &b.id.value,
        ))
    });
    let contributors: Vec<BundledContributor> = contributors
        .into_iter()
        .map(|contributor| bundle_contributor(plugin, contributor, config, usages))
        .collect();
    let mut bundle = Bundle {
        format: FORMAT,
        plugin: plugin.name.value.to_string(),
        version: plugin.version.value.clone(),
        requested_owner: plugin.owner.value,
        summary: plugin.summary.as_ref().map(|summary| summary.value.clone()),
        requires: plugin
            .requires
            .iter()
            .map(|requirement| {
                (
                    requirement.skill.value.clone(),
                    requirement.version.value.to_string(),
                )
            })
            .collect(),
        tokenizer: config.tokenizer,
        permissions: Permissions::of(&contributors, config),
        contributors,
        author_waivers: waivers(plugin, config, waived),
        digest: None,
    };
    bundle.digest = Some(super::digest_of(&bundle)?);
    Ok(bundle)
}

fn bundle_contributor(
    plugin: &Plugin,
    contributor: &Contributor,
    config: &Config,
    usages: &Usages,
) -> BundledContributor {
    let measured_tokens = crate::check::measure(plugin, contributor, config).tokens();
    let mut bundled = BundledContributor {
        id: contributor.id.value.clone(),
        kind: contributor.kind(),
        owner: contributor.owner.value,
        placement: contributor.placement.value,
        priority: contributor.priority.value,
        reach: contributor.reach.value,
        activation: activation(&contributor.activation.value),
        delivery: contributor.delivery(),
        budget: contributor.budget.value,
        measured_tokens,
        template: contributor.template().map(segments),
        framing: framing(&plugin.name.value, contributor),
        tools: Vec::new(),
        operations: None,
        call: contributor.call().map(|call| BundledCall {
            tool: call.tool.value.clone(),
            arguments: call
                .arguments
                .iter()
                .map(|(key, argument)| (key.clone(), argument.value.value.clone()))
                .collect::<BTreeMap<_, _>>(),
        }),
        condition: None,
        source: None,
        origin: None,
        heading: None,
        says: Vec::new(),
        choice: None,
    };
    match &contributor.body {
        ContributorBody::EagerLoad {
            tools,
            skill,
            choose: None,
        } => {
            bundled.tools = tools.iter().map(|tool| tool.value.clone()).collect();
            bundled.operations = skill.as_ref().map(|load| SkillOperations {
                skill: load.skill.value.clone(),
                operations: load
                    .operations
                    .iter()
                    .map(|operation| operation.value.clone())
                    .collect(),
            });
        }
        ContributorBody::EagerLoad {
            tools,
            skill,
            choose: Some(choose),
        } => {
            let empty = Usage::parse("").unwrap_or_default();
            let usage = usages.get(&contributor.id.value).unwrap_or(&empty);
            chosen(&mut bundled, tools, skill.as_ref(), choose, usage, config);
        }
        ContributorBody::SystemMessage { condition, .. } => {
            bundled.condition = Some(BundledCondition {
                kind: condition.kind,
                idle_seconds: condition
                    .idle_over
                    .as_ref()
                    .map(|duration| duration.value.seconds),
                skill: condition.skill.as_ref().map(|skill| skill.value.clone()),
            });
        }
        ContributorBody::Preface { source, origin, .. } => {
            bundled.source = Some(source.value);
            bundled.origin = Some(origin.value.clone());
        }
        ContributorBody::Fact { heading, says } => {
            bundled.heading = heading.as_ref().map(|heading| heading.value.clone());
            bundled.says = says.iter().map(|section| section.value).collect();
        }
        ContributorBody::Text { .. } | ContributorBody::EagerRun { .. } => {}
    }
    bundled
}

/// An eager load that chooses from usage: its candidates weighed with the
/// workspace's declared costs, what was chosen loaded, and the choice
/// recorded with the usage file's digest.
fn chosen(
    bundled: &mut BundledContributor,
    tools: &[crate::source::Spanned<String>],
    skill: Option<&SkillLoad>,
    choose: &Choose,
    usage: &Usage,
    config: &Config,
) {
    let skill_config = skill.and_then(|load| config.skills.get(&load.skill.value));
    let mut candidates: Vec<Candidate> = tools
        .iter()
        .map(|tool| Candidate {
            item: Item::Tool {
                tool: tool.value.clone(),
            },
            tokens: config
                .tools
                .get(&tool.value)
                .map_or(0, |tool| tool.schema_tokens),
        })
        .collect();
    if let Some(load) = skill {
        candidates.extend(load.operations.iter().map(|operation| {
            Candidate {
                item: Item::Operation {
                    skill: load.skill.value.clone(),
                    operation: operation.value.clone(),
                },
                tokens: skill_config
                    .and_then(|skill| skill.operations.get(&operation.value))
                    .copied()
                    .unwrap_or(0),
            }
        }));
    }
    let manifest = skill_config.map_or(0, |skill| skill.manifest_tokens);
    let choice = usage::choose(&candidates, manifest, bundled.budget, usage);
    let mut operations = Vec::new();
    for item in &choice.chosen {
        match item {
            Item::Tool { tool } => bundled.tools.push(tool.clone()),
            Item::Operation { operation, .. } => operations.push(operation.clone()),
        }
    }
    bundled.operations = skill
        .filter(|_| !operations.is_empty())
        .map(|load| SkillOperations {
            skill: load.skill.value.clone(),
            operations,
        });
    bundled.measured_tokens = choice.tokens;
    bundled.choice = Some(BundledChoice {
        usage: choose.usage.value.clone(),
        usage_digest: usage.digest.clone(),
        conversations: usage.conversations,
        turns: usage.turns,
        candidates: choice.considered,
    });
}

/// The author's waivers, each suppression named by the contributor it
/// covers, sorted so that the bundle does not depend on comment order.
fn waivers(plugin: &Plugin, config: &Config, waived: &[Waived]) -> AuthorWaivers {
    let mut suppressions: Vec<Waiver> = waived
        .iter()
        .map(|waived| Waiver {
            rule: waived.rule.name.to_string(),
            contributor: waived.scope.and_then(|scope| {
                plugin
                    .contributors
                    .iter()
                    .find(|contributor| {
                        contributor.span.contains(scope.start)
                            || contributor.span.start == scope.start
                    })
                    .map(|contributor| contributor.id.value.clone())
            }),
            reason: waived.reason.clone(),
        })
        .collect();
    suppressions.sort();
    suppressions.dedup();
    let lints = config
        .lints
        .iter()
        .filter_map(|(code, level)| {
            crate::codes::find(code).map(|rule| (rule.name.to_string(), *level))
        })
        .collect();
    AuthorWaivers {
        suppressions,
        lints,
    }
}

fn activation(activation: &Activation) -> Option<BundledActivation> {
    let name = |name: &crate::source::Spanned<String>| name.value.clone();
    Some(match activation {
        Activation::Always => return None,
        Activation::Command(command) => BundledActivation::Command {
            name: name(command),
        },
        Activation::Skill(skill) => BundledActivation::Skill { name: name(skill) },
        Activation::Subagent(subagent) => BundledActivation::Subagent {
            name: name(subagent),
        },
        Activation::Files(globs) => BundledActivation::Files {
            globs: globs.iter().map(name).collect(),
        },
        Activation::Request(description) => BundledActivation::Request {
            description: name(description),
        },
    })
}

fn segments(template: &Template) -> Vec<Segment> {
    template
        .parts
        .iter()
        .map(|part| match part {
            TemplatePart::Literal(text) => Segment::Text { text: text.clone() },
            TemplatePart::Variable(used) => Segment::Variable {
                variable: used.variable.name.to_string(),
            },
        })
        .collect()
}

//! A manifest's contributor as the policy measures it
//! ([`contrib_core::policy::measure`], where the rules of measuring are):
//! its body's literal runs and variables, its loads, its call or its
//! sections' headings, behind its framing.

use crate::config::Config;
use crate::ir::{framing, Call, Contributor, ContributorBody, Plugin, Value};
use contrib_core::policy::{Adds, Measure};

/// What `contributor` of `plugin` adds, measured under `config`.
pub fn measure(plugin: &Plugin, contributor: &Contributor, config: &Config) -> Measure {
    let framing = framing(&plugin.name.value, contributor);
    let adds = match &contributor.body {
        ContributorBody::Text { body } | ContributorBody::SystemMessage { body, .. } => {
            Adds::Text {
                literals: body.literals().collect(),
                variables: body.variables().map(|used| used.variable).collect(),
            }
        }
        ContributorBody::EagerLoad {
            tools,
            skill,
            choose,
        } => Adds::Loads {
            tools: tools.iter().map(|tool| tool.value.as_str()).collect(),
            skill: skill.as_ref().map(|load| {
                let operations = load.operations.iter().map(|op| op.value.as_str());
                (load.skill.value.as_str(), operations.collect())
            }),
            chosen: choose.is_some(),
        },
        ContributorBody::EagerRun { call } | ContributorBody::Preface { call, .. } => Adds::Call {
            tool: &call.tool.value,
            arguments: arguments_of(call),
        },
        ContributorBody::Fact { heading, says } => Adds::Facts {
            heading: heading.as_ref().map(|heading| heading.value.as_str()),
            says: says.iter().map(|item| item.value).collect(),
        },
    };
    Measure::new(framing, adds, config)
}

/// A call's arguments, in the order written, as the policy reads them.
pub fn arguments_of(call: &Call) -> Vec<(&str, &Value)> {
    call.arguments
        .iter()
        .map(|(name, argument)| (name.as_str(), &argument.value.value))
        .collect()
}

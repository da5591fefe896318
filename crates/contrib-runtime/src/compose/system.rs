//! Composing the kept system prompt: each contributor's text rendered
//! for the session and put in the agent or the person part, the
//! session's skills after them.

use super::{count, Composer};
use crate::gate::Gate;
use crate::options::PersonPart;
use crate::record::{Contribution, KeptSkill, Named, OpeningItem, OpeningKind, SystemPrompt};
use crate::render::{render, Values};
use crate::time::Timestamp;
use contrib_bundle::BundledActivation;
use contrib_core::vocabulary::{Delivery, Placement, Reach};

impl<G: Gate> Composer<'_, G> {
    /// Composes the kept system prompt from the session as it is at `at`.
    pub(super) fn compose(&mut self, at: Timestamp) {
        self.state.progress.compositions += 1;
        let values = Values::at(&self.session, at);
        let has_person = self.session.person.is_some();
        let mut agent = String::new();
        let mut person = String::new();
        let mut contributions = Vec::new();
        let mut person_contributions = Vec::new();
        let push = |part: &mut String, list: &mut Vec<Contribution>, contribution: Contribution| {
            part.push_str(&contribution.text);
            part.push_str("\n\n");
            list.push(contribution);
        };
        for entry in &self.versions.entries {
            let contributor = entry.contributor;
            // Reach is decided here for what is kept: `with-person` text is
            // left out of conversations composed with no person in them.
            if contributor.reach != Reach::EveryTurn && !has_person {
                continue;
            }
            let text = match (&contributor.activation, contributor.delivery) {
                (None, Delivery::SystemPrompt) => {
                    match render(entry.bundle, contributor, &values) {
                        Ok(rendered) => {
                            self.state.pending.withheld(entry, rendered.withheld);
                            rendered.text
                        }
                        Err(reason) => {
                            self.state
                                .pending
                                .refusals
                                .push(entry.refuse(reason.to_string()));
                            continue;
                        }
                    }
                }
                (Some(BundledActivation::Request { description }), _)
                    if contributor.placement.is_system_prompt() =>
                {
                    contrib_core::vocabulary::on_request_listing(
                        &entry.name(),
                        description,
                        contributor.framing.as_deref(),
                    )
                }
                _ => continue,
            };
            let (part, list) = if contributor.placement == Placement::Person {
                (&mut person, &mut person_contributions)
            } else {
                (&mut agent, &mut contributions)
            };
            push(
                part,
                list,
                Contribution {
                    contributor: entry.name(),
                    placement: contributor.placement,
                    text,
                },
            );
        }
        let mut skills = Vec::new();
        for (slug, skill) in &self.session.skills {
            let Some(body) = &skill.body else { continue };
            let name = skill.display_name(slug).to_string();
            push(
                &mut agent,
                &mut contributions,
                Contribution {
                    contributor: format!("skill:{slug}@{}", skill.version),
                    placement: Placement::Agent,
                    text: format!("## {name}\n{body}"),
                },
            );
            skills.push(KeptSkill {
                skill: slug.clone(),
                name,
                version: skill.version.clone(),
            });
        }
        contributions.extend(person_contributions);
        self.set_system(agent, &person, contributions, skills);
    }

    /// The kept system prompt from its parts: the agent part, then the
    /// person part, which goes in the system field or, when the host keeps
    /// person values out of it, first in the opening.
    pub(super) fn set_system(
        &mut self,
        agent: String,
        person: &str,
        contributions: Vec<Contribution>,
        skills: Vec<KeptSkill>,
    ) {
        let text = match self.options.person_part {
            PersonPart::SystemPrompt => agent.clone() + person,
            PersonPart::Opening => agent.clone(),
        };
        self.prompt
            .opening
            .retain(|item| item.kind != OpeningKind::PersonPart);
        if self.options.person_part == PersonPart::Opening && !person.is_empty() {
            let person = person.trim_end().to_string();
            self.prompt.opening.insert(
                0,
                OpeningItem {
                    contributor: "person part".to_string(),
                    kind: OpeningKind::PersonPart,
                    tokens: count(&person),
                    text: person,
                    label: Some("the person's part, kept out of the system field".into()),
                    call: None,
                },
            );
        }
        self.prompt.system = SystemPrompt {
            agent_end: agent.len(),
            text,
            contributions,
            skills,
        };
    }
}

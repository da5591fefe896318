//! Filling templates with a session's values and holding each result to
//! its budget.
//!
//! A budget is what a person approved, so a contribution that renders
//! larger is refused whole and the refusal reported: cutting it would put
//! words in front of the model that nobody wrote. The checker measured each
//! variable at its bound in tokens, so a value over its bound is what the
//! runtime refuses, by name, not the text around it.

use std::fmt;

use super::session::Session;
use super::time::{duration_in_words, Timestamp};
use contrib_bundle::{Bundle, BundledContributor, Segment};
use contrib_core::vocabulary::variables;

/// The values a template may be filled with at one moment.
#[derive(Debug, Clone)]
pub(crate) struct Values<'s> {
    pub session: &'s Session,
    /// The moment being composed for, in the person's offset.
    pub at: Timestamp,
    /// `{idle}`: seconds since the last turn, for an `idle` message.
    pub idle_seconds: Option<u64>,
    /// `{skill.version}`, for a `skill-updated` message.
    pub skill_version: Option<String>,
}

impl<'s> Values<'s> {
    pub(super) fn at(session: &'s Session, at: Timestamp) -> Values<'s> {
        Values {
            session,
            at: session.local(at),
            idle_seconds: None,
            skill_version: None,
        }
    }

    /// A variable's value, or why it has none here.
    fn get(&self, name: &str) -> Result<String, Unrendered> {
        let variable = name.to_string();
        let person = |field: fn(&super::session::Person) -> &str| {
            self.session
                .person
                .as_ref()
                .map(|person| field(person).to_string())
                .ok_or_else(|| Unrendered::NoPerson {
                    variable: variable.clone(),
                })
        };
        let unavailable = || Unrendered::OutsideCondition {
            variable: variable.clone(),
        };
        match name {
            "agent.name" => Ok(self.session.agent.name.clone()),
            "person.name" => person(|person| &person.name),
            "person.locale" => person(|person| &person.locale),
            "person.timezone" => person(|person| &person.timezone),
            "conversation.started-at" => Ok(self.session.started_at_local().to_string()),
            "model.name" => Ok(self.session.model.name.clone()),
            "now" => Ok(self.at.to_string()),
            "date" => Ok(self.at.date().to_string()),
            "weekday" => Ok(self.at.weekday().to_string()),
            "idle" => self
                .idle_seconds
                .map(duration_in_words)
                .ok_or_else(unavailable),
            "skill.version" => self.skill_version.clone().ok_or_else(unavailable),
            _ => Err(Unrendered::UnknownVariable { variable }),
        }
    }
}

/// Why a contribution's text was refused whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unrendered {
    /// A person's variable in a conversation with no person.
    NoPerson { variable: String },
    /// A variable only its condition gives a value, used outside it.
    OutsideCondition { variable: String },
    /// A variable this runtime does not fill.
    UnknownVariable { variable: String },
    /// The host's reader has no text for an operation a skill load reads.
    NoOperationText {
        skill: String,
        version: semver::Version,
        operation: String,
    },
    /// `what` ("its text", "the result", …) has more tokens than the budget.
    OverBudget {
        what: String,
        tokens: usize,
        budget: u64,
    },
}

impl fmt::Display for Unrendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unrendered::NoPerson { variable } => write!(
                f,
                "there is no person in this conversation to fill `{{{variable}}}`"
            ),
            Unrendered::OutsideCondition { variable } => {
                write!(f, "`{{{variable}}}` has no value outside its condition")
            }
            Unrendered::UnknownVariable { variable } => {
                write!(f, "`{{{variable}}}` is not a variable this runtime knows")
            }
            Unrendered::NoOperationText {
                skill,
                version,
                operation,
            } => write!(
                f,
                "the host has no text for operation `{operation}` of skill `{skill}` {version}, so nothing of it was loaded"
            ),
            Unrendered::OverBudget {
                what,
                tokens,
                budget,
            } => write!(
                f,
                "{what} is {tokens} tokens, over its budget of {budget}; it was refused, not cut"
            ),
        }
    }
}

impl std::error::Error for Unrendered {}

// Refusals are recorded as their reason.

/// A contribution's text, and the values withheld from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rendered {
    pub text: String,
    /// Why each withheld value was withheld, naming its variable.
    pub withheld: Vec<String>,
}

/// A contribution's text: its framing, if it has one, then its body with
/// every variable filled; refused when a variable has no value here or the
/// text is over the contributor's budget.
///
/// A value the host supplies over its variable's bound in tokens is not
/// put in: the variable is replaced by a short marker naming it, and the
/// reason is returned to be recorded. The checker budgeted each variable at
/// its bound, so the author's text still fits; refusing the whole text for
/// a name somebody typed too long would punish the author for the host.
pub(crate) fn render(
    bundle: &Bundle,
    contributor: &BundledContributor,
    values: &Values<'_>,
) -> Result<Rendered, Unrendered> {
    let mut body = String::new();
    let mut withheld = Vec::new();
    for segment in contributor.template.iter().flatten() {
        match segment {
            Segment::Text { text } => body.push_str(text),
            Segment::Variable { variable } => {
                let value = values.get(variable)?;
                match variables::find(variable) {
                    Some(known) => {
                        let tokens = bundle.tokenizer.count(&value) as u64;
                        if tokens > known.max_tokens {
                            withheld.push(format!(
                                "`{{{variable}}}` is {tokens} tokens, over its bound of {}, so it was withheld",
                                known.max_tokens
                            ));
                            body.push_str(&withheld_marker(variable));
                        } else {
                            body.push_str(&value);
                        }
                    }
                    None => body.push_str(&value),
                }
            }
        }
    }
    // The author's words may not begin a line as the platform does.
    let body = crate::envelope::unmarked(&body).into_owned();
    let text = match &contributor.framing {
        Some(framing) => format!("{framing}\n{body}"),
        None => body,
    };
    within_budget(bundle, contributor, &text, "its text")?;
    Ok(Rendered { text, withheld })
}

/// What stands in for a withheld value: short enough to fit any bound.
pub(crate) fn withheld_marker(variable: &str) -> String {
    format!("[{variable} withheld]")
}

/// Refuses `text` when it has more tokens than the contributor's budget,
/// counted with the bundle's tokenizer. `what` names the text in the
/// refusal: "its text", "the result", "the retrieved content".
pub(crate) fn within_budget(
    bundle: &Bundle,
    contributor: &BundledContributor,
    text: &str,
    what: &str,
) -> Result<(), Unrendered> {
    let limit = usize::try_from(contributor.budget).unwrap_or(usize::MAX);
    if bundle.tokenizer.fits(text, limit) {
        return Ok(());
    }
    Err(Unrendered::OverBudget {
        what: what.to_string(),
        tokens: bundle.tokenizer.count(text),
        budget: contributor.budget,
    })
}

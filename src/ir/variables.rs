//! The platform's template variables: what each varies by, the longest
//! value it may take (what budgets are measured with), and when it exists.

use super::vocabulary::{ConditionKind, Placement, Variance};

/// When a variable has a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    Always,
    /// Only in a body whose condition is of this kind.
    When(ConditionKind),
}

#[derive(Debug, PartialEq, Eq)]
pub struct Variable {
    /// As written between the braces: `person.name`.
    pub name: &'static str,
    pub variance: Variance,
    /// The longest value, in characters. Budgets count the variable at this
    /// length, and the runtime refuses a longer value.
    pub worst_case_chars: usize,
    pub available: Availability,
    pub description: &'static str,
    /// A value of the worst-case length, made of characters that tokenize
    /// like the real thing, used to measure budgets.
    pub sample: &'static str,
}

impl Variable {
    /// Whether the variable holds a time, which is what most often lands in
    /// the system prompt by mistake.
    pub fn is_time(&self) -> bool {
        matches!(
            self.name,
            "now" | "date" | "weekday" | "conversation.started-at"
        )
    }
}

pub static VARIABLES: &[Variable] = &[
    Variable {
        name: "agent.name",
        variance: Placement::Agent,
        worst_case_chars: 64,
        available: Availability::Always,
        description: "the agent's display name",
        sample: "Xq7 Vbk Lwp Zrt Hmc Jdn Fgs Kpl Wqx Ybr Ncv Tzm Plk Dfh Rjq Gwzy",
    },
    Variable {
        name: "person.name",
        variance: Placement::Person,
        worst_case_chars: 64,
        available: Availability::Always,
        description: "the person's name, as they gave it",
        sample: "Xq7 Vbk Lwp Zrt Hmc Jdn Fgs Kpl Wqx Ybr Ncv Tzm Plk Dfh Rjq Gwzy",
    },
    Variable {
        name: "person.locale",
        variance: Placement::Person,
        worst_case_chars: 34,
        available: Availability::Always,
        description: "the person's locale, a BCP 47 tag such as `en-GB`",
        sample: "zh-Hant-TW-u-ca-chinese-nu-hanidec",
    },
    Variable {
        name: "person.timezone",
        variance: Placement::Person,
        worst_case_chars: 32,
        available: Availability::Always,
        description: "the person's IANA time zone, such as `Europe/London`",
        sample: "America/Argentina/ComodRivadavia",
    },
    Variable {
        name: "conversation.started-at",
        variance: Placement::Conversation,
        worst_case_chars: 25,
        available: Availability::Always,
        description: "when the conversation began, RFC 3339 with offset",
        sample: "2026-11-29T15:04:05+05:45",
    },
    Variable {
        name: "model.name",
        variance: Placement::Conversation,
        worst_case_chars: 64,
        available: Availability::Always,
        description: "the model answering this conversation",
        sample: "provider-model-family-4-5-large-preview-2026-11-29-experimental2",
    },
    Variable {
        name: "now",
        variance: Placement::Message,
        worst_case_chars: 25,
        available: Availability::Always,
        description: "the time of this turn, RFC 3339 with offset",
        sample: "2026-11-29T15:04:05+05:45",
    },
    Variable {
        name: "date",
        variance: Placement::Message,
        worst_case_chars: 10,
        available: Availability::Always,
        description: "the date of this turn in the person's time zone, `YYYY-MM-DD`",
        sample: "2026-11-29",
    },
    Variable {
        name: "weekday",
        variance: Placement::Message,
        worst_case_chars: 9,
        available: Availability::Always,
        description: "the day of the week of this turn, in English",
        sample: "Wednesday",
    },
    Variable {
        name: "idle",
        variance: Placement::Message,
        worst_case_chars: 32,
        available: Availability::When(ConditionKind::Idle),
        description: "how long since the last turn, in words such as `4 hours`",
        sample: "365 days, 23 hours and 9 minutes",
    },
    Variable {
        name: "skill.version",
        variance: Placement::Message,
        worst_case_chars: 32,
        available: Availability::When(ConditionKind::SkillUpdated),
        description: "the new version of the updated skill",
        sample: "10.20.30-beta.4+build.2026112915",
    },
];

/// Looks a variable up by the name written between its braces.
pub fn find(name: &str) -> Option<&'static Variable> {
    VARIABLES.iter().find(|variable| variable.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_exactly_the_worst_case_length() {
        for variable in VARIABLES {
            assert_eq!(
                variable.sample.chars().count(),
                variable.worst_case_chars,
                "{}",
                variable.name
            );
        }
    }
}

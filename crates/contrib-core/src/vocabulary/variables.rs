//! The platform's template variables: what each varies by, the most tokens
//! its value may take, and when it exists.
//!
//! Bounds are in tokens of the workspace's tokenizer, not characters: a
//! 64-character name is 63 tokens in Japanese and about 190 in emoji, so a
//! bound in characters says nothing about a budget. The checker budgets each
//! variable at its bound (plus [`BOUNDARY_TOKENS`] for where it meets the
//! text around it); the runtime refuses a value over its bound, names the
//! variable, and withholds that value rather than the author's whole text.
//! Values the platform makes itself (times, dates, durations) always fit,
//! which a test checks over their whole range.

use super::{ConditionKind, Placement, Variance};

/// The tokens a variable may add where it meets the literal text around it,
/// beyond the tokens of its value alone: joining two runs of text can split
/// or merge the pieces at the seam. A property test over real text keeps
/// this sound.
pub const BOUNDARY_TOKENS: u64 = 2;

/// When a variable has a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    Always,
    /// Only in a body whose condition is of this kind.
    When(ConditionKind),
}

/// Who gives a variable its value, which decides whether the runtime must
/// check it against its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Supplier {
    /// The host, from what people and operators typed: checked every time.
    Host,
    /// The platform, in a fixed format whose every value fits.
    Platform,
}

#[derive(Debug, PartialEq, Eq)]
pub struct Variable {
    /// As written between the braces: `person.name`.
    pub name: &'static str,
    pub variance: Variance,
    /// The most tokens its value may take, in either tokenizer. Budgets
    /// count the variable at this, and the runtime refuses a larger value.
    pub max_tokens: u64,
    pub supplier: Supplier,
    pub available: Availability,
    pub description: &'static str,
    /// A realistic value, for hover and the reference.
    pub example: &'static str,
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

    /// What one use of the variable may add to a text, at most.
    pub fn budgeted_tokens(&self) -> u64 {
        self.max_tokens + BOUNDARY_TOKENS
    }
}

pub static VARIABLES: &[Variable] = &[
    Variable {
        name: "agent.name",
        variance: Placement::Agent,
        max_tokens: 24,
        supplier: Supplier::Host,
        available: Availability::Always,
        description: "the agent's display name",
        example: "Review Assistant",
    },
    Variable {
        name: "person.name",
        variance: Placement::Person,
        max_tokens: 24,
        supplier: Supplier::Host,
        available: Availability::Always,
        description: "the person's name, as they gave it",
        example: "Sam Okafor",
    },
    Variable {
        name: "person.locale",
        variance: Placement::Person,
        max_tokens: 16,
        supplier: Supplier::Host,
        available: Availability::Always,
        description: "the person's locale, a BCP 47 tag such as `en-GB`",
        example: "en-GB",
    },
    Variable {
        name: "person.timezone",
        variance: Placement::Person,
        max_tokens: 16,
        supplier: Supplier::Host,
        available: Availability::Always,
        description: "the person's IANA time zone, such as `Europe/London`",
        example: "Europe/London",
    },
    Variable {
        name: "conversation.started-at",
        variance: Placement::Conversation,
        max_tokens: 20,
        supplier: Supplier::Platform,
        available: Availability::Always,
        description: "when the conversation began, RFC 3339 with offset",
        example: "2026-03-02T09:00:00+00:00",
    },
    Variable {
        name: "model.name",
        variance: Placement::Conversation,
        max_tokens: 24,
        supplier: Supplier::Host,
        available: Availability::Always,
        description: "the model answering this conversation",
        example: "claude-sonnet-4-5",
    },
    Variable {
        name: "now",
        variance: Placement::Message,
        max_tokens: 20,
        supplier: Supplier::Platform,
        available: Availability::Always,
        description: "the time of this turn, RFC 3339 with offset",
        example: "2026-03-02T14:05:00+00:00",
    },
    Variable {
        name: "date",
        variance: Placement::Message,
        max_tokens: 8,
        supplier: Supplier::Platform,
        available: Availability::Always,
        description: "the date of this turn in the person's time zone, `YYYY-MM-DD`",
        example: "2026-03-03",
    },
    Variable {
        name: "weekday",
        variance: Placement::Message,
        max_tokens: 4,
        supplier: Supplier::Platform,
        available: Availability::Always,
        description: "the day of the week of this turn, in English",
        example: "Tuesday",
    },
    Variable {
        name: "idle",
        variance: Placement::Message,
        max_tokens: 16,
        supplier: Supplier::Platform,
        available: Availability::When(ConditionKind::Idle),
        description: "how long since the last turn, in words such as `4 hours`",
        example: "5 hours and 4 minutes",
    },
    Variable {
        name: "skill.version",
        variance: Placement::Message,
        max_tokens: 16,
        supplier: Supplier::Host,
        available: Availability::When(ConditionKind::SkillUpdated),
        description: "the new version of the updated skill",
        example: "2.4.0",
    },
];

/// Looks a variable up by the name written between its braces.
pub fn find(name: &str) -> Option<&'static Variable> {
    VARIABLES.iter().find(|variable| variable.name == name)
}

//! The table of truth per contributor kind: which settings a kind has,
//! where it may be placed, which turns it may reach, when it may apply,
//! which variables its text may use and where the runtime puts it.
//!
//! Everything that needs to know about a kind reads it from here: lowering
//! (which fields a block accepts and which combinations are errors), the
//! formatter (the order of fields), the language server (completion and
//! hover), bundle permissions, and `docs/language.md`, whose tables a test
//! keeps equal to this one. A combination this table does not allow cannot
//! be written; it is a language error, never a lint.

use super::{ActivationKind, Kind, Placement, Reach, Variance};

/// One field a block may hold.
#[derive(Debug, PartialEq, Eq)]
pub struct FieldSpec {
    pub name: &'static str,
    /// How its value is written: `N tokens`, `[a, b]`.
    pub syntax: &'static str,
    /// What it says, in a sentence (for hover and the reference).
    pub doc: &'static str,
}

/// Every field a contributor may hold, in the canonical order: who and
/// where, then when, then what it claims, then its budget, then what it
/// adds. Each kind takes a subset, in this order.
pub static FIELDS: &[FieldSpec] = &[
    FieldSpec {
        name: "owner",
        syntax: "OWNER",
        doc: "who adds it; at most the plugin's owner, which it defaults to",
    },
    FieldSpec {
        name: "placement",
        syntax: "PLACEMENT",
        doc: "where it goes, from the most widely shared: platform, agent, person, conversation, message",
    },
    FieldSpec {
        name: "priority",
        syntax: "PRIORITY",
        doc: "whose word it carries; at most its owner's highest, which it defaults to",
    },
    FieldSpec {
        name: "reach",
        syntax: "REACH",
        doc: "which turns it reaches: every-turn, with-person or replies",
    },
    FieldSpec {
        name: "applies",
        syntax: "always | on command NAME | on skill NAME | on subagent NAME | to files [\"GLOB\", …] | on request \"DESCRIPTION\"",
        doc: "when it applies: always, or only when a command, skill or subagent is invoked, files matching a glob are in play, or the model asks for it",
    },
    FieldSpec {
        name: "when",
        syntax: "CONDITION",
        doc: "the condition under which the note is sent before a turn",
    },
    FieldSpec {
        name: "source",
        syntax: "SOURCE",
        doc: "how far the retrieved content is trusted: user-authored, system-config or external",
    },
    FieldSpec {
        name: "origin",
        syntax: "\"HOST:SCOPE\"",
        doc: "where the retrieved content comes from, for people reading transcripts",
    },
    FieldSpec {
        name: "heading",
        syntax: "\"TEXT\"",
        doc: "the section's heading, as the model reads it; by default named after what it says",
    },
    FieldSpec {
        name: "budget",
        syntax: "N tokens",
        doc: "the most it may add, measured with the workspace's tokenizer; what a person approves",
    },
    FieldSpec {
        name: "choose",
        syntax: "from usage \"FILE\"",
        doc: "its tools and operations are candidates, and the build loads those the turns in the usage file called most, within the budget",
    },
    FieldSpec {
        name: "body",
        syntax: "\"TEXT\" | \"\"\"TEXT\"\"\"",
        doc: "the text, with `{variables}` the platform fills in",
    },
    FieldSpec {
        name: "tools",
        syntax: "[TOOL, …]",
        doc: "tools loaded before the first turn",
    },
    FieldSpec {
        name: "skill",
        syntax: "NAME operations [OPERATION, …]",
        doc: "a skill's manifest and chosen operations, read before the first turn",
    },
    FieldSpec {
        name: "call",
        syntax: "TOOL { NAME: VALUE, … }",
        doc: "the read-only tool call it makes",
    },
    FieldSpec {
        name: "says",
        syntax: "[SECTION, …]",
        doc: "the session facts it states",
    },
];

/// Looks a field up by name.
pub fn field(name: &str) -> Option<&'static FieldSpec> {
    FIELDS.iter().find(|field| field.name == name)
}

/// Where the runtime puts what a contributor adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Delivery {
    /// In the kept system prompt, in its placement's part: composed when a
    /// conversation starts and again only at compaction.
    SystemPrompt,
    /// Before the first turn tools are advertised and a skill's files are
    /// read: shared by every conversation of the agent.
    Preloaded,
    /// In the conversation's opening, stored before the first prompt.
    Opening,
    /// Before a turn, stored with the conversation from then on.
    StoredNote,
    /// Before a turn, rebuilt every turn and never stored.
    TurnNote,
}

impl Delivery {
    /// Where it is added, after "added to" or the like, for hover.
    pub fn destination(self) -> &'static str {
        match self {
            Delivery::SystemPrompt => "added to the system prompt",
            Delivery::Preloaded => "loaded before the first turn",
            Delivery::Opening => "added to the conversation's opening",
            Delivery::StoredNote => {
                "added before the turn it applies to and kept in the conversation"
            }
            Delivery::TurnNote => "added before each turn it reaches, rebuilt every turn",
        }
    }

    /// In words, for the reference and hover.
    pub fn describe(self) -> &'static str {
        match self {
            Delivery::SystemPrompt => "the kept system prompt, in its placement's part",
            Delivery::Preloaded => "tools advertised and skill operations read before the first turn, in the shared prefix",
            Delivery::Opening => "the conversation's opening, before the first prompt",
            Delivery::StoredNote => "a note before the turn it applies to, kept in the conversation",
            Delivery::TurnNote => "a note before each turn it reaches, rebuilt every turn",
        }
    }
}

/// Which reaches a contributor may name at a placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReachRule {
    /// Not a setting: it happens once, whatever the turn.
    None,
    /// `every-turn` and `with-person` where what it adds is kept (decided
    /// when it is composed); all three at `message`, decided per turn.
    ByPlacement,
    /// All three, decided per turn.
    PerTurn,
}

/// What one kind of contributor is.
#[derive(Debug)]
pub struct KindSpec {
    pub kind: Kind,
    /// What it adds, in a phrase.
    pub adds: &'static str,
    /// What it is, in a few words: the language server's completion detail
    /// and, where the kind is delivered one way only, its hover.
    pub summary: &'static str,
    /// Its fields, in canonical order.
    pub fields: &'static [&'static str],
    /// Fields it cannot do without.
    pub required: &'static [&'static str],
    /// The placements it may name, from the widest; one means the placement
    /// is fixed and not written.
    pub placements: &'static [Placement],
    /// Why it goes only at its placements, in a clause: the help when one
    /// is fixed and written anyway, or when a placement it cannot take is.
    pub why_placements: Option<&'static str>,
    /// How finely what it adds varies, whatever its text says.
    pub variance: Variance,
    pub reach: ReachRule,
    /// Whether `priority` is a setting; otherwise its owner's highest.
    pub has_priority: bool,
    /// The activations it may name (`always` for all that have `applies`).
    pub activations: &'static [ActivationKind],
    /// Whether its body may use variables that exist only under a condition.
    pub event_variables: bool,
    /// Why it has no such setting, per field another kind has: the help of
    /// `field-not-for-kind`, which can then offer to remove the line.
    pub why_not: &'static [(&'static str, &'static str)],
    /// The smallest block of this kind that checks clean against the
    /// platform's own configuration: each field with its value's shape,
    /// `{}` where the one value to type goes, and that value. The language
    /// server's completion snippet.
    pub example: &'static [Example],
}

/// One line of a kind's [`KindSpec::example`].
#[derive(Debug)]
pub struct Example {
    pub field: &'static str,
    /// The value as written, its first `{}` standing for [`Example::value`].
    pub shape: &'static str,
    pub value: &'static str,
}

const ALL_PLACEMENTS: &[Placement] = &[
    Placement::Platform,
    Placement::Agent,
    Placement::Person,
    Placement::Conversation,
    Placement::Message,
];

const ONLY_TEXT_APPLIES: &str =
    "only `text` applies conditionally; other kinds apply whenever their placement does";
const ONLY_SYSTEM_MESSAGE_WHEN: &str = "only a `system-message` has a `when` condition";
const RESULT_IS_DATA: &str = "a tool's result is data, not instructions, so it carries no priority; a preface's trust is its `source`";

const fn example(field: &'static str, shape: &'static str, value: &'static str) -> Example {
    Example {
        field,
        shape,
        value,
    }
}

const TEXT: KindSpec = KindSpec {
    kind: Kind::Text,
    adds: "text for the model: kept in the system prompt, or joining the conversation when it applies",
    summary: "text for the model",
    fields: &["owner", "placement", "priority", "reach", "applies", "budget", "body"],
    required: &["placement", "budget", "body"],
    placements: ALL_PLACEMENTS,
    why_placements: None,
    variance: Placement::Platform,
    reach: ReachRule::ByPlacement,
    has_priority: true,
    activations: ActivationKind::ALL,
    event_variables: false,
    why_not: &[(
        "when",
        "a text says when it applies with `applies`, such as `applies on command deploy`; `when` is a system message's condition",
    )],
    example: &[
        example("placement", "{}", "agent"),
        example("budget", "{} tokens", "20"),
        example("body", "\"{}\"", "Answer in the language of the question."),
    ],
};

const EAGER_LOAD: KindSpec = KindSpec {
    kind: Kind::EagerLoad,
    adds: "tools and a skill's operations loaded before the first turn, so no round is spent asking for them",
    summary: "tools and skill operations loaded when a conversation starts",
    fields: &["owner", "placement", "budget", "choose", "tools", "skill"],
    required: &["placement", "budget"],
    placements: &[Placement::Platform, Placement::Agent],
    why_placements: Some(
        "loaded tools and operations are sent before every other part of the prompt and are the same for every conversation of the agent",
    ),
    variance: Placement::Platform,
    reach: ReachRule::None,
    has_priority: false,
    activations: &[],
    event_variables: false,
    why_not: &[
        ("reach", "what is loaded is there before the first turn, whatever turns follow"),
        ("priority", "loaded tools and operations carry their own instructions, not the plugin's word"),
        ("applies", ONLY_TEXT_APPLIES),
        ("when", ONLY_SYSTEM_MESSAGE_WHEN),
    ],
    example: &[
        example("placement", "{}", "agent"),
        example("budget", "{} tokens", "100"),
        example("tools", "[{}]", "read_object"),
    ],
};

const EAGER_RUN: KindSpec = KindSpec {
    kind: Kind::EagerRun,
    adds: "a read-only tool call run when a conversation starts, its result in the opening",
    summary: "a read-only tool call run when a conversation starts",
    fields: &["owner", "budget", "call"],
    required: &["budget", "call"],
    placements: &[Placement::Conversation],
    why_placements: Some(
        "an eager run happens once, when a conversation starts, and its result opens the conversation",
    ),
    variance: Placement::Conversation,
    reach: ReachRule::None,
    has_priority: false,
    activations: &[],
    event_variables: false,
    why_not: &[
        ("reach", "an eager run happens once, when a conversation starts, whatever turns follow"),
        ("priority", RESULT_IS_DATA),
        ("applies", ONLY_TEXT_APPLIES),
        ("when", ONLY_SYSTEM_MESSAGE_WHEN),
    ],
    example: &[
        example("budget", "{} tokens", "50"),
        example("call", "{} {}", "get_current_time"),
    ],
};

const SYSTEM_MESSAGE: KindSpec = KindSpec {
    kind: Kind::SystemMessage,
    adds: "a short note before a turn, when a condition holds",
    summary: "a note before a turn when its condition holds",
    fields: &["owner", "priority", "reach", "when", "budget", "body"],
    required: &["when", "budget", "body"],
    placements: &[Placement::Message],
    why_placements: Some("a system message is a note sent before the turn whose condition holds"),
    variance: Placement::Message,
    reach: ReachRule::PerTurn,
    has_priority: true,
    activations: &[],
    event_variables: true,
    why_not: &[(
        "applies",
        "a system message is sent when its `when` condition holds",
    )],
    example: &[
        example("when", "idle > {}", "4h"),
        example("budget", "{} tokens", "20"),
        example("body", "\"{}\"", "Welcome back: say where we left off."),
    ],
};

const PREFACE: KindSpec = KindSpec {
    kind: Kind::Preface,
    adds: "retrieved content before a turn, in an envelope naming its origin and trust",
    summary: "retrieved content before a turn, in an envelope",
    fields: &["owner", "reach", "source", "origin", "budget", "call"],
    required: &["source", "origin", "budget", "call"],
    placements: &[Placement::Message],
    why_placements: Some("retrieved content is fetched again before each turn it reaches"),
    variance: Placement::Message,
    reach: ReachRule::PerTurn,
    has_priority: false,
    activations: &[],
    event_variables: false,
    why_not: &[
        ("priority", RESULT_IS_DATA),
        ("applies", ONLY_TEXT_APPLIES),
        ("when", ONLY_SYSTEM_MESSAGE_WHEN),
    ],
    example: &[
        example("source", "{}", "user-authored"),
        example("origin", "\"{}\"", "notes:workspace"),
        example("budget", "{} tokens", "800"),
        example("call", "read_object { id: \"{}\" }", "notes"),
    ],
};

const FACT: KindSpec = KindSpec {
    kind: Kind::Fact,
    adds: "a section of session facts, told in full once and again only when it changes",
    summary: "session facts, sent again when they change",
    fields: &["owner", "reach", "heading", "budget", "says"],
    required: &["budget", "says"],
    placements: &[Placement::Message],
    why_placements: Some("a fact is told before the turn on which it is new or has changed"),
    variance: Placement::Message,
    reach: ReachRule::PerTurn,
    has_priority: false,
    activations: &[],
    event_variables: false,
    why_not: &[
        (
            "priority",
            "a fact reports what is true of the session; it carries no priority",
        ),
        ("applies", ONLY_TEXT_APPLIES),
        ("when", ONLY_SYSTEM_MESSAGE_WHEN),
    ],
    example: &[
        example("budget", "{} tokens", "80"),
        example("says", "[{}]", "date"),
    ],
};

impl Kind {
    /// This kind's row of the table. A `match`, so that a kind without a
    /// row does not compile.
    pub const fn spec(self) -> &'static KindSpec {
        match self {
            Kind::Text => &TEXT,
            Kind::EagerLoad => &EAGER_LOAD,
            Kind::EagerRun => &EAGER_RUN,
            Kind::SystemMessage => &SYSTEM_MESSAGE,
            Kind::Preface => &PREFACE,
            Kind::Fact => &FACT,
        }
    }
}

/// Every row of the table, in the order of `Kind::ALL`.
pub const KINDS: [&KindSpec; Kind::ALL.len()] = {
    let mut rows = [&TEXT; Kind::ALL.len()];
    let mut index = 0;
    while index < rows.len() {
        rows[index] = Kind::ALL[index].spec();
        index += 1;
    }
    rows
};

impl KindSpec {
    /// Why it has no `field`, if the table says.
    pub fn why_not(&self, field: &str) -> Option<&'static str> {
        self.why_not
            .iter()
            .find(|(name, _)| *name == field)
            .map(|(_, why)| *why)
    }

    /// What it is at `placement`, applying `always` or not: a text's words
    /// say where it goes, as a text may go to the system prompt, the
    /// opening, or before a turn.
    pub fn summary_at(&self, placement: Placement, always: bool) -> String {
        match self.kind {
            Kind::Text => format!("text {}", self.delivery(placement, always).destination()),
            Kind::EagerLoad | Kind::EagerRun | Kind::SystemMessage | Kind::Preface | Kind::Fact => {
                self.summary.to_string()
            }
        }
    }

    pub fn has_field(&self, name: &str) -> bool {
        self.fields.contains(&name)
    }

    pub fn requires(&self, name: &str) -> bool {
        self.required.contains(&name)
    }

    /// The placement when it is fixed by the kind, not written.
    pub fn fixed_placement(&self) -> Option<Placement> {
        match self.placements {
            [only] => Some(*only),
            _ => None,
        }
    }

    pub fn allows_placement(&self, placement: Placement) -> bool {
        self.placements.contains(&placement)
    }

    /// The reaches it may name at `placement`; empty when reach is not a
    /// setting of this kind.
    pub fn reaches_at(&self, placement: Placement) -> &'static [Reach] {
        const KEPT: &[Reach] = &[Reach::EveryTurn, Reach::WithPerson];
        match self.reach {
            ReachRule::None => &[],
            ReachRule::ByPlacement if placement != Placement::Message => KEPT,
            ReachRule::ByPlacement | ReachRule::PerTurn => Reach::ALL,
        }
    }

    /// Where the runtime puts what it adds, at `placement`, when it applies
    /// `always` or not.
    pub fn delivery(&self, placement: Placement, always: bool) -> Delivery {
        match self.kind {
            Kind::Text if !always => Delivery::StoredNote,
            Kind::Text => match placement {
                Placement::Conversation => Delivery::Opening,
                Placement::Message => Delivery::TurnNote,
                _ => Delivery::SystemPrompt,
            },
            Kind::EagerLoad => Delivery::Preloaded,
            Kind::EagerRun => Delivery::Opening,
            Kind::SystemMessage | Kind::Fact => Delivery::StoredNote,
            Kind::Preface => Delivery::TurnNote,
        }
    }
}

/// The activations that need a placement kept in the system prompt, where
/// the model reads what it may ask for.
pub fn activation_needs_system_prompt(activation: ActivationKind) -> bool {
    activation == ActivationKind::Request
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_kind_in_order() {
        assert_eq!(KINDS.len(), Kind::ALL.len());
        for kind in Kind::ALL {
            assert_eq!(kind.spec().kind, *kind);
        }
    }

    #[test]
    fn fields_are_known_and_in_canonical_order() {
        for spec in KINDS {
            let positions: Vec<usize> = spec
                .fields
                .iter()
                .map(|name| {
                    FIELDS
                        .iter()
                        .position(|field| field.name == *name)
                        .unwrap_or_else(|| panic!("{}: unknown field {name}", spec.kind))
                })
                .collect();
            assert!(
                positions.windows(2).all(|pair| pair[0] < pair[1]),
                "{}",
                spec.kind
            );
            for required in spec.required {
                assert!(spec.has_field(required) || *required == "placement");
            }
        }
    }

    #[test]
    fn a_fixed_placement_is_not_a_field() {
        for spec in KINDS {
            assert_eq!(
                spec.fixed_placement().is_none(),
                spec.has_field("placement"),
                "{}",
                spec.kind
            );
            assert_eq!(
                spec.reach != ReachRule::None,
                spec.has_field("reach"),
                "{}",
                spec.kind
            );
            assert_eq!(
                spec.has_priority,
                spec.has_field("priority"),
                "{}",
                spec.kind
            );
            assert_eq!(
                !spec.activations.is_empty(),
                spec.has_field("applies"),
                "{}",
                spec.kind
            );
        }
    }

    /// The settings a kind may lack say why, so the error can offer to
    /// remove the line; and only settings it lacks.
    #[test]
    fn every_missing_setting_says_why() {
        for spec in KINDS {
            for setting in ["reach", "priority", "applies", "when"] {
                assert_eq!(
                    spec.why_not(setting).is_some(),
                    !spec.has_field(setting),
                    "{} {setting}",
                    spec.kind
                );
            }
            for (name, _) in spec.why_not {
                assert!(field(name).is_some() && !spec.has_field(name), "{name}");
            }
            assert_eq!(
                spec.why_placements.is_some(),
                spec.placements.len() < ALL_PLACEMENTS.len(),
                "{}",
                spec.kind
            );
        }
    }

    /// The example holds every required field, in canonical order, each
    /// with a value to type.
    #[test]
    fn examples_hold_the_required_fields_in_order() {
        for spec in KINDS {
            let written: Vec<&str> = spec.example.iter().map(|line| line.field).collect();
            let in_order: Vec<&str> = spec
                .fields
                .iter()
                .copied()
                .filter(|name| written.contains(name))
                .collect();
            assert_eq!(written, in_order, "{}", spec.kind);
            for required in spec.required {
                assert!(
                    written.contains(required) || spec.fixed_placement().is_some(),
                    "{}: {required}",
                    spec.kind
                );
            }
            for line in spec.example {
                assert!(line.shape.contains("{}") && !line.value.is_empty());
            }
        }
    }
}

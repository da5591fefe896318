//! The words a contributor is declared in, shared by every layer: the
//! language lowers manifests into them, bundles are written in them and
//! the runtime composes from them. Placements, owners, priorities,
//! reaches, sources and fact sections are closed vocabularies, each an
//! enum with its spelling in manifests, declared once by `vocabulary!`;
//! beside them the table of kinds ([`kinds`]), the platform's variables
//! ([`variables`]), the fact sections' bounds ([`facts`]), names
//! ([`names`]), origins ([`origin`]) and the framing of lower-priority
//! text ([`framing_for`]).

pub mod facts;
mod framing;
pub mod kinds;
pub mod names;
pub mod origin;
pub mod variables;

pub use framing::{framing_for, on_request_listing};
pub use kinds::{Delivery, KindSpec};

/// A closed set of words, as lowering reads them.
pub trait Vocabulary: Sized + Copy {
    /// What one value is called in messages: "placement".
    const NOUN: &'static str;
    fn parse(text: &str) -> Option<Self>;
    fn spellings() -> impl Iterator<Item = &'static str>;
}

/// Declares a closed vocabulary: the enum, its spellings, and parsing.
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($noun:literal) { $( $(#[$vmeta:meta])* $variant:ident = $spelling:literal ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        pub enum $name { $( $(#[$vmeta])* #[serde(rename = $spelling)] $variant ),+ }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// How the value is written in a manifest.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $spelling),+ }
            }

            /// Every spelling, in declaration order.
            pub fn spellings() -> impl Iterator<Item = &'static str> {
                Self::ALL.iter().map(|value| value.as_str())
            }

            pub fn parse(text: &str) -> Option<Self> {
                match text { $($spelling => Some($name::$variant),)+ _ => None }
            }
        }

        impl Vocabulary for $name {
            const NOUN: &'static str = $noun;

            fn parse(text: &str) -> Option<Self> {
                $name::parse(text)
            }

            fn spellings() -> impl Iterator<Item = &'static str> {
                $name::spellings()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

vocabulary! {
    /// Where a contribution goes, from the most widely shared to the
    /// narrowest. A placement is shared by everyone it is constant for:
    /// platform text by every request, agent text by every conversation of
    /// an agent, and so on. The provider's prompt cache is shared the same
    /// way, so text in a placement must not vary more finely than it.
    pub enum Placement ("placement") {
        Platform = "platform",
        Agent = "agent",
        Person = "person",
        Conversation = "conversation",
        Message = "message",
    }
}

/// How finely a value varies, on the placement scale: a value that varies
/// per person can be placed at `person` or narrower.
pub type Variance = Placement;

impl Placement {
    /// Whether this placement is part of the kept system prompt.
    pub fn is_system_prompt(self) -> bool {
        matches!(
            self,
            Placement::Platform | Placement::Agent | Placement::Person
        )
    }

    /// Who shares one composition of this placement.
    pub fn shared_by(self) -> &'static str {
        match self {
            Placement::Platform => "every request to every agent",
            Placement::Agent => "every conversation of one agent, for everyone",
            Placement::Person => "every conversation one person has with one agent",
            Placement::Conversation => "every turn of one conversation",
            Placement::Message => "one turn",
        }
    }
}

vocabulary! {
    /// Who adds a contribution, which bounds where it may go and what it may
    /// claim.
    pub enum Owner ("owner") {
        Operator = "operator",
        Workspace = "workspace",
        AgentAuthor = "agent-author",
        Person = "person",
    }
}

impl Owner {
    /// Whether this owner's authority is within `other`'s: a contributor's
    /// owner may only narrow its plugin's. Authority is ranked by the
    /// highest priority each may claim.
    pub fn is_within(self, other: Owner) -> bool {
        self.highest_priority() >= other.highest_priority()
    }

    /// The highest priority this owner may claim, and its default.
    pub fn highest_priority(self) -> Priority {
        match self {
            Owner::Operator => Priority::Platform,
            Owner::AgentAuthor => Priority::Agent,
            Owner::Workspace => Priority::Workspace,
            Owner::Person => Priority::Person,
        }
    }

    /// The widest placement this owner may add to.
    pub fn widest_placement(self) -> Placement {
        match self {
            Owner::Operator => Placement::Platform,
            Owner::Workspace | Owner::AgentAuthor => Placement::Agent,
            Owner::Person => Placement::Person,
        }
    }

    /// How finely text from this owner varies.
    pub fn variance(self) -> Variance {
        match self {
            Owner::Person => Placement::Person,
            _ => Placement::Platform,
        }
    }
}

vocabulary! {
    /// Whose word a contribution carries, from the highest. Text below agent
    /// priority is framed so the model knows it cannot override what is
    /// above it.
    pub enum Priority ("priority") {
        Platform = "platform",
        Agent = "agent",
        Workspace = "workspace",
        Person = "person",
    }
}

impl Priority {
    /// Whether the compiler frames this contribution as lower-priority text.
    pub fn is_framed(self) -> bool {
        self > Priority::Agent
    }
}

impl Source {
    /// How far content of this source is trusted: 0 is the most.
    pub fn distrust(self) -> u8 {
        match self {
            Source::SystemConfig => 0,
            Source::UserAuthored => 1,
            Source::External => 2,
        }
    }

    /// The less trusted of the two.
    pub fn at_most(self, ceiling: Source) -> Source {
        if self.distrust() >= ceiling.distrust() {
            self
        } else {
            ceiling
        }
    }
}

impl Owner {
    /// The most trusted provenance this owner's retrievals may carry: only
    /// the operator, a workspace and an agent's author vouch for
    /// configuration; what a person installs is at most their own
    /// (`user-authored`), whatever the manifest claims.
    pub fn highest_source(self) -> Source {
        match self {
            Owner::Operator | Owner::Workspace | Owner::AgentAuthor => Source::SystemConfig,
            Owner::Person => Source::UserAuthored,
        }
    }
}

vocabulary! {
    /// Which turns a contribution reaches, from the widest.
    pub enum Reach ("reach") {
        /// Every turn, including those no person is waiting on.
        EveryTurn = "every-turn",
        /// Turns taken while a person is present in the conversation.
        WithPerson = "with-person",
        /// Only turns that answer a person's message.
        Replies = "replies",
    }
}

vocabulary! {
    /// Where a preface's retrieved content comes from, and so how far it is
    /// trusted.
    pub enum Source ("source") {
        UserAuthored = "user-authored",
        SystemConfig = "system-config",
        External = "external",
    }
}

vocabulary! {
    /// The sections a `fact` contributor may state.
    pub enum FactSection ("fact section") {
        Date = "date",
        Os = "os",
        Arch = "arch",
        WorkspaceRoot = "workspace-root",
        Skills = "skills",
        Model = "model",
        Effort = "effort",
        Tools = "tools",
        Permissions = "permissions",
    }
}

vocabulary! {
    /// The kinds of contributor.
    pub enum Kind ("contributor kind") {
        /// Text added to the system prompt.
        Text = "text",
        /// Tools and skill operations loaded when a conversation starts.
        EagerLoad = "eager-load",
        /// A read-only tool call run when a conversation starts.
        EagerRun = "eager-run",
        /// A note before a turn when a condition holds.
        SystemMessage = "system-message",
        /// Retrieved content before a turn, in an envelope.
        Preface = "preface",
        /// Session facts, re-sent when they change.
        Fact = "fact",
    }
}

impl Kind {
    /// "a `text`", "an `eager-run`": the kind in a message.
    pub fn with_article(self) -> String {
        let article = if self.as_str().starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} `{self}`")
    }
}

vocabulary! {
    /// When a contributor applies: always, or only when something happens
    /// in the conversation. Separate from placement, which says how widely
    /// what it adds is shared.
    pub enum ActivationKind ("activation") {
        /// On every conversation (the default).
        Always = "always",
        /// When a person invokes the command.
        Command = "command",
        /// When the skill is invoked.
        Skill = "skill",
        /// When the agent delegates to the subagent.
        Subagent = "subagent",
        /// When files matching one of the globs are in play.
        Files = "files",
        /// When the model asks for it, having read its description.
        Request = "request",
    }
}

vocabulary! {
    /// What a condition of a `system-message` watches.
    pub enum ConditionKind ("condition") {
        Idle = "idle",
        DateCrossed = "date-crossed",
        SkillUpdated = "skill-updated",
        ModelChanged = "model-changed",
        ToolsChanged = "tools-changed",
        PermissionsChanged = "permissions-changed",
    }
}

/// A call argument's value.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Value {
    String(String),
    Integer(i64),
    Boolean(bool),
    List(Vec<Value>),
}

impl Value {
    /// The name of the value's type, as `[tools.NAME] params` spell it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::String(_) => "string",
            Value::Integer(_) => "integer",
            Value::Boolean(_) => "boolean",
            Value::List(_) => "list",
        }
    }
}

/// A whole number of seconds, as written with `s`, `m`, `h`, `d` units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration {
    pub seconds: u64,
}

impl std::fmt::Display for Duration {
    /// The canonical spelling: the largest units first, `1h30m`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut rest = self.seconds;
        if rest == 0 {
            return f.write_str("0s");
        }
        for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] {
            if rest >= size {
                write!(f, "{}{unit}", rest / size)?;
                rest %= size;
            }
        }
        Ok(())
    }
}

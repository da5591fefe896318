//! What a contributor costs against its own budget and the workspace's
//! share of the context for what precedes every conversation.

use std::fmt;

use super::{tokens, Measure};
use crate::config::Config;
use crate::tokenizer::TokenizerKind;
use crate::vocabulary::{on_request_listing, Delivery, Placement};

/// What a contributor adds, larger than its budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget<'a> {
    pub contributor: &'a str,
    pub budget: u64,
    pub measured: u64,
    /// Whether all of what it adds was measured; when not, `measured` is a
    /// lower bound.
    pub complete: bool,
}

impl fmt::Display for OverBudget<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.complete {
            "adds"
        } else {
            "is known to add at least"
        };
        write!(
            f,
            "`{}` {what} {}, over its budget of {}",
            self.contributor,
            tokens(self.measured),
            self.budget
        )
    }
}

/// `contributor`'s measure, if it is over `budget`. What an eager load
/// chooses from usage is chosen within its budget, so it never is.
pub fn over_budget<'a>(
    contributor: &'a str,
    budget: u64,
    measure: &Measure,
) -> Option<OverBudget<'a>> {
    if measure.chosen_within_budget || measure.fits(budget) {
        return None;
    }
    Some(OverBudget {
        contributor,
        budget,
        measured: measure.tokens(),
        complete: measure.complete,
    })
}

/// Where a contributor's share of what precedes every conversation goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// Kept in the system prompt: its budget.
    SystemPrompt,
    /// Preloaded before the first turn: its budget.
    Preloaded,
    /// A text the model may ask for: the line that lists it.
    Listed,
}

impl Kept {
    /// Where, in words: "in the system prompt".
    pub fn place(self) -> &'static str {
        match self {
            Kept::SystemPrompt => "in the system prompt",
            Kept::Preloaded => "preloaded before the first turn",
            Kept::Listed => "listed for the model to ask for",
        }
    }
}

/// One contributor as its share is counted.
#[derive(Debug, Clone, Copy)]
pub struct Share<'a> {
    pub delivery: Delivery,
    pub placement: Placement,
    pub budget: u64,
    /// `applies on request`'s description, when it applies so.
    pub on_request: Option<&'a str>,
    /// `scope/name@version/id`, as the listing names it.
    pub name: &'a str,
    pub framing: Option<&'a str>,
}

/// What one contributor adds to the part of every request that precedes
/// the conversation, counted where it really goes: its budget when it is
/// kept in the system prompt or preloaded before the first turn; for a
/// text the model may ask for, the line that lists it (its text joins the
/// conversation only when asked for); nothing for the rest.
pub fn kept_share(share: &Share<'_>, tokenizer: TokenizerKind) -> Option<(u64, Kept)> {
    match (share.delivery, share.on_request) {
        (Delivery::SystemPrompt, _) => Some((share.budget, Kept::SystemPrompt)),
        (Delivery::Preloaded, _) => Some((share.budget, Kept::Preloaded)),
        (_, Some(description)) if share.placement.is_system_prompt() => {
            let listing = on_request_listing(share.name, description, share.framing);
            Some((tokenizer.count(&listing) as u64, Kept::Listed))
        }
        _ => None,
    }
}

/// What a plugin puts before every conversation, over the workspace's
/// share of the context for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPromptOverBudget {
    pub total: u64,
    pub limit: u64,
}

impl fmt::Display for SystemPromptOverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "what this plugin puts before every conversation adds up to {} tokens, over the workspace's {}",
            self.total, self.limit
        )
    }
}

/// The plugin's `total` share, if it is over what `config` allows.
pub fn system_prompt_over(total: u64, config: &Config) -> Option<SystemPromptOverBudget> {
    let limit = config.system_prompt_budget();
    (total > limit).then_some(SystemPromptOverBudget { total, limit })
}

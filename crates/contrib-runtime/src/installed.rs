//! The runtime's installed path: conversations composed only from what a
//! workspace approved, each contributor call held to the workspace's
//! policy as it is at that turn.
//!
//! A host loads its workspace through the trust stage
//! ([`contrib_bundle::workspace::load()`]), which gives [`Approved`] bundles only: pinned
//! by the lock, digest checked, re-checked under the current policy. An
//! [`Installation`] is made from those and nothing else. Its conversations:
//!
//! - hold the kept part of every request to the agent's context budget,
//!   refusing lowest priority first ([`Composer::limit_kept`]);
//! - call tools through an [`InstalledGate`], which decides each call from
//!   the workspace's registry, egress allow-list and gates, never from the
//!   bundle's claims, and asks a person about gated ones (pending until
//!   approved or denied);
//! - read all of that live: the host gives the gate the policy as it reads
//!   it before each turn ([`Live::set_policy`]) and withdraws a version its
//!   catalog yanked or its workspace uninstalled
//!   ([`Composer::withdraw`]).
//!
//! `Composer::start` on bare bundles remains for a quick look at
//! bundles nobody installed (`contrib compose --bundles`); nothing it
//! composes was approved.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::gate::{Gate, GateOutcome, GateRequest};
use super::profiles::Profile;
use super::session::Session;
use super::Composer;
use contrib_bundle::workspace::{Approved, CallDecision, Policy};
use contrib_bundle::Bundle;

/// The approved plugin versions of a workspace, ready to compose.
#[derive(Debug, Clone)]
pub struct Installation {
    bundles: Vec<Bundle>,
    /// Where each version was installed, by `scope/name@version`.
    installed: BTreeMap<String, String>,
}

impl Installation {
    /// The approved versions; `lock` names the workspace lock they were
    /// approved in, for refusals to point at.
    pub fn new(approved: &[Approved], lock: &str) -> Installation {
        Installation {
            bundles: approved
                .iter()
                .map(|approved| approved.bundle().clone())
                .collect(),
            installed: approved
                .iter()
                .map(|approved| {
                    let entry = approved.installed();
                    (
                        entry.id(),
                        format!(
                            "in `{lock}` by `{}` at {}",
                            entry.approved_by, entry.approved_at
                        ),
                    )
                })
                .collect(),
        }
    }

    /// The approved bundles, one per approved version: what this
    /// installation's conversations are composed from.
    pub fn bundles(&self) -> &[Bundle] {
        &self.bundles
    }

    /// Starts a conversation whose kept part may take `kept_tokens`.
    pub fn start<'a, G: Gate>(
        &'a self,
        session: Session,
        gate: G,
        profile: &'a Profile,
        kept_tokens: u64,
    ) -> Composer<'a, G> {
        let mut conversation = Composer::start(&self.bundles, session, gate, profile);
        self.admit(&mut conversation, kept_tokens);
        conversation
    }

    /// Holds a conversation started (or resumed) from these bundles to
    /// what the installation allows: its kept part to `kept_tokens`, each
    /// refusal naming where its plugin was installed.
    pub fn admit<G: Gate>(&self, conversation: &mut Composer<'_, G>, kept_tokens: u64) {
        conversation.limit_kept(kept_tokens, self.installed.clone());
    }
}

/// What an [`InstalledGate`] decides with: the policy as read before this
/// turn and the approvals people gave, shared with the host that keeps
/// them current. Behind a mutex, so that a workspace can be shared with
/// threads (a Python host releases the interpreter while it loads).
#[derive(Debug, Clone)]
pub struct Live(Arc<Mutex<LiveState>>);

#[derive(Debug)]
struct LiveState {
    /// `Err` when the policy could not be read: every call is refused.
    policy: Result<Policy, String>,
    /// By contributor (`scope/name@version/id`): approved or not.
    decisions: BTreeMap<String, bool>,
}

impl Live {
    /// Starts from `policy` as the host read it, with no approvals given
    /// yet: every gated call is pending until [`Live::approve`] or
    /// [`Live::deny`].
    pub fn new(policy: Policy) -> Live {
        Live(Arc::new(Mutex::new(LiveState {
            policy: Ok(policy),
            decisions: BTreeMap::new(),
        })))
    }

    /// The state; a thread that panicked holding it left it whole (every
    /// write is a single assignment or insertion).
    fn state(&self) -> MutexGuard<'_, LiveState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The policy as the host reads it before a turn; a policy that could
    /// not be read fails every call closed.
    pub fn set_policy(&self, policy: Result<Policy, String>) {
        self.state().policy = policy;
    }

    /// A person approved `contributor`'s gated call.
    pub fn approve(&self, contributor: &str) {
        self.state().decisions.insert(contributor.to_string(), true);
    }

    /// A person refused `contributor`'s gated call.
    pub fn deny(&self, contributor: &str) {
        self.state()
            .decisions
            .insert(contributor.to_string(), false);
    }
}

/// The host's gate, behind the workspace's policy.
pub struct InstalledGate<G> {
    inner: G,
    live: Live,
}

impl<G: Gate> InstalledGate<G> {
    /// Puts `inner`, the host's own gate, behind the policy and approvals
    /// in `live`: `inner` hears only calls the policy allows, with the
    /// effect the workspace gives the tool and gating already settled.
    pub fn new(inner: G, live: Live) -> Self {
        InstalledGate { inner, live }
    }
}

impl<G: Gate> Gate for InstalledGate<G> {
    fn call(&mut self, request: &GateRequest) -> GateOutcome {
        let state = self.live.state();
        let policy = match &state.policy {
            Ok(policy) => policy,
            Err(why) => {
                return GateOutcome::Refused {
                    reason: format!("the workspace's policy cannot be read: {why}"),
                }
            }
        };
        let (plugin, contributor) = names(&request.contributor);
        let decision = policy.call(plugin, contributor, &request.tool, &request.arguments);
        let effect = match decision {
            CallDecision::Refuse(reason) => return GateOutcome::Refused { reason },
            CallDecision::Allow { effect } => effect,
            CallDecision::AwaitApproval => match state.decisions.get(&request.contributor) {
                Some(true) => policy
                    .config()
                    .tools
                    .get(&request.tool)
                    .map_or(contrib_core::config::Effect::Write, |tool| tool.effect),
                Some(false) => {
                    return GateOutcome::Refused {
                        reason: format!("a person denied the call to `{}`", request.tool),
                    }
                }
                None => {
                    return GateOutcome::Pending {
                        reason: format!("`{}` is gated in this workspace", request.tool),
                    }
                }
            },
        };
        drop(state);
        // The host's gate hears the workspace's effect, and that the call is
        // allowed: gating was settled here.
        let allowed = GateRequest {
            effect,
            gated: false,
            ..request.clone()
        };
        self.inner.call(&allowed)
    }
}

/// `scope/name` and the id of `scope/name@version/id`.
fn names(contributor: &str) -> (&str, &str) {
    let plugin = contributor.split('@').next().unwrap_or_default();
    let id = contributor.rsplit('/').next().unwrap_or_default();
    (plugin, id)
}

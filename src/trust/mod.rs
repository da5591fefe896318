//! The trust boundary: where a bundle somebody else wrote becomes something
//! this workspace runs.
//!
//! The stage sits between [`bundle`](crate::bundle) and
//! [`runtime`](crate::runtime). A bundle says what its author claims: its
//! `permissions`, the owner it requests, the suppressions and `[lints]`
//! levels it was built under, even what its tools do, since those came
//! from the author's `contrib.toml`. None of that is believed here. Where
//! trust changes hands, at `contrib install` and at every load, the
//! *installer's* policy decides:
//!
//! - `reread`: the bundle is written back as a manifest, with the
//!   authority the installer grants ([`grant`]) in place of the one
//!   requested;
//! - [`recheck`](mod@recheck): the checker runs on it under the installer's
//!   configuration, every protective rule at its default whatever the
//!   author waived, relaxed only by the installer's own `[trust]` table;
//!   the bundle must read back as itself, and its own `permissions` must
//!   not say less than the installer's tools make of it;
//! - [`lock`]: what was approved (version, digest, the permissions as
//!   granted, by whom, when, under which relaxations) is recorded in
//!   `contrib.lock`, beside `contrib.toml`;
//! - [`approved`]: the workspace's own copy of every bundle it approved,
//!   which updates, diffs and loads compare with, never the catalog's;
//! - [`install`]: install, update and uninstall, deciding what needs a new
//!   approval, each holding the workspace's lock from reading
//!   `contrib.lock` to writing it;
//! - [`load`](mod@load): a workspace's runtime loads exactly what its lock pins,
//!   digests checked, each re-checked under the policy as it is now, and
//!   gets [`Approved`] bundles, the only kind [`policy`] and the runtime's
//!   installed path accept;
//! - [`screen`]: what a person approves, drawn by the terminal preview
//!   and the page;
//! - [`policy`]: the installer's tools, egress and gates as the runtime
//!   applies them to each call, read live each turn.
//!
//! `docs/trust.md` is the threat model this stage implements.

pub mod admit;
pub mod approved;
pub mod install;
pub mod load;
pub mod lock;
pub mod policy;
pub mod recheck;
mod refused;
mod reread;
pub mod screen;

use crate::bundle::Bundle;
use crate::ir::Owner;

pub use load::{load, Loaded};
pub use lock::{Installed, Relaxed, WorkspaceLock, LOCK_FILE};
pub use policy::{CallDecision, Policy};
pub use recheck::{recheck, Recheck};
pub use refused::Refused;

/// The authority a plugin's contributors get: its requested owner, never
/// more than the installer's. A person installing an operator's plugin
/// does not make it platform text.
pub fn grant(requested: Owner, installer: Owner) -> Owner {
    contrib_core::policy::authority::narrower(requested, installer)
}

/// A plugin version this workspace approved and that passed its re-check
/// at load: the only way a bundle reaches the runtime's installed path.
///
/// Its bundle is the workspace's approved copy, verified by digest, as granted: each
/// contributor's owner narrowed to the granted authority, and the
/// permissions those the workspace's own tools make of it. The digest is
/// the one approved, so records name what was approved.
#[derive(Debug, Clone, PartialEq)]
pub struct Approved {
    bundle: Bundle,
    installed: Installed,
}

impl Approved {
    pub fn bundle(&self) -> &Bundle {
        &self.bundle
    }

    /// Its entry in `contrib.lock`.
    pub fn installed(&self) -> &Installed {
        &self.installed
    }
}

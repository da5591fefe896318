//! The trust boundary: where a bundle somebody else wrote becomes something
//! this workspace runs.
//!
//! What a workspace approved, and loading it, are the bundle format's
//! ([`contrib_bundle::workspace`]: the lock, the approved copies, the load
//! that judges each approved bundle on the bundle itself, the per-call
//! policy). What is here is installing, where the checker helps the
//! person who approves:
//!
//! - `reread`: the bundle is written back as a manifest, with the
//!   authority the installer grants ([`grant`]) in place of the one
//!   requested;
//! - [`recheck`](mod@recheck): the checker runs on it under the installer's
//!   configuration, every protective rule at its default whatever the
//!   author waived, relaxed only by the installer's own `[trust]` table;
//!   the bundle must read back as itself, and its own `permissions` must
//!   not say less than the installer's tools make of it, so the approval
//!   screen can point at the words in question;
//! - [`install`]: install, update and uninstall, deciding what needs a new
//!   approval;
//! - [`screen`]: what a person approves, drawn by the terminal preview
//!   and the page.
//!
//! `docs/trust.md` is the threat model this stage implements.

pub use contrib_bundle::workspace::{
    admit, approved, grant, load, lock, policy, Approved, CallDecision, Installed, Loaded, Policy,
    Refused, Relaxed, WorkspaceLock, LOCK_FILE,
};

pub mod install;
pub mod recheck;
mod reread;
pub mod screen;

pub use recheck::{recheck, Recheck};

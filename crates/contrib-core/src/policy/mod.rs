//! The workspace's policy, as judgements over what a contributor does: the
//! tools it calls and loads, the hosts those calls reach, the skills it
//! requires, what it costs against its budget and the workspace's, and the
//! authority its owner may claim.
//!
//! Each judgement is written once, here, and read in three places: the
//! checker, which points at a manifest's words (`contrib-lang`); a
//! workspace loading what it approved, which judges the bundle itself
//! without reading it back as text (`contrib-bundle`); and the runtime,
//! which judges each call as it is made. A finding's words are its
//! `Display`: the checker's message and a refusal's reason are the same
//! sentence.

pub mod authority;
pub mod budget;
pub mod call;
pub mod measure;
pub mod skills;
pub mod url;

pub use measure::{Adds, Measure};

/// `1 token`, `15 tokens`.
pub fn tokens(count: u64) -> String {
    if count == 1 {
        "1 token".to_string()
    } else {
        format!("{count} tokens")
    }
}

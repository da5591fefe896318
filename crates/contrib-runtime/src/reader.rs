//! What an eager load reads: the text of a skill's chosen operations, from
//! the host.
//!
//! An eager load puts into the prompt what the agent would otherwise fetch
//! on its first rounds. The runtime knows which skill and which operations
//! a contributor loads; only the host has their text. A [`Reader`] gives
//! it, so the real text goes into the prompt and is counted; without one
//! the composer puts a line naming the operations and the checker's
//! estimate of their size, as a preview does.

/// The host's side of eager loads.
pub trait Reader {
    /// The text of `operation` of skill `skill` at `version`, as the agent
    /// would read it with its own tools; `None` when the host has none,
    /// and the load is refused rather than sent half-read.
    fn operation(
        &mut self,
        skill: &str,
        version: &semver::Version,
        operation: &str,
    ) -> Option<String>;
}

impl<R: Reader + ?Sized> Reader for Box<R> {
    fn operation(
        &mut self,
        skill: &str,
        version: &semver::Version,
        operation: &str,
    ) -> Option<String> {
        (**self).operation(skill, version, operation)
    }
}

/// The heading an operation's text is read under, so the model knows which
/// skill and operation it is.
pub(super) fn heading(skill: &str, version: &semver::Version, operation: &str) -> String {
    format!("## Skill {skill} {version}, operation `{operation}` (read ahead)")
}

//! What a plugin asks of the workspace's skills: each skill it requires at
//! a version the workspace has, and each operation it loads one the skill
//! has.

use std::fmt;

use crate::config::Config;
use crate::suggest;

/// An operation an eager load names that its skill does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownOperation<'a> {
    pub skill: &'a str,
    pub operation: &'a str,
    pub suggestion: Option<&'a str>,
    /// The skill's operations.
    pub known: Vec<&'a str>,
}

impl fmt::Display for UnknownOperation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the skill `{}` has no operation `{}`",
            self.skill, self.operation
        )
    }
}

/// `operation` of `skill`, if the workspace has the skill and not the
/// operation (a skill it does not have is a requirement's question).
pub fn unknown_operation<'a>(
    config: &'a Config,
    skill: &'a str,
    operation: &'a str,
) -> Option<UnknownOperation<'a>> {
    let declared = config.skills.get(skill)?;
    if declared.operations.contains_key(operation) {
        return None;
    }
    let known: Vec<&str> = declared.operations.keys().map(String::as_str).collect();
    Some(UnknownOperation {
        skill,
        operation,
        suggestion: suggest::closest(operation, known.iter().copied()),
        known,
    })
}

/// A skill the plugin requires that the workspace does not have at a
/// version that matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsatisfiedRequirement<'a> {
    pub skill: &'a str,
    pub wanted: &'a semver::VersionReq,
    /// The workspace's version, when it has the skill.
    pub have: Option<&'a semver::Version>,
}

impl fmt::Display for UnsatisfiedRequirement<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (skill, wanted) = (self.skill, self.wanted);
        match self.have {
            None => write!(
                f,
                "the plugin requires the skill `{skill}`, which the workspace does not have"
            ),
            Some(have) => write!(
                f,
                "the workspace has `{skill}` {have}, which does not match `{wanted}`"
            ),
        }
    }
}

/// The requirement of `skill` at `wanted`, if the workspace does not meet it.
pub fn unsatisfied<'a>(
    config: &'a Config,
    skill: &'a str,
    wanted: &'a semver::VersionReq,
) -> Option<UnsatisfiedRequirement<'a>> {
    match config.skills.get(skill) {
        None => Some(UnsatisfiedRequirement {
            skill,
            wanted,
            have: None,
        }),
        Some(declared) if !wanted.matches(&declared.version) => Some(UnsatisfiedRequirement {
            skill,
            wanted,
            have: Some(&declared.version),
        }),
        Some(_) => None,
    }
}

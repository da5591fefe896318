//! `contrib export`: a checked manifest written as a package another
//! harness loads — an Agent Plugins 1.0.0 package or a Claude Code plugin.
//!
//! The package carries what the target can carry: texts a model asks for
//! become skills, texts a person runs become commands (Claude Code), a
//! subagent's prompt becomes an agent file (Claude Code), an eager run of
//! a read-only shell tool becomes a `SessionStart` hook (Claude Code).
//! Everything else a manifest says — placements, budgets, owners and
//! priorities, reach, always-on texts, variables, eager loads, notes,
//! prefaces, facts — is listed in the [`Report`], each with why; and
//! where the target has a way to keep what the manifest promises, the
//! package uses it (a command the model may not run itself), or leaves the
//! contributor out rather than break the promise (an eager run that
//! writes is never a hook that runs with nobody asking).
//!
//! The stages: [`package`] maps a plugin to files and a report (one module
//! per target: `agent_plugin`, `claude_plugin`, with `files` for the
//! Markdown and JSON both write); `crate::fs::write_folder` writes the
//! folder atomically. The mapping is documented in `docs/import.md`
//! ("Export").

mod agent_plugin;
mod claude_plugin;
mod files;
mod report;

use std::collections::BTreeMap;

use crate::config::Config;
use crate::ir::{Activation, ContributorBody, Plugin, Template};

pub use report::{Enforced, Loss, Report, Written};

/// The package formats written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// An Agent Plugins 1.0.0 package: `plugin.json`, `skills/*/SKILL.md`.
    AgentPlugin,
    /// A Claude Code plugin: `.claude-plugin/plugin.json`, `skills/`,
    /// `commands/`, `agents/`, `hooks/hooks.json`.
    ClaudePlugin,
}

impl Target {
    /// The target's name in sentences.
    pub fn title(self) -> &'static str {
        match self {
            Target::AgentPlugin => "Agent Plugins 1.0.0",
            Target::ClaudePlugin => "Claude Code",
        }
    }

    /// Where a package of either target keeps its manifest: a folder
    /// holding one is a package (what `--force` may replace).
    pub fn manifest_paths() -> [&'static str; 2] {
        ["plugin.json", ".claude-plugin/plugin.json"]
    }
}

/// A package, ready to write.
#[derive(Debug, Clone)]
pub struct Package {
    /// Its folder's name when several packages are written side by side:
    /// `scope.name` for Agent Plugins, `name` for Claude Code.
    pub name: String,
    /// Each file by its path in the package (`/`-separated), with its text.
    pub files: BTreeMap<String, String>,
    pub report: Report,
}

/// The tool whose eager runs are `SessionStart` hooks: the one `contrib
/// import` calls for a hook's shell command.
pub const SHELL_TOOL: &str = "run_shell_command";

/// Maps a plugin that checked without errors to a package of `target`.
pub fn package(plugin: &Plugin, config: &Config, target: Target) -> Package {
    let mut out = Out {
        files: BTreeMap::new(),
        report: Report::new(plugin, target),
    };
    let name = match target {
        Target::AgentPlugin => agent_plugin::manifest(plugin, &mut out),
        Target::ClaudePlugin => claude_plugin::manifest(plugin, &mut out),
    };
    for contributor in &plugin.contributors {
        let id = contributor.id.value.as_str();
        match &contributor.body {
            ContributorBody::Text { body } => {
                let Some(text) = literal(id, body, target, &mut out) else {
                    continue;
                };
                let placed = match (&contributor.activation.value, target) {
                    (Activation::Request(description), _) => {
                        files::skill(id, &description.value, &text, &mut out)
                    }
                    (Activation::Command(command), Target::ClaudePlugin) => {
                        claude_plugin::command(id, &command.value, &text, &mut out)
                    }
                    (Activation::Subagent(agent), Target::ClaudePlugin) => {
                        claude_plugin::agent(id, &agent.value, &text, &mut out)
                    }
                    (activation, _) => {
                        out.lose(id, "activation", unplaced(activation, target));
                        false
                    }
                };
                if placed {
                    settings(contributor, &plugin.name.value, target, &mut out);
                }
            }
            ContributorBody::EagerRun { call } => match target {
                Target::ClaudePlugin => claude_plugin::eager_run(id, call, config, &mut out),
                Target::AgentPlugin => out.lose(
                    id,
                    "eager-run",
                    "Agent Plugins 1.0.0 runs nothing when a conversation starts",
                ),
            },
            ContributorBody::EagerLoad { .. } => out.lose(
                id,
                "eager-load",
                format!(
                    "{} loads a skill's body or a tool's schema when it is used, never up front",
                    target.title()
                ),
            ),
            ContributorBody::SystemMessage { .. } => out.lose(
                id,
                "system-message",
                format!(
                    "{} has no note told when a condition holds (`when …`)",
                    target.title()
                ),
            ),
            ContributorBody::Preface { .. } => out.lose(
                id,
                "preface",
                format!(
                    "{} puts no retrieved content in an envelope before a turn",
                    target.title()
                ),
            ),
            ContributorBody::Fact { .. } => out.lose(
                id,
                "fact",
                format!("{} tells the model no session facts", target.title()),
            ),
        }
    }
    plugin_losses(plugin, target, &mut out);
    Package {
        name,
        files: out.files,
        report: out.report,
    }
}

/// What is being written: the files, and the report.
pub(crate) struct Out {
    pub files: BTreeMap<String, String>,
    pub report: Report,
}

impl Out {
    /// Adds a file for `contributor`, unless another took its path: then
    /// the contributor is reported as not written, and `false` returned.
    pub(crate) fn add(
        &mut self,
        contributor: &str,
        path: String,
        text: String,
        what: &'static str,
    ) -> bool {
        if let Some(other) = self
            .report
            .written
            .iter()
            .find(|written| written.file == path)
        {
            let why = format!(
                "`{}` is already written to `{path}`, and the target has one file there",
                other.contributor
            );
            self.lose(contributor, what, why);
            return false;
        }
        self.report.written.push(Written {
            contributor: contributor.to_string(),
            file: path.clone(),
            what,
        });
        self.files.insert(path, text);
        true
    }

    pub(crate) fn lose(&mut self, contributor: &str, what: &'static str, why: impl Into<String>) {
        self.report.not_expressed.push(Loss {
            contributor: Some(contributor.to_string()),
            what,
            why: why.into(),
        });
    }

    pub(crate) fn enforce(&mut self, contributor: &str, how: impl Into<String>) {
        self.report.enforced.push(Enforced {
            contributor: contributor.to_string(),
            how: how.into(),
        });
    }
}

/// A text's body as the model reads it, or `None` (reported) when it has
/// variables, which no target fills.
fn literal(id: &str, body: &Template, target: Target, out: &mut Out) -> Option<String> {
    let names: Vec<String> = body
        .variables()
        .map(|used| format!("`{{{}}}`", used.variable.name))
        .collect();
    if names.is_empty() {
        return Some(body.render(|_| ""));
    }
    out.lose(
        id,
        "variables",
        format!(
            "its body uses {}, which {} does not fill: the model would read the braces",
            names.join(", "),
            target.title()
        ),
    );
    None
}

/// Why a text with this activation has no place in the target.
fn unplaced(activation: &Activation, target: Target) -> String {
    let title = target.title();
    let only = match target {
        Target::AgentPlugin => "its texts are skills, read when the model asks for one",
        Target::ClaudePlugin => "its texts are skills, commands and subagents",
    };
    match activation {
        Activation::Always => format!(
            "an always-on text: {title} has no text told in every conversation ({only}); write `applies on request \"…\"` to export it as a skill"
        ),
        Activation::Files(_) => format!(
            "a text told when files are in play: {title} has no such activation ({only}); write `applies on request \"…\"` to export it as a skill the model reads when it asks"
        ),
        Activation::Skill(skill) => format!(
            "a text told when the skill `{}` is invoked: {title} has no such activation ({only})",
            skill.value
        ),
        Activation::Command(command) => format!(
            "a text told when a person runs `/{}`: {title} has no commands ({only})",
            command.value
        ),
        Activation::Subagent(agent) => format!(
            "the prompt of the subagent `{}`: {title} has no subagents ({only})",
            agent.value
        ),
        Activation::Request(_) => format!("{title} could not place it"),
    }
}

/// What an exported text's settings say that the target does not.
fn settings(
    contributor: &crate::ir::Contributor,
    plugin: &crate::ir::PluginName,
    target: Target,
    out: &mut Out,
) {
    let id = contributor.id.value.as_str();
    let title = target.title();
    let placement = contributor.placement.value;
    if placement != crate::ir::Placement::Agent {
        out.lose(
            id,
            "placement",
            format!(
                "placed at `{}`; {title} shares a plugin's files with every conversation that loads it",
                placement.as_str()
            ),
        );
    }
    if let Some(framing) = crate::ir::framing(plugin, contributor) {
        out.lose(
            id,
            "priority",
            format!(
                "at `{}` priority contrib frames it as `{framing}`; {title} tells it unframed",
                contributor.priority.value.as_str()
            ),
        );
    }
    if contributor.reach.written.is_some() {
        out.lose(
            id,
            "reach",
            format!(
                "reaches `{}` turns; {title} does not choose the turns a text reaches",
                contributor.reach.value.as_str()
            ),
        );
    }
}

/// What the plugin as a whole says that the target does not.
fn plugin_losses(plugin: &Plugin, target: Target, out: &mut Out) {
    let title = target.title();
    let written = out.report.written.len();
    out.report.not_expressed.push(Loss {
        contributor: None,
        what: "owner",
        why: format!(
            "owned by `{}`; {title} has no owners: whoever installs the package decides what it may do",
            plugin.owner.value.as_str()
        ),
    });
    if written > 0 {
        out.report.not_expressed.push(Loss {
            contributor: None,
            what: "budget",
            why: format!(
                "{title} does not bound what a file adds: the budgets of the {} written are not enforced",
                crate::report::plural(written, "contributor")
            ),
        });
    }
    for requirement in &plugin.requires {
        out.report.not_expressed.push(Loss {
            contributor: None,
            what: "requires",
            why: format!(
                "requires the skill `{}` `{}`; {title} has no requirements: install the skill beside the package",
                requirement.skill.value, requirement.version.value
            ),
        });
    }
}

/// A description of at most `limit` characters, cut at a word, from the
/// first line of a body with words in it (without Markdown's heading and
/// list marks): for files whose format requires one the manifest does not
/// give.
pub(crate) fn first_words(body: &str, limit: usize) -> Option<String> {
    let line = body
        .lines()
        .map(|line| line.trim().trim_start_matches(['#', '-', '*', '>']).trim())
        .find(|line| line.chars().any(char::is_alphanumeric))?;
    if line.chars().count() <= limit {
        return Some(line.to_string());
    }
    let cut: String = line.chars().take(limit).collect();
    let cut = match cut.rfind(' ') {
        Some(at) if at > limit / 2 => cut[..at].to_string(),
        _ => cut,
    };
    Some(format!("{}…", cut.trim_end()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_words_take_the_first_line_with_words() {
        assert_eq!(
            first_words("\n# Before a release\n\nmore", 80).as_deref(),
            Some("Before a release")
        );
        assert_eq!(
            first_words("one two three four", 10).as_deref(),
            Some("one two…")
        );
        assert_eq!(first_words("---\n\n", 10), None);
    }
}

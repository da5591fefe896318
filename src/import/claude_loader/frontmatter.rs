//! The frontmatter of a plugin's commands (`commands/*.md`) and subagents
//! (`agents/*.md`), as Claude Code reads it. A file without frontmatter, or
//! without a `description`, loads with none, so the model and the person
//! choosing a command see only its name: a warning. A subagent whose
//! frontmatter is not YAML loads under its file's name with every other
//! field dropped (its tools, its model, its description), and a command
//! whose `allowed-tools` is not a string or a list of strings is refused:
//! errors.

use super::super::frontmatter::{self, Value};
use super::super::problem::{first_line, frontmatter_key, Problem, ProblemKind};
use super::super::InputFile;
use crate::source::Span;

/// What the file is to Claude Code, in messages.
#[derive(Clone, Copy)]
enum Prompt {
    Command,
    Subagent,
}

impl Prompt {
    fn noun(self) -> &'static str {
        match self {
            Prompt::Command => "command",
            Prompt::Subagent => "subagent",
        }
    }
}

/// A command's frontmatter.
pub(in crate::import) fn command_frontmatter(file: &InputFile) -> Vec<Problem> {
    let mut problems = Vec::new();
    let document = frontmatter::split(&file.text);
    if !described(file, &document.frontmatter, Prompt::Command, &mut problems) {
        return problems;
    }
    if let Some(entry) = document.frontmatter.get("allowed-tools") {
        let span = frontmatter_key(&file.text, "allowed-tools");
        if matches!(entry, Value::Nested(_)) || is_bare_scalar(&file.text, span) {
            problems.push(Problem::new(
                &file.path,
                span,
                ProblemKind::InvalidFrontmatter,
                "the command's `allowed-tools` is not a string or a list of strings, so Claude Code refuses the command",
                "not a list of tools",
                "list the tools: `allowed-tools: Read, Grep` or `allowed-tools: [Read, Grep]`",
            ).breaking());
        }
    }
    problems
}

/// A subagent's frontmatter.
pub(in crate::import) fn agent_frontmatter(file: &InputFile) -> Vec<Problem> {
    let mut problems = Vec::new();
    let document = frontmatter::split(&file.text);
    let yaml_error = document
        .frontmatter
        .yaml_error
        .as_ref()
        .filter(|_| !loads_quoted(&file.text));
    if let Some(error) = yaml_error {
        let span = line_at(&file.text, error.offset);
        problems.push(
            Problem::new(
                &file.path,
                span,
                ProblemKind::InvalidFrontmatter,
                format!(
                    "the subagent's frontmatter is not valid YAML ({}, at line {} column {}), so Claude Code loads it under its file's name with every other field dropped",
                    error.message, error.line, error.column
                ),
                "not valid YAML",
                "quote the value (`key: \"…\"`), or close the bracket or quote it opens",
            )
            .breaking(),
        );
        return problems;
    }
    described(file, &document.frontmatter, Prompt::Subagent, &mut problems);
    problems
}

/// Whether the file has frontmatter with a description; a warning when
/// not. Returns whether there is frontmatter to read further.
fn described(
    file: &InputFile,
    frontmatter: &frontmatter::Frontmatter,
    prompt: Prompt,
    problems: &mut Vec<Problem>,
) -> bool {
    let noun = prompt.noun();
    if frontmatter.entries.is_empty() && frontmatter.problems.is_empty() {
        problems.push(
            Problem::new(
                &file.path,
                first_line(&file.text),
                ProblemKind::InvalidFrontmatter,
                format!("the {noun} has no frontmatter, so Claude Code lists it without a description"),
                "no `---` frontmatter",
                format!("start the file with `---`, `description: …`, `---`, saying what the {noun} does and when to use it"),
            )
            .skipped(),
        );
        return false;
    }
    let description = frontmatter.text("description");
    if description.is_none_or(|text| text.trim().is_empty()) {
        let span = match description {
            Some(_) => frontmatter_key(&file.text, "description"),
            None => first_line(&file.text),
        };
        problems.push(
            Problem::new(
                &file.path,
                span,
                ProblemKind::InvalidFrontmatter,
                format!("the {noun} has no `description`, so Claude Code lists it by name alone"),
                "no `description`",
                format!("add `description: …`, saying what the {noun} does and when to use it"),
            )
            .skipped(),
        );
    }
    true
}

/// Whether the frontmatter is YAML once every plain top-level value is
/// quoted: Claude Code reads a frontmatter that way when YAML refuses it
/// as written (`description: Use when: a, b`), so only what quoting does
/// not mend loses the fields.
fn loads_quoted(text: &str) -> bool {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return false;
    };
    let mut quoted = String::new();
    for line in rest.lines() {
        if matches!(line.trim_end(), "---" | "...") {
            return yaml_rust2::YamlLoader::load_from_str(&quoted).is_ok();
        }
        match line.split_once(": ") {
            Some((key, value))
                if !key.starts_with([' ', '\t', '-', '#'])
                    && !value.trim().is_empty()
                    && !value
                        .trim_start()
                        .starts_with(['"', '\'', '[', '{', '|', '>', '&', '*']) =>
            {
                let escaped = value.trim().replace('\\', "\\\\").replace('"', "\\\"");
                quoted.push_str(&format!("{key}: \"{escaped}\"\n"));
            }
            _ => {
                quoted.push_str(line);
                quoted.push('\n');
            }
        }
    }
    false
}

/// Whether the `key: value` line at `span` holds an unquoted number,
/// boolean or null: YAML reads it as something other than a string.
fn is_bare_scalar(text: &str, span: Span) -> bool {
    let line = text.get(span.start..span.end).unwrap_or_default();
    let value = line.split_once(':').map_or("", |(_, value)| value.trim());
    !value.is_empty()
        && (value.parse::<f64>().is_ok() || matches!(value, "true" | "false" | "null" | "~"))
}

/// The span of the line holding `offset`.
fn line_at(text: &str, offset: usize) -> Span {
    let offset = crate::source::floor_char_boundary(text, offset.min(text.len()));
    let start = text[..offset].rfind('\n').map_or(0, |at| at + 1);
    let end = text[start..].find('\n').map_or(text.len(), |at| start + at);
    Span::new(start, start + text[start..end].trim_end_matches('\r').len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    fn file(path: &str, text: &str) -> InputFile {
        InputFile {
            path: path.into(),
            text: text.into(),
        }
    }

    #[test]
    fn commands_without_frontmatter_or_description_warn() {
        let bare = command_frontmatter(&file("p/commands/x.md", "Do the thing.\n"));
        assert_eq!(bare.len(), 1);
        assert_eq!(bare[0].severity, Severity::Warning);
        let hinted =
            command_frontmatter(&file("p/commands/x.md", "---\nargument-hint: x\n---\nb\n"));
        assert!(hinted[0].message.contains("no `description`"), "{hinted:?}");
        let fine = command_frontmatter(&file(
            "p/commands/x.md",
            "---\ndescription: d\nallowed-tools: Read, Grep\n---\nb\n",
        ));
        assert!(fine.is_empty(), "{fine:?}");
    }

    #[test]
    fn a_number_for_allowed_tools_refuses_the_command() {
        let text = "---\ndescription: d\nallowed-tools: 5\n---\nb\n";
        let found = command_frontmatter(&file("p/commands/x.md", text));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(
            &text[found[0].span.start..found[0].span.end],
            "allowed-tools: 5"
        );
    }

    #[test]
    fn a_value_quoting_mends_is_read() {
        let text = "---\nname: x\ndescription: Use when: a, b: c\n---\nb\n";
        assert!(agent_frontmatter(&file("p/agents/x.md", text)).is_empty());
    }

    #[test]
    fn a_subagent_that_is_not_yaml_loses_its_fields() {
        let text = "---\nname: x\ndescription: \"unclosed\n---\nb\n";
        let found = agent_frontmatter(&file("p/agents/x.md", text));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].severity, Severity::Error);
    }
}

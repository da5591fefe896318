//! What is wrong with a source file, as its own format's specification or
//! the problems real collections show would have it: located in the file,
//! said in the file's own words.
//!
//! The readers find problems while they read (a plugin refused, a skill or
//! an MCP server skipped, a link that leads nowhere); the importer turns
//! them into notes and failures, and `contrib check` into diagnostics of
//! the rule each [`ProblemKind`] names.

use crate::codes;
use crate::diagnostic::{Diagnostic, Rule, Severity};
use crate::source::Span;

/// What kind of problem, which decides what happens to the source and, for
/// `contrib check`, which rule reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// A plugin manifest violates its format fatally: the plugin is refused.
    InvalidPluginManifest,
    /// A manifest field the format does not define, or one it ignores: the
    /// plugin loads without it.
    IgnoredManifestField,
    /// An MCP configuration the client disables as a whole.
    InvalidMcpConfig,
    /// One MCP server entry the client skips.
    InvalidMcpServer,
    /// A skill the client skips (broken frontmatter, no description, a name
    /// unlike its folder).
    InvalidSkill,
    /// A component location, or a path a manifest names, that is missing
    /// or of the wrong kind.
    MissingPath,
    /// A relative Markdown link that leads to no file of the package.
    BrokenLink,
    /// A file a skill mentions as its own (`scripts/…`) that is not in its
    /// folder: opt-in, since the path is often the person's project's.
    MissingReference,
    /// An invisible character in a text a model reads, raw or escaped.
    InvisibleCharacter,
    /// A fenced shell block in a skill: commands the model may run.
    ShellInSkill,
    /// A hook event its format does not have.
    UnknownHookEvent,
    /// A command's or subagent's frontmatter its agent cannot read.
    InvalidFrontmatter,
    /// A marketplace that breaks its format.
    InvalidMarketplace,
    /// A hooks file or hook entry that breaks its agent's hook schema.
    InvalidHook,
    /// Metadata a catalog expects and the loader does without: opt-in.
    CatalogMetadata,
    /// A file, or rules on it, left out of the check.
    NotChecked,
}

impl ProblemKind {
    /// The rule that reports it.
    pub fn rule(self) -> &'static Rule {
        match self {
            ProblemKind::InvalidPluginManifest => &codes::INVALID_PLUGIN_MANIFEST,
            ProblemKind::IgnoredManifestField => &codes::IGNORED_MANIFEST_FIELD,
            ProblemKind::InvalidMcpConfig => &codes::INVALID_MCP_CONFIG,
            ProblemKind::InvalidMcpServer => &codes::INVALID_MCP_SERVER,
            ProblemKind::InvalidSkill => &codes::INVALID_SKILL,
            ProblemKind::MissingPath => &codes::MISSING_PATH,
            ProblemKind::BrokenLink => &codes::BROKEN_LINK,
            ProblemKind::MissingReference => &codes::MISSING_REFERENCE,
            ProblemKind::InvisibleCharacter => &codes::INVISIBLE_CHARACTER,
            ProblemKind::ShellInSkill => &codes::SHELL_IN_SKILL,
            ProblemKind::UnknownHookEvent => &codes::UNKNOWN_HOOK_EVENT,
            ProblemKind::InvalidFrontmatter => &codes::INVALID_FRONTMATTER,
            ProblemKind::InvalidMarketplace => &codes::INVALID_MARKETPLACE,
            ProblemKind::InvalidHook => &codes::INVALID_HOOK,
            ProblemKind::CatalogMetadata => &codes::CATALOG_METADATA,
            ProblemKind::NotChecked => &codes::NOT_CHECKED,
        }
    }
}

/// One problem, located in its source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file, relative to the source folder.
    pub file: String,
    pub span: Span,
    pub kind: ProblemKind,
    /// One sentence, lowercase, no trailing period.
    pub message: String,
    /// What the underlined text is.
    pub label: String,
    /// How to fix it.
    pub help: String,
    /// How bad it is as the format's own loader classes it: an error where
    /// the loader refuses the plugin or the file breaks what it sits in, a
    /// warning where the plugin loads and only what the problem names is
    /// skipped or ignored. The rule's default level until a reader says.
    pub severity: Severity,
}

impl Problem {
    pub fn new(
        file: &str,
        span: Span,
        kind: ProblemKind,
        message: impl Into<String>,
        label: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        Problem {
            file: file.to_string(),
            span,
            kind,
            message: message.into(),
            label: label.into(),
            help: help.into(),
            severity: kind
                .rule()
                .default_level
                .severity()
                .unwrap_or(Severity::Warning),
        }
    }

    /// The same problem, classed as the plugin loading without what it
    /// names (a skipped skill, an ignored hook): a warning.
    pub fn skipped(self) -> Self {
        Problem {
            severity: Severity::Warning,
            ..self
        }
    }

    /// The same problem, classed as breaking what it sits in: an error.
    pub fn breaking(self) -> Self {
        Problem {
            severity: Severity::Error,
            ..self
        }
    }
}

impl Problem {
    /// The diagnostic `contrib check` reports, located in the source file.
    pub fn diagnostic(&self) -> Diagnostic {
        Diagnostic::new(self.kind.rule(), self.message.clone())
            .with_severity(self.severity)
            .primary(self.span, self.label.clone())
            .help(self.help.clone())
    }
}

/// The span of the value at `path` in a JSON text (`["mcpServers",
/// "api", "url"]`): each key is looked for after the previous one, so a
/// key that appears earlier elsewhere is not taken for it. Falls back to
/// the last key found, or to the start of the file.
pub fn json_span(text: &str, path: &[&str]) -> Span {
    let mut from = 0;
    let mut found = Span::point(0);
    for key in path {
        let Some(span) = json_key(text, key, from) else {
            break;
        };
        found = span;
        from = span.end;
    }
    found
}

/// The span of `"key"` used as an object key at or after `from`.
fn json_key(text: &str, key: &str, from: usize) -> Option<Span> {
    let quoted = serde_json::to_string(key).ok()?;
    let mut start = from;
    while let Some(at) = text.get(start..)?.find(&quoted) {
        let begin = start + at;
        let end = begin + quoted.len();
        let rest = text.get(end..)?.trim_start();
        if rest.starts_with(':') {
            return Some(Span::new(begin, end));
        }
        start = end;
    }
    None
}

/// The span of the first line of a text (for a file-wide problem).
pub fn first_line(text: &str) -> Span {
    let end = text.find('\n').unwrap_or(text.len());
    Span::new(0, text[..end].trim_end_matches('\r').len())
}

/// The span of the frontmatter line `key:` in a Markdown file, or of the
/// first line when the key is absent.
pub fn frontmatter_key(text: &str, key: &str) -> Span {
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        if index > 0 && bare.trim_end() == "---" {
            break;
        }
        if let Some(rest) = bare.strip_prefix(key) {
            if rest.trim_start().starts_with(':') {
                return Span::new(offset, offset + bare.len());
            }
        }
        offset += line.len();
    }
    first_line(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_span_follows_the_path() {
        let text = r#"{"name": "a", "mcpServers": {"api": {"url": "x"}, "name": 1}}"#;
        let span = json_span(text, &["mcpServers", "api", "url"]);
        assert_eq!(&text[span.start..span.end], "\"url\"");
        let span = json_span(text, &["mcpServers", "name"]);
        assert_eq!(span.start, text.rfind("\"name\"").unwrap());
        assert_eq!(json_span(text, &["missing"]), Span::point(0));
    }

    #[test]
    fn frontmatter_key_finds_the_line() {
        let text = "---\nname: a\ndescription: b\n---\nname: body\n";
        let span = frontmatter_key(text, "description");
        assert_eq!(&text[span.start..span.end], "description: b");
        assert_eq!(frontmatter_key(text, "license"), Span::new(0, 3));
    }
}

//! Drafts → manifests: names, budgets, and text already in the canonical
//! layout.
//!
//! The importers describe what a plugin contributes as a [`Draft`]; this
//! module is the only place that writes manifest text, so escaping and
//! layout are decided once:
//!
//! - four spaces per level, one field per line, a blank line before each
//!   contributor, fields in the order owner, placement, priority, reach,
//!   applies, budget, then the kind's own, the body last;
//! - one-line values as `"…"`, multi-line bodies as `"""` blocks indented
//!   four spaces deeper than their field, the closing `"""` on its own line
//!   at the block's depth;
//! - bodies are templates, so literal braces are doubled (`{{`, `}}`);
//!   backslashes, runs of three quotes, carriage returns and control
//!   characters are escaped so that the decoded body is the source text
//!   byte for byte;
//! - every comment line starts with a label or `|`, so no imported text can
//!   turn into a `# contrib: allow(…)` suppression.
//!
//! Budgets are the measured tokens rounded up to the next ten, measured with
//! the workspace's tokenizer on exactly what the checker measures: the text
//! at its variables' worst case, after the framing that precedes a
//! contribution below agent priority.

use std::collections::BTreeMap;

use crate::config::Config;
use crate::ir::{framing_for, ActivationKind, Kind, Owner, Placement, PluginName};
use crate::limits::MAX_STRING_BYTES;

use super::{Manifest, Note, Produced};

mod names;
mod text;

pub use names::{kebab, tool_name, Unique};
use text::{comment, field, note_comment};
pub use text::{quoted, string};

const INDENT: &str = "    ";

/// Budgets are rounded up to a multiple of this, so that a small edit to a
/// text does not change what a person approved.
pub const BUDGET_STEP: u64 = 10;

/// Longest id or name the importer writes; the language allows 200.
const MAX_NAME: usize = 64;

/// A plugin as the importers describe it, before it is written.
#[derive(Debug, Clone)]
pub struct Draft {
    pub scope: String,
    /// Kebab-case.
    pub name: String,
    pub version: semver::Version,
    pub summary: Option<String>,
    /// Comment lines for the top of the file, without `#`.
    pub header: Vec<String>,
    /// Unmapped items of the plugin as a whole, shown under the header.
    pub notes: Vec<Note>,
    /// `requires skill NAME "REQ"`.
    pub requires: Vec<(String, String)>,
    pub contributors: Vec<DraftContributor>,
    /// Every source file read into this plugin.
    pub files: Vec<String>,
    /// Tools the sources name (`allowed-tools`, `tools`), and whether the
    /// workspace declares each.
    pub vocabulary: BTreeMap<String, bool>,
    /// MCP servers the sources declare, kept in the report and the header:
    /// the language has no counterpart for a server.
    pub servers: Vec<super::agent_plugin::Server>,
}

#[derive(Debug, Clone)]
pub struct DraftContributor {
    /// The id wanted; made kebab-case and unique when written.
    pub id: String,
    /// The source file it comes from, relative to the source folder.
    pub source: String,
    /// Comment lines above the contributor, without `#`.
    pub comments: Vec<String>,
    /// Unmapped items of this source file, shown above the contributor.
    pub notes: Vec<Note>,
    /// How widely it is shared, as the source would have it; the emitter
    /// narrows it to what the owner may place (`person` for a person's).
    pub placement: Placement,
    /// When a text applies, written `applies …`; `None` for always.
    pub activation: Option<Activation>,
    pub content: Content,
}

/// When an imported text applies, as its source says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Activation {
    /// A command a person invokes (`/NAME`).
    Command(String),
    /// A skill being invoked.
    Skill(String),
    /// A subagent being delegated to.
    Subagent(String),
    /// Files matching one of these globs in play.
    Files(Vec<String>),
    /// The model asking for it, having read this description.
    Request(String),
}

impl Activation {
    pub fn kind(&self) -> ActivationKind {
        match self {
            Activation::Command(_) => ActivationKind::Command,
            Activation::Skill(_) => ActivationKind::Skill,
            Activation::Subagent(_) => ActivationKind::Subagent,
            Activation::Files(_) => ActivationKind::Files,
            Activation::Request(_) => ActivationKind::Request,
        }
    }

    /// The `applies …` field's value.
    fn written(&self) -> String {
        let list = |globs: &[String]| {
            globs
                .iter()
                .map(|glob| quoted(glob, false))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Activation::Command(name) => format!("on command {name}"),
            Activation::Skill(name) => format!("on skill {name}"),
            Activation::Subagent(name) => format!("on subagent {name}"),
            Activation::Files(globs) => format!("to files [{}]", list(globs)),
            Activation::Request(description) => {
                format!("on request {}", quoted(description, false))
            }
        }
    }
}

#[derive(Debug, Clone)]
pub enum Content {
    /// A `text` with this body (braces not yet doubled), made by the
    /// importer: a listing, a manifest's instructions.
    Text(String),
    /// A `text` whose body is a source file's own text after its
    /// frontmatter, unchanged.
    Body(String),
    /// An `eager-load` of a skill's manifest; the budget is measured on the
    /// skill's body, which is what loading it adds.
    SkillLoad { skill: String, body: String },
    /// An `eager-load` of tools, each with what the source says about it:
    /// the best estimate of its schema until the workspace declares its
    /// `schema_tokens`.
    ToolLoad { tools: Vec<(String, String)> },
    /// An `eager-run` stub: a call with string arguments.
    Run {
        tool: String,
        arguments: Vec<(String, String)>,
    },
}

impl Content {
    fn kind(&self) -> Kind {
        match self {
            Content::Text(_) | Content::Body(_) => Kind::Text,
            Content::SkillLoad { .. } | Content::ToolLoad { .. } => Kind::EagerLoad,
            Content::Run { .. } => Kind::EagerRun,
        }
    }
}

impl Draft {
    pub fn new(scope: &str, name: &str) -> Self {
        Draft {
            scope: scope.to_string(),
            name: kebab(name, "plugin"),
            version: semver::Version::new(0, 0, 0),
            summary: None,
            header: Vec::new(),
            notes: Vec::new(),
            requires: Vec::new(),
            contributors: Vec::new(),
            files: Vec::new(),
            vocabulary: BTreeMap::new(),
            servers: Vec::new(),
        }
    }

    pub fn read(&mut self, file: &str) {
        if !self.files.iter().any(|known| known == file) {
            self.files.push(file.to_string());
        }
    }
}

/// Writes a draft as a manifest at `DIR/scope/name.contrib`.
pub fn emit(draft: &Draft, owner: Owner, config: &Config) -> Manifest {
    let plugin = PluginName {
        scope: draft.scope.clone(),
        name: draft.name.clone(),
    };
    let framing = framing_for(&plugin, owner.highest_priority())
        .map(|framing| framing + "\n")
        .unwrap_or_default();
    let mut out = String::new();
    for line in &draft.header {
        comment(&mut out, 0, line);
    }
    for note in &draft.notes {
        note_comment(&mut out, 0, note);
    }
    out.push_str(&format!("plugin {plugin} {} {{\n", draft.version));
    field(&mut out, 1, &format!("owner {}", owner.as_str()));
    if let Some(summary) = &draft.summary {
        field(
            &mut out,
            1,
            &format!("summary {}", string(summary, 1, false)),
        );
    }
    for (skill, requirement) in &draft.requires {
        field(
            &mut out,
            1,
            &format!("requires skill {skill} {}", quoted(requirement, false)),
        );
    }

    let mut ids = Unique::default();
    let mut produced = Vec::new();
    let mut notes = draft.notes.clone();
    for contributor in &draft.contributors {
        let id = ids.name(&kebab(&contributor.id, "contributor"));
        let tokens = measure(&contributor.content, &framing, config);
        let budget = round_up(tokens);
        out.push('\n');
        for line in &contributor.comments {
            comment(&mut out, 1, line);
        }
        for note in &contributor.notes {
            note_comment(&mut out, 1, note);
        }
        let placement = placement_for(contributor, owner);
        write_contributor(&mut out, &id, contributor, placement, budget);
        notes.extend(contributor.notes.iter().cloned());
        produced.push(Produced {
            id,
            kind: contributor.content.kind(),
            placement,
            activation: contributor
                .activation
                .as_ref()
                .map_or(ActivationKind::Always, Activation::kind),
            tokens,
            budget,
            source: contributor.source.clone(),
            body: match &contributor.content {
                Content::Text(body) | Content::Body(body) => Some(body.clone()),
                _ => None,
            },
            verbatim: matches!(contributor.content, Content::Body(_)),
        });
    }
    out.push_str("}\n");
    Manifest {
        path: format!("{}/{}.contrib", draft.scope, draft.name),
        plugin: plugin.to_string(),
        text: out,
        contributors: produced,
        notes,
        files: draft.files.clone(),
        vocabulary: draft.vocabulary.clone(),
        servers: draft
            .servers
            .iter()
            .map(|server| server.name.clone())
            .collect(),
    }
}

/// The draft's placement, narrowed to the widest its owner may place when
/// the kind allows that placement (a person's text goes at `person`).
fn placement_for(contributor: &DraftContributor, owner: Owner) -> Placement {
    let narrowed = contributor.placement.max(owner.widest_placement());
    if contributor.content.kind().spec().allows_placement(narrowed) {
        narrowed
    } else {
        contributor.placement
    }
}

fn write_contributor(
    out: &mut String,
    id: &str,
    contributor: &DraftContributor,
    placement: Placement,
    budget: u64,
) {
    let kind = contributor.content.kind();
    field(out, 1, &format!("{} {id} {{", kind.as_str()));
    if kind.spec().fixed_placement().is_none() {
        field(out, 2, &format!("placement {}", placement.as_str()));
    }
    if let Some(activation) = &contributor.activation {
        field(out, 2, &format!("applies {}", activation.written()));
    }
    field(out, 2, &format!("budget {budget} tokens"));
    match &contributor.content {
        Content::Text(body) | Content::Body(body) => {
            field(out, 2, &format!("body {}", string(body, 2, true)));
        }
        Content::SkillLoad { skill, .. } => field(out, 2, &format!("skill {skill}")),
        Content::ToolLoad { tools } => {
            let names: Vec<&str> = tools.iter().map(|(name, _)| name.as_str()).collect();
            field(out, 2, &format!("tools [{}]", names.join(", ")));
        }
        Content::Run { tool, arguments } => {
            let arguments: Vec<String> = arguments
                .iter()
                .map(|(key, value)| format!("{key}: {}", quoted(value, false)))
                .collect();
            let call = if arguments.is_empty() {
                format!("call {tool} {{}}")
            } else {
                format!("call {tool} {{ {} }}", arguments.join(", "))
            };
            field(out, 2, &call);
        }
    }
    field(out, 1, "}");
}

/// Whether the contributor's text, written as a string literal, stays
/// within the language's limit on one string.
pub fn fits_string_limit(content: &Content) -> bool {
    match content {
        Content::Text(body) | Content::Body(body) => {
            body.len() <= MAX_STRING_BYTES && string(body, 2, true).len() <= MAX_STRING_BYTES
        }
        _ => true,
    }
}

/// What the contributor adds, in tokens: what the checker will measure,
/// and for tools the workspace does not declare yet, their descriptions.
fn measure(content: &Content, framing: &str, config: &Config) -> u64 {
    let count = |text: &str| config.tokenizer.count(text) as u64;
    let text = match content {
        Content::Text(body) | Content::Body(body) => format!("{framing}{body}"),
        Content::SkillLoad { body, .. } => format!("{framing}{body}"),
        Content::ToolLoad { tools } => {
            let mut tokens = count(framing);
            for (name, described) in tools {
                tokens += match config.tools.get(name) {
                    Some(tool) => tool.schema_tokens,
                    None => count(described),
                };
            }
            return tokens;
        }
        Content::Run { tool, arguments } => {
            let arguments: serde_json::Map<String, serde_json::Value> = arguments
                .iter()
                .map(|(key, value)| (key.clone(), serde_json::Value::String(value.clone())))
                .collect();
            format!("{framing}{tool} {}", serde_json::Value::Object(arguments))
        }
    };
    count(&text)
}

/// The smallest multiple of [`BUDGET_STEP`] that holds `tokens` (and never
/// zero, which the language refuses).
pub fn round_up(tokens: u64) -> u64 {
    tokens.div_ceil(BUDGET_STEP).max(1) * BUDGET_STEP
}

#[cfg(test)]
mod tests {
    use super::text::block_line;
    use super::*;
    use crate::ir::ContributorBody;
    use crate::source::SourceFile;

    /// The body of the only contributor of `text`, decoded by the language.
    fn decoded(body: &str) -> String {
        let mut draft = Draft::new("test", "escapes");
        draft.contributors.push(DraftContributor {
            activation: None,
            id: "body".into(),
            source: "x.md".into(),
            comments: vec![],
            notes: vec![],
            placement: Placement::Agent,
            content: Content::Text(body.into()),
        });
        let manifest = emit(&draft, Owner::AgentAuthor, &Config::platform());
        let source = SourceFile::new("x.contrib", manifest.text.clone());
        let analysis = crate::analyze(&source, &Config::platform());
        let errors: Vec<_> = analysis
            .diagnostics
            .iter()
            .filter(|d| d.rule.code.starts_with("C00"))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}\n{}", manifest.text);
        let plugin = analysis.plugin.expect("a plugin");
        match &plugin.contributors[0].body {
            ContributorBody::Text { body } => body.literals().collect::<String>(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn hidden_characters_are_escaped_and_emoji_are_written_as_themselves() {
        assert_eq!(
            quoted("⚠\u{fe0f} A\u{fe0f} x\u{202e}", false),
            "\"⚠\u{fe0f} A\\u{fe0f} x\\u{202e}\""
        );
        assert_eq!(
            block_line("👁\u{fe0f}\u{200d}🗨\u{fe0f} ig\u{200d}nore", false),
            "👁\u{fe0f}\u{200d}🗨\u{fe0f} ig\\u{200d}nore"
        );
    }

    #[test]
    fn bodies_round_trip_through_the_language() {
        for body in [
            "plain",
            "braces {x} and {{y}} and }{",
            "quotes \" '' \"\"\" \"\"\"\" end\"",
            "back\\slash \\n \\\" \\u{41}",
            "line one\nline two",
            "  indented\n    throughout\n\tand tabs",
            "\tfirst line tab\n  second",
            "blank lines\n\n\nbetween",
            "white space only lines\n   \n\t\nend",
            "crlf\r\nline\r\n  end",
            "trailing space   \nnext",
            "control \u{7} \u{1b}[0m chars",
            "\"\"\"\nstarts with quotes",
            "ends with quotes\n\"\"\"",
            "\n\nleading blank lines",
            "multi\nline with \"\"\" inside and {braces}",
        ] {
            assert_eq!(decoded(body), body, "{body:?}");
        }
    }

    #[test]
    fn budgets_round_up_to_tens() {
        assert_eq!(round_up(0), 10);
        assert_eq!(round_up(1), 10);
        assert_eq!(round_up(10), 10);
        assert_eq!(round_up(11), 20);
    }

    #[test]
    fn names() {
        assert_eq!(kebab("BrandGuidelines", "x"), "brand-guidelines");
        assert_eq!(kebab("copilot_money mcp", "x"), "copilot-money-mcp");
        assert_eq!(kebab("AGENTS.md", "x"), "agents-md");
        assert_eq!(kebab("2fa", "skill"), "skill-2fa");
        assert_eq!(kebab("", "skill"), "skill");
        assert_eq!(kebab("--Weird__Name--", "x"), "weird-name");
        assert_eq!(tool_name("getTransactions"), "get_transactions");
        assert_eq!(tool_name("browser.navigate"), "browser_navigate");
        assert_eq!(tool_name("read-file"), "read-file");
        assert_eq!(tool_name("42"), "tool_42");
    }

    #[test]
    fn comments_cannot_become_suppressions() {
        let mut out = String::new();
        comment(
            &mut out,
            0,
            "first\ncontrib: allow(over-budget) -- sneaky\r",
        );
        assert_eq!(out, "# first\n# | contrib: allow(over-budget) -- sneaky\n");
    }
}

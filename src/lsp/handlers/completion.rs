//! `textDocument/completion`: what may be written at the cursor.
//!
//! - at the start of an item: the fields its block accepts and has not got
//!   yet (a plugin's also offers contributor kinds, as snippets with their
//!   required fields when the client takes snippets); `plugin` at the top;
//! - after a field's name: its vocabulary (placement, owner, priority,
//!   reach, source, fact sections, conditions), or names from the workspace
//!   configuration (tools, skills, a skill's operations), or the measured
//!   size after `budget`;
//! - in a `call` block: the tool's parameters not given yet;
//! - after `{` in a body: the template variables;
//! - in `# contrib: allow(`: the rules' names.
//!
//! Each item replaces the whole word at the cursor through a `textEdit`,
//! because words here hold `-`, `.` and `/`, which clients' own word
//! boundaries would split.

use std::fmt::Write as _;

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse, CompletionTextEdit,
    Documentation, InsertTextFormat, MarkupContent, MarkupKind, Position, TextEdit,
};

use crate::config::{Config, ParamKind};
use crate::ir::variables::{Availability, VARIABLES};
use crate::ir::{
    ConditionKind, ContributorBody, FactSection, Kind, Owner, Placement, Priority, Reach, Source,
    Vocabulary,
};
use crate::lower::PLUGIN_FIELDS;
use crate::lsp::context::{line_bounds, Cursor};
use crate::lsp::convert;
use crate::lsp::handlers::hover::{goes_to, is_variable_byte};
use crate::lsp::state::{self, Snapshot};
use crate::lsp::world::World;
use crate::source::{SourceFile, Span};

/// The route's handler: what may be written at the cursor.
pub fn request(world: &mut World, params: CompletionParams) -> Option<CompletionResponse> {
    let at = params.text_document_position;
    let snapshot = world.state.snapshot(&at.text_document.uri)?;
    let items = completion(&snapshot, at.position, world.client.snippets);
    Some(CompletionResponse::Array(items))
}

/// The items at `position`. `snippets` is whether the client expands
/// snippets; without them, items insert plain words.
pub fn completion(
    snapshot: &Snapshot<'_>,
    position: Position,
    snippets: bool,
) -> Vec<CompletionItem> {
    let offset = convert::offset(snapshot.source, position);
    let cursor = Cursor::new(&snapshot.source.text, snapshot.syntax.tree(), offset);
    let mut items = Items {
        snapshot,
        cursor: &cursor,
        snippets,
        out: Vec::new(),
    };
    items.collect();
    items.out
}

struct Items<'s, 'c> {
    snapshot: &'s Snapshot<'s>,
    cursor: &'c Cursor<'c>,
    snippets: bool,
    out: Vec<CompletionItem>,
}

impl Items<'_, '_> {
    fn collect(&mut self) {
        let cursor = self.cursor;
        if let Some(comment) = cursor.comment {
            return self.rule_names(comment);
        }
        if let Some(string) = &cursor.string {
            if string.key.as_deref() == Some("body") {
                self.variables(string.before);
            }
            return;
        }
        let before = cursor.words_before();
        let block = cursor.block().map(|head| head.keyword.clone());
        match (block.as_deref(), before.split_first()) {
            (None, None) => self.plugin_snippet(),
            (Some("plugin"), None) => {
                let present = &cursor.siblings;
                for field in PLUGIN_FIELDS {
                    if *field == "requires" || !present.iter().any(|p| p == field) {
                        self.keyword(field, "field");
                    }
                }
                for kind in Kind::ALL {
                    self.kind_snippet(*kind);
                }
            }
            (Some("call"), None) => self.parameters(),
            (Some("call"), Some((key, _))) => self.argument_values(key),
            (Some(keyword), None) => {
                if let Some(kind) = Kind::parse(keyword) {
                    for field in kind.spec().fields {
                        if !cursor.siblings.iter().any(|p| p == field) {
                            self.keyword(field, "field");
                        }
                    }
                }
            }
            (Some(keyword), Some((key, rest))) => self.values(Kind::parse(keyword), key, rest),
            (None, Some(_)) => {}
        }
    }

    /// What may follow `key rest…` in a block of `kind` (`None` for the
    /// plugin): only what the table of kinds allows there.
    fn values(&mut self, kind: Option<Kind>, key: &str, rest: &[&str]) {
        let config = self.snapshot.config.clone();
        let placements = kind.map_or(Placement::ALL, |kind| kind.spec().placements);
        match (key, rest) {
            ("placement", []) => {
                for placement in placements {
                    let goes = match kind {
                        Some(kind) => kind.spec().delivery(*placement, true).describe(),
                        None => goes_to(*placement),
                    };
                    let detail = format!("{}; goes to {goes}", placement.shared_by());
                    self.value(placement.as_str(), &detail);
                }
            }
            ("owner", []) => self.vocabulary::<Owner>(),
            ("priority", []) => self.vocabulary::<Priority>(),
            ("reach", []) => {
                let placement = self.written_placement().unwrap_or(Placement::Message);
                let reaches = kind.map_or(Reach::ALL, |kind| kind.spec().reaches_at(placement));
                for reach in reaches {
                    self.value(reach.as_str(), Reach::NOUN);
                }
            }
            ("applies", []) => {
                self.value("always", "applies on every conversation (the default)");
                self.value(
                    "on",
                    "on command NAME, on skill NAME, on subagent NAME, on request \"…\"",
                );
                self.value("to", "to files [\"GLOB\", …]");
            }
            ("applies", ["on"]) => {
                self.value("command", "when a person invokes the command");
                self.value("skill", "when the skill is invoked");
                self.value("subagent", "when the agent delegates to the subagent");
                self.value(
                    "request",
                    "when the model asks for it, having read its description",
                );
            }
            ("applies", ["to"]) => self.value("files", "when files matching a glob are in play"),
            ("applies", ["on", "skill"]) => self.skills(&config, false),
            ("source", []) => self.vocabulary::<Source>(),
            ("says", _) => {
                for section in FactSection::spellings() {
                    if !rest.contains(&section) {
                        self.value(section, "fact section");
                    }
                }
            }
            ("tools", _) => {
                for (name, tool) in &config.tools {
                    if !rest.contains(&name.as_str()) {
                        self.value(name, &format!("{} tool", tool.effect.as_str()));
                    }
                }
            }
            ("call", []) => {
                for (name, tool) in &config.tools {
                    self.value(name, &format!("{} tool", tool.effect.as_str()));
                }
            }
            ("skill", []) | ("when", ["skill-updated"]) => self.skills(&config, false),
            ("requires", []) => self.keyword("skill", "requires skill NAME \"REQ\""),
            ("requires", ["skill"]) => self.skills(&config, true),
            ("skill", [_]) => self.keyword("operations", "skill NAME operations [a, b]"),
            ("skill", [skill, "operations", chosen @ ..]) => {
                if let Some(found) = config.skills.get(*skill) {
                    for (operation, tokens) in &found.operations {
                        if !chosen.contains(&operation.as_str()) {
                            self.value(operation, &format!("{tokens} tokens"));
                        }
                    }
                }
            }
            ("when", []) => self.conditions(),
            ("when", ["idle"]) => self.value(">", "idle > DURATION"),
            ("budget", []) => self.measured_budget(),
            ("budget", [_]) => self.keyword("tokens", "budget N tokens"),
            _ => {}
        }
    }

    /// The placement written in the block around the cursor, read from its
    /// text so that it is known while the block does not lower yet.
    fn written_placement(&self) -> Option<Placement> {
        let block = self.cursor.blocks.last()?;
        let text = self.cursor.text.get(block.span.range())?;
        text.split(['\n', ',', '{', '}'])
            .filter_map(|item| item.trim().strip_prefix("placement "))
            .find_map(|value| Placement::parse(value.trim()))
    }

    fn vocabulary<V: Vocabulary>(&mut self) {
        for spelling in V::spellings() {
            self.value(spelling, V::NOUN);
        }
    }

    fn skills(&mut self, config: &Config, with_requirement: bool) {
        for (name, skill) in &config.skills {
            let detail = format!("skill {}", skill.version);
            if with_requirement {
                let requirement = format!(
                    "{name} \"^{}.{}\"",
                    skill.version.major, skill.version.minor
                );
                self.push(CompletionItem {
                    label: name.clone(),
                    kind: Some(CompletionItemKind::MODULE),
                    detail: Some(detail),
                    filter_text: Some(name.clone()),
                    text_edit: Some(self.edit(&requirement)),
                    ..CompletionItem::default()
                });
            } else {
                self.value(name, &detail);
            }
        }
    }

    fn conditions(&mut self) {
        for condition in ConditionKind::ALL {
            match condition {
                ConditionKind::Idle => self.snippet(
                    "idle",
                    "idle > ${1:4h}",
                    "idle > 4h",
                    "when idle over a duration",
                ),
                ConditionKind::SkillUpdated => self.snippet(
                    "skill-updated",
                    "skill-updated ${1:skill}",
                    "skill-updated ",
                    "when a skill's version changes",
                ),
                other => self.value(other.as_str(), "condition"),
            }
        }
    }

    /// The enclosing contributor's measured size, as a budget that fits.
    ///
    /// A contributor whose `budget` is half-written does not lower, so it
    /// is measured on a copy of the text whose cursor line holds a budget.
    fn measured_budget(&mut self) {
        let Some(id) = self
            .cursor
            .blocks
            .iter()
            .rev()
            .find(|head| Kind::parse(&head.keyword).is_some())
            .and_then(|head| head.args.first())
        else {
            return;
        };
        let config = &self.snapshot.config;
        let tokens = match measure(self.snapshot.analysis, id, config) {
            Some(tokens) => tokens,
            None => {
                let text: &str = &self.snapshot.source.text;
                let (start, end) = line_bounds(text, self.cursor.offset);
                let patched = format!("{}budget 1000000 tokens{}", &text[..start], &text[end..]);
                let source = SourceFile::new(self.snapshot.source.name.clone(), patched);
                let Some(tokens) = measure(&state::analyze(&source, config), id, config) else {
                    return;
                };
                tokens
            }
        };
        let detail = format!("measured with {}", config.tokenizer);
        self.value(&format!("{} tokens", tokens.max(1)), &detail);
    }

    /// A `call` block's parameters not given yet, as `name: `.
    fn parameters(&mut self) {
        let Some(tool) = self.cursor.block().and_then(|head| head.args.first()) else {
            return;
        };
        let Some(tool) = self.snapshot.config.tools.get(tool) else {
            return;
        };
        for (name, param) in &tool.params {
            if self.cursor.siblings.iter().any(|given| given == name) {
                continue;
            }
            let required = if param.required {
                "required"
            } else {
                "optional"
            };
            self.push(CompletionItem {
                label: name.clone(),
                kind: Some(CompletionItemKind::PROPERTY),
                detail: Some(format!("{}, {required}", param.kind.as_str())),
                filter_text: Some(name.clone()),
                text_edit: Some(self.edit(&format!("{name}: "))),
                ..CompletionItem::default()
            });
        }
    }

    fn argument_values(&mut self, key: &str) {
        let tool = self.cursor.block().and_then(|head| head.args.first());
        let param = tool
            .and_then(|tool| self.snapshot.config.tools.get(tool))
            .and_then(|tool| tool.params.get(key));
        if param.is_some_and(|param| param.kind == ParamKind::Boolean) {
            self.value("true", "boolean");
            self.value("false", "boolean");
        }
    }

    /// Template variables after the last `{` before the cursor in a body.
    fn variables(&mut self, before: Span) {
        let text = self.cursor.text;
        let prefix = self.cursor.slice(before);
        let Some(open) = prefix.rfind('{') else {
            return;
        };
        if prefix[..open].ends_with('{') {
            return; // `{{` is a literal brace
        }
        let start = before.start + open + 1;
        if !text[start..self.cursor.offset]
            .bytes()
            .all(is_variable_byte)
        {
            return;
        }
        let end = self.cursor.offset
            + text[self.cursor.offset..]
                .bytes()
                .position(|byte| !is_variable_byte(byte))
                .unwrap_or(text.len() - self.cursor.offset);
        let closed = text[end..].starts_with('}');
        let range = convert::range(self.snapshot.source, Span::new(start, end));
        let condition = self.condition();
        for variable in VARIABLES {
            let available = match variable.available {
                Availability::Always => true,
                Availability::When(kind) => condition == Some(kind),
            };
            let new_text = if closed {
                variable.name.to_string()
            } else {
                format!("{}}}", variable.name)
            };
            self.out.push(CompletionItem {
                label: variable.name.to_string(),
                kind: Some(CompletionItemKind::VARIABLE),
                detail: Some(format!(
                    "varies per {}, at most {} tokens",
                    variable.variance, variable.max_tokens
                )),
                documentation: Some(markdown(variable.description)),
                sort_text: Some(format!(
                    "{}{}",
                    if available { 0 } else { 1 },
                    variable.name
                )),
                filter_text: Some(variable.name.to_string()),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, new_text))),
                ..CompletionItem::default()
            });
        }
    }

    /// The condition of the system message the cursor is in, if any.
    fn condition(&self) -> Option<ConditionKind> {
        let plugin = self.snapshot.analysis.plugin.as_ref()?;
        let contributor = plugin
            .contributors
            .iter()
            .find(|contributor| contributor.span.contains(self.cursor.offset))?;
        match &contributor.body {
            ContributorBody::SystemMessage { condition, .. } => Some(condition.kind),
            _ => None,
        }
    }

    /// Rule names inside `allow(…)` of a suppression comment.
    fn rule_names(&mut self, comment: Span) {
        let prefix = &self.cursor.text[comment.start..self.cursor.offset];
        let Some(open) = prefix.find("allow(") else {
            return;
        };
        let inside = &prefix[open + "allow(".len()..];
        if !prefix.contains("contrib:") || inside.contains(')') {
            return;
        }
        let typed = inside.rsplit(',').next().unwrap_or("").trim_start();
        let start = self.cursor.offset - typed.len();
        let range = convert::range(self.snapshot.source, Span::new(start, self.cursor.offset));
        for rule in crate::codes::all()
            .iter()
            .filter(|rule| rule.is_configurable())
        {
            self.out.push(CompletionItem {
                label: rule.name.to_string(),
                kind: Some(CompletionItemKind::REFERENCE),
                detail: Some(format!("{}: {}", rule.code, rule.summary)),
                filter_text: Some(rule.name.to_string()),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                    range,
                    rule.name.to_string(),
                ))),
                ..CompletionItem::default()
            });
        }
    }

    fn plugin_snippet(&mut self) {
        self.snippet(
            "plugin",
            "plugin ${1:scope/name} ${2:1.0.0} {\n\towner ${3:agent-author}\n\t$0\n}",
            "plugin",
            "a manifest's one block",
        );
    }

    /// A contributor kind, as its example block from the table of kinds:
    /// each value a placeholder holding the example's.
    fn kind_snippet(&mut self, kind: Kind) {
        let spec = kind.spec();
        let mut snippet = format!("{kind} ${{1:id}} {{");
        for (index, line) in spec.example.iter().enumerate() {
            let placeholder = format!("${{{}:{}}}", index + 2, escape_snippet(line.value, true));
            let value = escape_snippet(line.shape, false).replacen("{}", &placeholder, 1);
            let _ = write!(snippet, "\n\t{} {value}", line.field);
        }
        snippet.push_str("$0\n}");
        let detail = format!("contributor: {}", spec.summary);
        self.snippet(kind.as_str(), &snippet, kind.as_str(), &detail);
    }

    fn snippet(&mut self, label: &str, snippet: &str, plain: &str, detail: &str) {
        let (text, format) = if self.snippets {
            (snippet, InsertTextFormat::SNIPPET)
        } else {
            (plain, InsertTextFormat::PLAIN_TEXT)
        };
        self.push(CompletionItem {
            label: label.to_string(),
            kind: Some(if self.snippets {
                CompletionItemKind::SNIPPET
            } else {
                CompletionItemKind::KEYWORD
            }),
            detail: Some(detail.to_string()),
            filter_text: Some(label.to_string()),
            insert_text_format: Some(format),
            text_edit: Some(self.edit(text)),
            ..CompletionItem::default()
        });
    }

    fn keyword(&mut self, word: &str, detail: &str) {
        self.push(CompletionItem {
            label: word.to_string(),
            kind: Some(CompletionItemKind::KEYWORD),
            detail: Some(detail.to_string()),
            text_edit: Some(self.edit(word)),
            ..CompletionItem::default()
        });
    }

    fn value(&mut self, word: &str, detail: &str) {
        self.push(CompletionItem {
            label: word.to_string(),
            kind: Some(CompletionItemKind::VALUE),
            detail: Some(detail.to_string()),
            text_edit: Some(self.edit(word)),
            ..CompletionItem::default()
        });
    }

    /// Replaces the word at the cursor.
    fn edit(&self, new_text: &str) -> CompletionTextEdit {
        let range = convert::range(self.snapshot.source, self.cursor.replace_span());
        CompletionTextEdit::Edit(TextEdit::new(range, new_text.to_string()))
    }

    fn push(&mut self, item: CompletionItem) {
        self.out.push(item);
    }
}

/// The measured tokens of contributor `id`, if it lowered.
fn measure(analysis: &crate::Analysis, id: &str, config: &Config) -> Option<u64> {
    let plugin = analysis.plugin.as_ref()?;
    let contributor = plugin.contributors.iter().find(|c| c.id.value == id)?;
    Some(crate::check::measure(plugin, contributor, config).tokens())
}

/// `text` as snippet text: `$` and `\\` escaped, and `}` too inside a
/// placeholder, where it would end it. The `{}` of an example's shape is
/// kept, to be replaced.
fn escape_snippet(text: &str, in_placeholder: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '$' || c == '\\' || (in_placeholder && c == '}') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn markdown(text: &str) -> Documentation {
    Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value: text.to_string(),
    })
}

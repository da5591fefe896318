//! Syntax tree → typed IR.
//!
//! The grammar accepts any names and loose tokens; lowering gives them
//! meaning and reports, in the manifest's own words, everything that does
//! not fit: unknown or duplicate fields, missing ones, values outside their
//! vocabulary, malformed versions, names, durations, escapes and templates.
//! It reports every such error in the file, not only the first, and keeps
//! out of the IR any contributor that had one, so that the checker reasons
//! only about contributors that mean what they say.

mod activation;
mod authority;
mod call;
mod choose;
mod condition;
mod contributor;
mod fields;
mod lists;
mod placement;
mod plugin;
pub mod strings;
mod template;
mod values;

use std::cell::Cell;

/// Whether a glob is one `applies to files` accepts, for importers that
/// must write only what the language reads back.
pub use activation::{validate_glob, NotAGlob};
pub use condition::parse_duration;
/// The field names lowering accepts, for completion in the language server.
pub use plugin::PLUGIN_FIELDS;

use crate::codes::{SYNTAX_ERROR, UNKNOWN_FIELD};
use crate::diagnostic::Diagnostic;
use crate::ir::{Kind, Plugin};
use crate::source::Span;
use crate::suggest;
use crate::syntax::tree::{Block, File, Item};

/// What lowering makes of a file: the plugin, if there is one to speak of,
/// and every diagnostic found on the way.
#[derive(Debug, Default)]
pub struct Lowered {
    pub plugin: Option<Plugin>,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn lower(file: &File<'_>) -> Lowered {
    let mut lowerer = Lowerer {
        text: file.source,
        diagnostics: Vec::new(),
        counted: Cell::default(),
    };
    let plugin = lowerer.file(file);
    if !file.ends_inside_string {
        lowerer.report_unclosed_blocks(&file.items);
    }
    Lowered {
        plugin,
        diagnostics: lowerer.diagnostics,
    }
}

struct Lowerer<'s> {
    /// The source, for fixes that remove whole lines.
    text: &'s str,
    diagnostics: Vec<Diagnostic>,
    /// How many of `diagnostics` have been counted, and how many of those
    /// were errors. `error_count` is asked before and after every
    /// contributor, call and body; counting only what is new keeps a file
    /// with many errors linear instead of quadratic.
    counted: Cell<(usize, usize)>,
}

impl Lowerer<'_> {
    fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// The span that removing the item at `span` should delete: its line
    /// with its line break when it stands alone on it, else the item with
    /// the comma and spaces that separate it from its neighbour.
    fn removal(&self, span: Span) -> Span {
        let text = self.text;
        let before = &text[..span.start.min(text.len())];
        let line_start = before.rfind(['\n', '\r']).map_or(0, |at| at + 1);
        let after = &text[span.end.min(text.len())..];
        let spaces_after = after.len() - after.trim_start_matches([' ', '\t']).len();
        let rest = &after[spaces_after..];
        if let Some(stripped) = rest.strip_prefix(',') {
            let more = stripped.len() - stripped.trim_start_matches([' ', '\t']).len();
            return Span::new(span.start, span.end + spaces_after + 1 + more);
        }
        let alone = before[line_start..].trim_matches([' ', '\t']).is_empty();
        let line_end = if rest.starts_with("\r\n") {
            Some(2)
        } else if rest.starts_with(['\n', '\r']) {
            Some(1)
        } else {
            None
        };
        match line_end {
            Some(break_len) if alone => Span::new(line_start, span.end + spaces_after + break_len),
            _ => {
                let trimmed = before.trim_end_matches([' ', '\t']);
                match trimmed.strip_suffix(',') {
                    Some(kept) => Span::new(kept.len(), span.end),
                    None => span,
                }
            }
        }
    }

    /// Diagnostics are only ever appended, so the errors among those
    /// already counted stay counted.
    fn error_count(&self) -> usize {
        let (seen, errors) = self.counted.get();
        let new = self.diagnostics.get(seen..).unwrap_or_default();
        let errors = errors + new.iter().filter(|d| d.is_error()).count();
        self.counted.set((self.diagnostics.len(), errors));
        errors
    }

    fn file(&mut self, file: &File<'_>) -> Option<Plugin> {
        let mut plugin = None;
        let mut first_plugin: Option<Span> = None;
        let errors_before = self.error_count();
        for item in &file.items {
            match item {
                Item::Block(block) if block.keyword.text == "plugin" => {
                    if let Some(first) = first_plugin {
                        self.report(
                            Diagnostic::new(&SYNTAX_ERROR, "a file declares one plugin")
                                .primary(block.keyword.span, "a second plugin")
                                .secondary(first, "the first plugin")
                                .help("move this plugin into a file of its own"),
                        );
                    } else {
                        first_plugin = Some(block.keyword.span);
                        plugin = self.plugin(block);
                    }
                }
                Item::Block(block) => self.top_level_block(block),
                other => self.report(
                    Diagnostic::new(
                        &SYNTAX_ERROR,
                        format!("`{}` is outside the plugin block", other.keyword().text),
                    )
                    .primary(other.span(), "outside any plugin")
                    .help("fields go inside `plugin scope/name VERSION { … }`"),
                ),
            }
        }
        // A misspelt `plugin` or a stray field already says what is wrong.
        if first_plugin.is_none() && self.error_count() == errors_before {
            let at = file.bom.map_or(0, |bom| bom.end);
            self.report(
                Diagnostic::new(&SYNTAX_ERROR, "the file declares no plugin")
                    .primary(Span::point(at), "expected `plugin` here")
                    .help("a manifest is one block: `plugin scope/name 1.0.0 { … }`"),
            );
        }
        plugin
    }

    fn top_level_block(&mut self, block: &Block<'_>) {
        let keyword = block.keyword.text;
        if Kind::parse(keyword).is_some() {
            self.report(
                Diagnostic::new(
                    &SYNTAX_ERROR,
                    format!("the `{keyword}` contributor is outside the plugin block"),
                )
                .primary(block.keyword.span, "outside any plugin")
                .help("contributors go inside `plugin scope/name VERSION { … }`"),
            );
            return;
        }
        let mut diagnostic = Diagnostic::new(&UNKNOWN_FIELD, format!("unknown block `{keyword}`"))
            .primary(block.keyword.span, "not a block the language has");
        diagnostic = match suggest::closest(keyword, ["plugin"]) {
            Some(suggestion) => diagnostic.suggest(block.keyword.span, suggestion),
            None => diagnostic.help("a manifest is one block: `plugin scope/name 1.0.0 { … }`"),
        };
        self.report(diagnostic);
    }

    /// Reports every block whose `}` never came. Skipped when the file ends
    /// inside a `"""` block, whose own error explains the missing braces.
    fn report_unclosed_blocks(&mut self, items: &[Item<'_>]) {
        for item in items {
            if let Item::Block(block) = item {
                // Its syntax error, already reported, explains the braces.
                if block.damaged {
                    continue;
                }
                if block.close.is_none() {
                    self.report(crate::syntax::unclosed(block));
                }
                self.report_unclosed_blocks(&block.items);
            }
        }
    }
}

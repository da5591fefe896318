//! Gathers a block's fields by name, reporting unknown and duplicate ones,
//! so each kind's lowering asks for the fields it knows and nothing else.

use std::collections::HashSet;

use indexmap::IndexMap;

use super::lists::Unbracketed;
use super::Lowerer;
use crate::codes::{DUPLICATE_FIELD, MISSING_FIELD, SYNTAX_ERROR, UNKNOWN_FIELD};
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::source::Span;
use crate::suggest;
use crate::syntax::tree::{Block, Field, Item, Pair};

/// A field as written: `name tokens…`, or a block for `call`.
#[derive(Clone, Copy)]
pub(super) enum Entry<'t, 'a> {
    Field(&'t Field<'a>),
    Block(&'t Block<'a>),
}

impl Entry<'_, '_> {
    pub(super) fn key_span(&self) -> Span {
        match self {
            Entry::Field(field) => field.key.span,
            Entry::Block(block) => block.keyword.span,
        }
    }
}

/// The fields of one block, by name.
pub(super) struct Fields<'t, 'a> {
    entries: IndexMap<&'a str, Entry<'t, 'a>>,
    /// Where the block starts, for "missing field" labels.
    header: Span,
    /// How the block is named in messages: "this `text` contributor".
    owner: String,
    /// Fields the author wrote in a form that could not be read (misspelt,
    /// or with a colon), already reported: their absence is not reported
    /// again, so that one slip makes one diagnostic.
    attempted: HashSet<&'static str>,
    /// Whether the block lost part of its text to a syntax error: a field
    /// missing from it may have been in that part.
    damaged: bool,
}

impl<'t, 'a> Fields<'t, 'a> {
    /// Takes a field or a block by name, as written.
    pub(super) fn take(&mut self, name: &str) -> Option<Entry<'t, 'a>> {
        self.entries.shift_remove(name)
    }

    /// Takes a one-line field the block may do without.
    pub(super) fn optional(&mut self, lowerer: &mut Lowerer, name: &str) -> Option<&'t Field<'a>> {
        match self.take(name)? {
            Entry::Field(field) => Some(field),
            Entry::Block(block) => {
                lowerer.report(
                    Diagnostic::new(
                        &SYNTAX_ERROR,
                        format!("`{name}` takes a value, not a block"),
                    )
                    .primary(block.open, "a block is not allowed here")
                    .help(format!("write `{name} value` on one line")),
                );
                None
            }
        }
    }

    /// Takes a one-line field the block cannot do without, reporting its
    /// absence with an example of what to write.
    pub(super) fn required(
        &mut self,
        lowerer: &mut Lowerer,
        name: &str,
        example: &str,
    ) -> Option<&'t Field<'a>> {
        if !self.entries.contains_key(name) {
            if let Some(missing) = self.missing(name, example) {
                lowerer.report(missing);
            }
            return None;
        }
        self.optional(lowerer, name)
    }

    /// The diagnostic for a required field that is absent, or `None` when
    /// the author wrote it in a form already reported.
    pub(super) fn missing(&self, name: &str, example: &str) -> Option<Diagnostic> {
        if self.was_attempted(name) {
            return None;
        }
        let diagnostic = Diagnostic::new(&MISSING_FIELD, format!("{} has no `{name}`", self.owner))
            .primary(self.header, format!("`{name}` is required here"))
            .help(format!("add a line such as `{example}`"));
        Some(diagnostic)
    }

    /// Whether the author wrote `name` in a form already reported, such as
    /// `budgte 10 tokens` or `placement: agent`.
    pub(super) fn was_attempted(&self, name: &str) -> bool {
        self.damaged || self.attempted.contains(name)
    }

    /// Treats every field as attempted: the block lost part of its text to
    /// a syntax error, already reported, and what is missing may be there.
    pub(super) fn mark_damaged(&mut self, damaged: bool) {
        self.damaged = damaged;
    }

    pub(super) fn header(&self) -> Span {
        self.header
    }

    /// How the block is named in messages: "the `text` contributor `voice`".
    pub(super) fn name(&self) -> &str {
        &self.owner
    }
}

/// What a block says about a field it does not take: a diagnostic more
/// precise than "unknown field" when the name is a field elsewhere (the
/// removal span of the item is given for its fix), or `None`.
pub(super) type NotHere<'f> = &'f dyn Fn(&str, Span, Span) -> Option<Diagnostic>;

impl Lowerer<'_> {
    /// Collects the fields of `items`, reporting every field not in
    /// `allowed` (with a suggestion, or what `not_here` says of it), every
    /// duplicate, every `name: value` pair, every nested block other than
    /// `call`, and every list written without brackets.
    pub(super) fn fields<'t, 'a>(
        &mut self,
        items: &'t [Item<'a>],
        allowed: &[&'static str],
        header: Span,
        owner: String,
        not_here: NotHere<'_>,
    ) -> Fields<'t, 'a> {
        let mut entries: IndexMap<&'a str, Entry<'t, 'a>> = IndexMap::new();
        let mut attempted = HashSet::new();
        let unbracketed = self.unbracketed_lists(items);
        for (index, item) in items.iter().enumerate() {
            match unbracketed.get(&index) {
                Some(Unbracketed::Field(name)) => {
                    attempted.extend(allowed.iter().find(|allowed| *allowed == name));
                    continue;
                }
                Some(Unbracketed::Word) => continue,
                None => {}
            }
            let entry = match item {
                Item::Field(field) => Entry::Field(field),
                // `call { … }`, or a field written as a block, which is
                // reported when the field is read.
                Item::Block(block)
                    if block.keyword.text == "call" || allowed.contains(&block.keyword.text) =>
                {
                    Entry::Block(block)
                }
                Item::Block(block) => {
                    self.nested_block(block, &owner);
                    continue;
                }
                Item::Pair(pair) => {
                    self.report(colon_after_field(pair));
                    attempted.extend(allowed.iter().find(|name| **name == pair.key.text));
                    continue;
                }
            };
            let key = item.keyword();
            if !allowed.contains(&key.text) {
                if let Some(diagnostic) = not_here(key.text, key.span, self.removal(item.span())) {
                    self.report(diagnostic);
                    continue;
                }
                let suggestion = suggest::closest(key.text, allowed.iter().copied());
                attempted.extend(suggestion);
                self.report(unknown_field(
                    key.text, key.span, suggestion, allowed, &owner,
                ));
                continue;
            }
            if let Some(first) = entries.get(key.text) {
                self.report(
                    Diagnostic::new(
                        &DUPLICATE_FIELD,
                        format!("`{}` is given twice in {owner}", key.text),
                    )
                    .primary(key.span, "given again here")
                    .secondary(first.key_span(), "first given here")
                    .help("keep one of them"),
                );
                continue;
            }
            entries.insert(key.text, entry);
        }
        Fields {
            entries,
            header,
            owner,
            attempted,
            damaged: false,
        }
    }

    fn nested_block(&mut self, block: &Block<'_>, owner: &str) {
        let diagnostic = Diagnostic::new(
            &SYNTAX_ERROR,
            format!(
                "`{}` blocks cannot be nested in {owner}",
                block.keyword.text
            ),
        )
        .primary(block.keyword.span, "a nested block")
        .help("contributors go directly inside the plugin block, and only `call` takes `{ … }`");
        self.report(diagnostic);
    }
}

fn colon_after_field(pair: &Pair<'_>) -> Diagnostic {
    Diagnostic::new(
        &SYNTAX_ERROR,
        format!(
            "`{}:` is written with a colon, but fields take none",
            pair.key.text
        ),
    )
    .primary(pair.colon, "remove this colon")
    .help("fields are written `name value`; only call arguments are written `name: value`")
    .fix(Fix::replace(
        "Remove the colon",
        Applicability::Safe,
        pair.colon,
        "",
    ))
}

fn unknown_field(
    name: &str,
    span: Span,
    suggestion: Option<&str>,
    allowed: &[&'static str],
    owner: &str,
) -> Diagnostic {
    let diagnostic = Diagnostic::new(&UNKNOWN_FIELD, format!("unknown field `{name}` in {owner}"))
        .primary(span, "not a field here");
    if let Some(suggestion) = suggestion {
        return diagnostic.suggest(span, suggestion);
    }
    let fields = suggest::list(allowed.iter().copied());
    diagnostic.help(format!("the fields here are {fields}"))
}

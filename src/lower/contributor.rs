//! `kind id { … }`: one contributor, its common fields and its kind's own.

use super::fields::{Entry, Fields};
use super::values::{extra_tokens, no_value};
use super::Lowerer;
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::ir::{
    Contributor, ContributorBody, FactSection, Kind, Owner, Placement, Priority, Reach, Setting,
    SkillLoad, Source,
};
use crate::rules::language::{INVALID_VALUE, MISSING_BUDGET, MISSING_FIELD, SYNTAX_ERROR};
use crate::source::{Span, Spanned};
use crate::suggest;
use crate::syntax::tree::{Block, Field, Token};

/// The fields a contributor of `kind` accepts, common ones first.
pub fn fields_of(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Text => &["owner", "placement", "priority", "reach", "budget", "body"],
        Kind::EagerLoad => &[
            "owner",
            "placement",
            "priority",
            "reach",
            "budget",
            "tools",
            "skill",
        ],
        Kind::EagerRun => &["owner", "placement", "priority", "reach", "budget", "call"],
        Kind::SystemMessage => &[
            "owner",
            "placement",
            "priority",
            "reach",
            "budget",
            "when",
            "body",
        ],
        Kind::Preface => &[
            "owner",
            "placement",
            "priority",
            "reach",
            "budget",
            "source",
            "origin",
            "call",
        ],
        Kind::Fact => &["owner", "placement", "priority", "reach", "budget", "says"],
    }
}

/// The kinds that accept `field`, for help on a field in the wrong place.
fn kinds_with_field(field: &str) -> Option<String> {
    let kinds: Vec<&str> = Kind::ALL
        .iter()
        .filter(|kind| fields_of(**kind).contains(&field))
        .map(|kind| kind.as_str())
        .collect();
    match kinds.as_slice() {
        [] => None,
        [one] => Some(format!("`{one}` contributors")),
        _ => Some(format!("{} contributors", suggest::list(kinds))),
    }
}

impl Lowerer {
    pub(super) fn contributor(
        &mut self,
        block: &Block<'_>,
        kind: Kind,
        plugin_owner: Option<Owner>,
    ) -> Option<Contributor> {
        let errors_before = self.error_count();
        let header = block.keyword.span.to(block.open);
        let id = self.contributor_id(block, kind);
        let name = match &id {
            Some(id) => format!("the `{kind}` contributor `{}`", id.value),
            None => format!("this `{kind}` contributor"),
        };
        let mut fields = self.fields(
            &block.items,
            fields_of(kind),
            header,
            name,
            &kinds_with_field,
        );

        let owner = self.setting::<Owner>(
            &mut fields,
            "owner",
            plugin_owner.unwrap_or(Owner::AgentAuthor),
        );
        let placement = match fields.optional(self, "placement") {
            Some(field) => self
                .vocabulary::<Placement>(field)
                .map(|p| Setting::written(p.value, p.span)),
            None => match kind.default_placement() {
                Some(placement) => Some(Setting::default(placement)),
                None => {
                    if let Some(missing) = fields.missing("placement", "placement agent") {
                        self.report(missing);
                    }
                    None
                }
            },
        };
        let priority =
            self.setting::<Priority>(&mut fields, "priority", owner.value.highest_priority());
        let reach = self.setting::<Reach>(&mut fields, "reach", Reach::EveryTurn);
        let budget = self.budget(&mut fields);
        let body = self.contributor_body(kind, &mut fields);

        if self.error_count() > errors_before {
            return None;
        }
        Some(Contributor {
            id: id?,
            body: body?,
            owner,
            placement: placement?,
            priority,
            reach,
            budget: budget?,
            header,
            span: block.span,
        })
    }

    fn contributor_id(&mut self, block: &Block<'_>, kind: Kind) -> Option<Spanned<String>> {
        match block.args.as_slice() {
            [id] => self.identifier(*id, "contributor id"),
            [] => {
                self.report(
                    Diagnostic::new(
                        &MISSING_FIELD,
                        format!("this `{kind}` contributor has no id"),
                    )
                    .primary(
                        block.keyword.span.to(block.open),
                        "expected an id before `{`",
                    )
                    .help(format!("name it: `{kind} my-id {{`")),
                );
                None
            }
            [id, extra @ ..] => {
                let span = extra
                    .iter()
                    .map(|word| word.span)
                    .fold(extra[0].span, Span::to);
                self.report(
                    Diagnostic::new(
                        &SYNTAX_ERROR,
                        format!(
                            "a contributor has one id, but `{}` is followed by more",
                            id.text
                        ),
                    )
                    .primary(span, "unexpected")
                    .help(format!("write `{kind} id {{` with a kebab-case id")),
                );
                None
            }
        }
    }

    /// A vocabulary field that falls back to `default` when left out. A
    /// misspelt value is reported and the default stands in, so that the
    /// contributor's other fields are still checked.
    fn setting<T: crate::ir::Vocabulary>(
        &mut self,
        fields: &mut Fields<'_, '_>,
        name: &str,
        default: T,
    ) -> Setting<T> {
        match fields
            .optional(self, name)
            .and_then(|field| self.vocabulary::<T>(field))
        {
            Some(value) => Setting::written(value.value, value.span),
            None => Setting::default(default),
        }
    }

    /// `budget N tokens`.
    fn budget(&mut self, fields: &mut Fields<'_, '_>) -> Option<Spanned<u64>> {
        let Some(entry) = fields.take("budget") else {
            if fields.was_attempted("budget") {
                return None;
            }
            self.report(
                Diagnostic::new(&MISSING_BUDGET, format!("{} declares no budget", fields.name()))
                    .primary(fields.header(), "no `budget` in this contributor")
                    .help("add `budget N tokens`: the most this contributor may add, which a person approves"),
            );
            return None;
        };
        let field = match entry {
            Entry::Field(field) => field,
            Entry::Block(block) => {
                self.report(
                    Diagnostic::new(&SYNTAX_ERROR, "`budget` takes a value, not a block")
                        .primary(block.open, "a block is not allowed here")
                        .help("write `budget N tokens` on one line"),
                );
                return None;
            }
        };
        let (number, unit) = match field.tokens.as_slice() {
            [Token::Word(number), Token::Word(unit)] => (number, Some(unit)),
            [Token::Word(number)] => (number, None),
            [Token::Word(_), Token::Word(unit), extra, ..] if unit.text == "tokens" => {
                self.report(extra_tokens(field, extra.span(), "`N tokens`"));
                return None;
            }
            [] => {
                self.report(
                    no_value(field, "a number of tokens").help("write `budget 120 tokens`"),
                );
                return None;
            }
            [first, ..] => {
                self.report(
                    Diagnostic::new(&INVALID_VALUE, "`budget` takes `N tokens`")
                        .primary(
                            Span::new(first.span().start, field.span.end),
                            "expected `N tokens`",
                        )
                        .help("write `budget 120 tokens`"),
                );
                return None;
            }
        };
        let amount = self.token_count(number.text, number.span)?;
        match unit {
            Some(unit) if unit.text == "tokens" => {}
            Some(unit) => {
                let diagnostic = Diagnostic::new(
                    &INVALID_VALUE,
                    format!("budgets are counted in tokens, not `{}`", unit.text),
                )
                .primary(unit.span, "expected `tokens`");
                let diagnostic = if suggest::closest(unit.text, ["tokens"]).is_some()
                    || unit.text == "token"
                {
                    diagnostic.suggest(unit.span, "tokens")
                } else {
                    diagnostic.help("write `budget N tokens`; tokens are counted with the workspace's tokenizer")
                };
                self.report(diagnostic);
                return None;
            }
            None => {
                self.report(
                    Diagnostic::new(&INVALID_VALUE, "the budget has no unit")
                        .primary(number.span, "expected `tokens` after this")
                        .help(format!("write `budget {} tokens`", number.text))
                        .fix(Fix::replace(
                            "Add `tokens`",
                            Applicability::Safe,
                            Span::point(number.span.end),
                            " tokens",
                        )),
                );
                return None;
            }
        }
        Some(Spanned::new(amount, field.span))
    }

    fn token_count(&mut self, text: &str, span: Span) -> Option<u64> {
        let parsed = text
            .parse::<u64>()
            .ok()
            .filter(|_| text.bytes().all(|b| b.is_ascii_digit()));
        match parsed {
            Some(0) => {
                self.report(
                    Diagnostic::new(
                        &INVALID_VALUE,
                        "a budget of 0 tokens lets the contributor add nothing",
                    )
                    .primary(span, "zero")
                    .help(
                        "give the most tokens this contributor may add, or remove the contributor",
                    ),
                );
                None
            }
            Some(amount) if amount <= u64::from(u32::MAX) => Some(amount),
            _ if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
                self.report(
                    Diagnostic::new(
                        &INVALID_VALUE,
                        format!("a budget of {text} tokens is larger than any context window"),
                    )
                    .primary(span, "too large")
                    .help(format!(
                        "budgets are at most {} tokens; give the most this contributor may add",
                        u32::MAX
                    )),
                );
                None
            }
            _ => {
                self.report(
                    Diagnostic::new(
                        &INVALID_VALUE,
                        format!("`{text}` is not a whole number of tokens"),
                    )
                    .primary(span, "expected a whole number")
                    .help("write the budget in digits, such as `budget 1500 tokens`"),
                );
                None
            }
        }
    }

    fn contributor_body(
        &mut self,
        kind: Kind,
        fields: &mut Fields<'_, '_>,
    ) -> Option<ContributorBody> {
        match kind {
            Kind::Text => {
                let body = fields.required(self, "body", "body \"…\"");
                Some(ContributorBody::Text {
                    body: self.template(body?)?,
                })
            }
            Kind::EagerLoad => self.eager_load(fields),
            Kind::EagerRun => Some(ContributorBody::EagerRun {
                call: self.required_call(fields)?,
            }),
            Kind::SystemMessage => {
                let condition = fields
                    .required(self, "when", "when idle > 4h")
                    .and_then(|field| self.condition(field));
                let body = fields
                    .required(self, "body", "body \"…\"")
                    .and_then(|field| self.template(field));
                Some(ContributorBody::SystemMessage {
                    condition: condition?,
                    body: body?,
                })
            }
            Kind::Preface => {
                let source = fields
                    .required(self, "source", "source user-authored")
                    .and_then(|field| self.vocabulary::<Source>(field));
                let origin = fields
                    .required(self, "origin", "origin \"memory:workspace\"")
                    .and_then(|field| self.one_string(field))
                    .map(|decoded| Spanned::new(decoded.value, decoded.span));
                let call = self.required_call(fields);
                Some(ContributorBody::Preface {
                    source: source?,
                    origin: origin?,
                    call: call?,
                })
            }
            Kind::Fact => {
                let field = fields.required(self, "says", "says date, os")?;
                let words = self.word_list(field, &field.tokens, "fact sections");
                let says: Vec<Spanned<FactSection>> = words
                    .into_iter()
                    .filter_map(|word| self.vocabulary_word::<FactSection>(word))
                    .collect();
                Some(ContributorBody::Fact { says })
            }
        }
    }

    fn eager_load(&mut self, fields: &mut Fields<'_, '_>) -> Option<ContributorBody> {
        let tools_field = fields.optional(self, "tools");
        let skill_field = fields.optional(self, "skill");
        if tools_field.is_none() && skill_field.is_none() {
            let missing = fields.missing("tools", "tools read_object, search_code");
            if let Some(missing) = missing.filter(|_| !fields.was_attempted("skill")) {
                self.report(missing.help(
                    "an eager-load loads tools, a skill's operations, or both: add `tools a, b` or `skill NAME operations x, y`",
                ));
            }
            return None;
        }
        let tools = match tools_field {
            Some(field) => self
                .word_list(field, &field.tokens, "tool names")
                .into_iter()
                .filter_map(|word| self.tool_name(word))
                .collect(),
            None => Vec::new(),
        };
        let skill = match skill_field {
            Some(field) => Some(self.skill_load(field)?),
            None => None,
        };
        Some(ContributorBody::EagerLoad { tools, skill })
    }

    /// `skill NAME` or `skill NAME operations a, b`.
    fn skill_load(&mut self, field: &Field<'_>) -> Option<SkillLoad> {
        let example = "write `skill NAME operations a, b`";
        let (name, rest) = match field.tokens.as_slice() {
            [Token::Word(name), rest @ ..] => (*name, rest),
            _ => {
                self.report(no_value(field, "a skill name").help(example));
                return None;
            }
        };
        let skill = self.identifier(name, "skill name");
        let operations = match rest {
            [] => Vec::new(),
            [Token::Word(keyword), list @ ..] if keyword.text == "operations" => self
                .word_list(field, list, "operation names")
                .into_iter()
                .filter_map(|word| self.identifier(word, "operation name"))
                .collect(),
            [other, ..] => {
                let diagnostic = Diagnostic::new(
                    &INVALID_VALUE,
                    "expected `operations` after the skill's name",
                )
                .primary(other.span(), "expected `operations`");
                let diagnostic = match other {
                    Token::Word(word) if suggest::closest(word.text, ["operations"]).is_some() => {
                        diagnostic.suggest(word.span, "operations")
                    }
                    _ => diagnostic.help(example),
                };
                self.report(diagnostic);
                return None;
            }
        };
        Some(SkillLoad {
            skill: skill?,
            operations,
            span: field.span,
        })
    }

    fn required_call(&mut self, fields: &mut Fields<'_, '_>) -> Option<crate::ir::Call> {
        match fields.take("call") {
            Some(Entry::Block(block)) => self.call(block),
            Some(Entry::Field(field)) => {
                self.report(call_without_braces(field));
                None
            }
            None => {
                if let Some(missing) = fields.missing("call", "call get_current_time {}") {
                    self.report(missing);
                }
                None
            }
        }
    }
}

fn call_without_braces(field: &Field<'_>) -> Diagnostic {
    Diagnostic::new(&SYNTAX_ERROR, "a call's arguments go in braces")
        .primary(Span::point(field.span.end), "expected `{ … }` here")
        .help("write `call TOOL {}` for no arguments, or `call TOOL { name: value }`")
        .fix(Fix::replace(
            "Add empty arguments",
            Applicability::Safe,
            Span::point(field.span.end),
            " {}",
        ))
}

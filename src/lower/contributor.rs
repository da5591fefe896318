//! `kind id { … }`: one contributor, read by its kind's row of the table
//! (`ir::kinds`): the settings the kind has, with their defaults, and the
//! combinations it allows.

use super::fields::{Entry, Fields};
use super::placement;
use super::values::{extra_tokens, no_value};
use super::Lowerer;
use crate::codes::{INVALID_ORIGIN, INVALID_VALUE, MISSING_BUDGET, MISSING_FIELD, SYNTAX_ERROR};
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::ir::kinds::{KindSpec, ReachRule};
use crate::ir::{
    Activation, Contributor, ContributorBody, FactSection, Kind, Owner, Placement, Priority, Reach,
    Setting, SkillLoad, Source,
};
use crate::source::{Span, Spanned};
use crate::suggest;
use crate::syntax::tree::{Block, Field, Token};

impl Lowerer<'_> {
    pub(super) fn contributor(
        &mut self,
        block: &Block<'_>,
        kind: Kind,
        plugin_owner: Option<&Spanned<Owner>>,
    ) -> Option<Contributor> {
        let spec = kind.spec();
        let errors_before = self.error_count();
        let header = block.keyword.span.to(block.open);
        let id = self.contributor_id(block, kind);
        let id_text = id.as_ref().map_or(String::new(), |id| id.value.clone());
        let name = match &id {
            Some(id) => format!("the `{kind}` contributor `{}`", id.value),
            None => format!("this `{kind}` contributor"),
        };
        let mut fields = self.fields(
            &block.items,
            spec.fields,
            header,
            name,
            &|field, key, removal| placement::not_for_kind(kind, field, key, removal),
        );
        fields.mark_damaged(block.damaged);

        let inherited = plugin_owner.map_or(Owner::AgentAuthor, |owner| owner.value);
        let owner_field = fields.optional(self, "owner");
        let owner = match owner_field.and_then(|field| self.vocabulary::<Owner>(field)) {
            Some(owner) => Setting::written(owner.value, owner.span),
            None => Setting::default(inherited),
        };
        if let Some(field) = owner_field {
            self.check_owner_narrows(&owner, field.span, plugin_owner, &id_text);
        }
        let placement = self.contributor_placement(spec, &mut fields);
        if let Some(placement) = &placement {
            if self.check_placement(spec, placement) {
                self.check_owner_places(&owner, placement, &id_text, header);
            }
        }
        let highest = owner.value.highest_priority();
        let priority = match spec.has_priority {
            true => self.setting::<Priority>(&mut fields, "priority", highest),
            false => Setting::default(highest),
        };
        self.check_priority(&owner, &priority, &id_text, header);
        let reach = match spec.reach {
            ReachRule::None => Setting::default(Reach::EveryTurn),
            _ => self.setting::<Reach>(&mut fields, "reach", Reach::EveryTurn),
        };
        let activation = self.contributor_activation(spec, &mut fields);
        if let Some(placement) = &placement {
            self.check_reach(spec, placement.value, &reach);
            if let Some(activation) = &activation {
                self.check_activation(placement, activation, header);
            }
        }
        let budget = self.budget(&mut fields);
        let body = self.contributor_body(kind, &mut fields);

        // A damaged contributor is what parsed around its syntax error:
        // checked for what it says, never measured as if it were whole.
        if self.error_count() > errors_before || block.damaged {
            return None;
        }
        let contributor = Contributor {
            id: id?,
            body: body?,
            owner,
            placement: placement?,
            priority,
            reach,
            activation: activation?,
            budget: budget?,
            header,
            span: block.span,
        };
        self.check_variables(&contributor).then_some(contributor)
    }

    /// The placement: written where the kind lets it be (and must be, for
    /// kinds without a default), fixed by the kind otherwise.
    fn contributor_placement(
        &mut self,
        spec: &KindSpec,
        fields: &mut Fields<'_, '_>,
    ) -> Option<Setting<Placement>> {
        if let Some(fixed) = spec.fixed_placement() {
            return Some(Setting::default(fixed));
        }
        match fields.optional(self, "placement") {
            Some(field) => self
                .vocabulary::<Placement>(field)
                .map(|placement| Setting::written(placement.value, placement.span)),
            None => {
                let example = format!(
                    "placement {}",
                    spec.placements[spec.placements.len().min(2) - 1]
                );
                if let Some(missing) = fields.missing("placement", &example) {
                    self.report(missing);
                }
                None
            }
        }
    }

    /// `applies …`, or `always` where the kind has no activation or none is
    /// written.
    fn contributor_activation(
        &mut self,
        spec: &KindSpec,
        fields: &mut Fields<'_, '_>,
    ) -> Option<Setting<Activation>> {
        if !spec.has_field("applies") {
            return Some(Setting::default(Activation::Always));
        }
        match fields.optional(self, "applies") {
            Some(field) => {
                let activation = self.activation(field)?;
                let span = field
                    .tokens
                    .iter()
                    .map(Token::span)
                    .reduce(Span::to)
                    .unwrap_or(field.span);
                Some(Setting::written(activation, span))
            }
            None => Some(Setting::default(Activation::Always)),
        }
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
                    .map(|decoded| Spanned::new(decoded.value, decoded.span))
                    .and_then(|origin| self.origin(origin));
                let call = self.required_call(fields);
                Some(ContributorBody::Preface {
                    source: source?,
                    origin: origin?,
                    call: call?,
                })
            }
            Kind::Fact => {
                let heading = fields
                    .optional(self, "heading")
                    .and_then(|field| self.one_string(field))
                    .map(|decoded| Spanned::new(decoded.value, decoded.span));
                let field = fields.required(self, "says", "says [date, os]")?;
                let words = self.word_list(field, field.tokens.first(), "fact sections")?;
                if let Some(extra) = field.tokens.get(1) {
                    self.report(extra_tokens(field, extra.span(), "a list of fact sections"));
                    return None;
                }
                let says: Vec<Spanned<FactSection>> = words
                    .into_iter()
                    .filter_map(|word| self.vocabulary_word::<FactSection>(word))
                    .collect();
                Some(ContributorBody::Fact { heading, says })
            }
        }
    }

    fn eager_load(&mut self, fields: &mut Fields<'_, '_>) -> Option<ContributorBody> {
        let choose = fields
            .optional(self, "choose")
            .map(|field| self.choose(field).ok_or(()))
            .transpose();
        let tools_field = fields.optional(self, "tools");
        let skill_field = fields.optional(self, "skill");
        if tools_field.is_none() && skill_field.is_none() {
            let missing = fields.missing("tools", "tools [read_object, search_code]");
            if let Some(missing) = missing.filter(|_| !fields.was_attempted("skill")) {
                self.report(missing.help(
                    "an eager-load loads tools, a skill's operations, or both: add `tools [a, b]` or `skill NAME operations [x, y]`",
                ));
            }
            return None;
        }
        let tools = match tools_field {
            Some(field) => {
                if let Some(extra) = field.tokens.get(1) {
                    self.report(extra_tokens(field, extra.span(), "a list of tool names"));
                    return None;
                }
                self.word_list(field, field.tokens.first(), "tool names")?
                    .into_iter()
                    .filter_map(|word| self.tool_name(word))
                    .collect()
            }
            None => Vec::new(),
        };
        let skill = match skill_field {
            Some(field) => Some(self.skill_load(field)?),
            None => None,
        };
        Some(ContributorBody::EagerLoad {
            tools,
            skill,
            choose: choose.ok()?,
        })
    }

    /// `skill NAME` or `skill NAME operations [a, b]`.
    fn skill_load(&mut self, field: &Field<'_>) -> Option<SkillLoad> {
        let example = "write `skill NAME operations [a, b]`";
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
            [Token::Word(keyword), list, extra, ..] if keyword.text == "operations" => {
                let _ = list;
                self.report(extra_tokens(
                    field,
                    extra.span(),
                    "a list of operation names",
                ));
                return None;
            }
            [Token::Word(keyword), list @ ..] if keyword.text == "operations" => self
                .word_list(field, list.first(), "operation names")?
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

impl Lowerer<'_> {
    /// `"scheme:scope"`: where retrieved content comes from, as operators
    /// reading transcripts parse it (`memory:team-notes`,
    /// `workspace:acme/session:42`, `web:https://docs.acme.dev/x`,
    /// `fsm:job-7:input`).
    fn origin(&mut self, origin: Spanned<String>) -> Option<Spanned<String>> {
        if is_origin(&origin.value) {
            return Some(origin);
        }
        self.report(
            Diagnostic::new(&INVALID_ORIGIN, format!("origin `{}` is not `scheme:scope`", origin.value))
                .primary(origin.span, "expected `scheme:scope`")
                .help("name where the content comes from and which part of it, such as \"memory:workspace-stores\" or \"web:https://docs.acme.dev/handbook\": a lowercase scheme, a colon, then printable characters without spaces or quotes"),
        );
        None
    }
}

/// Whether `text` is `scheme:scope`: a lowercase scheme, then a scope of
/// printable ASCII without spaces, quotes, angle brackets or backslashes
/// (so it cannot break out of the envelope attribute it is written into).
pub(crate) fn is_origin(text: &str) -> bool {
    let Some((scheme, scope)) = text.split_once(':') else {
        return false;
    };
    let scheme_ok = scheme
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
    let scope_ok = !scope.is_empty()
        && scope.bytes().all(|b| {
            b.is_ascii_graphic() && !matches!(b, b'"' | b'\'' | b'<' | b'>' | b'\\' | b'`')
        });
    scheme_ok && scope_ok
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

#[cfg(test)]
mod tests {
    use super::is_origin;

    #[test]
    fn origins() {
        for good in [
            "memory:workspace-stores",
            "web:docs.acme.dev/style_guide",
            "workspace:acme/session:42",
            "web:https://docs.acme.dev/x?y=1",
            "fsm:job-7:input",
        ] {
            assert!(is_origin(good), "{good}");
        }
        for bad in [
            "memory", ":x", "Memory:x", "memory:", "a:b c", "a:\"x", "a:<x>", "9a:x",
        ] {
            assert!(!is_origin(bad), "{bad}");
        }
    }
}

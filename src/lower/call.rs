//! `call TOOL { key: value, … }`: the tool and its arguments.

use indexmap::IndexMap;

use super::strings;
use super::Lowerer;
use crate::codes::{DUPLICATE_FIELD, INVALID_VALUE, MISSING_FIELD, SYNTAX_ERROR};
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::ir::{Argument, Call, Value};
use crate::source::{Span, Spanned};
use crate::syntax::tree::{Block, Item, Token};

impl Lowerer<'_> {
    pub(super) fn call(&mut self, block: &Block<'_>) -> Option<Call> {
        let errors_before = self.error_count();
        let tool = match block.args.as_slice() {
            [tool] => self.tool_name(*tool),
            [] => {
                self.report(
                    Diagnostic::new(&MISSING_FIELD, "this call names no tool")
                        .primary(block.keyword.span, "expected a tool name after `call`")
                        .help("write `call TOOL { … }`, such as `call get_current_time {}`"),
                );
                None
            }
            [_, extra, ..] => {
                self.report(
                    Diagnostic::new(&SYNTAX_ERROR, "a call names one tool")
                        .primary(extra.span, "unexpected")
                        .help("write `call TOOL { name: value }`"),
                );
                None
            }
        };
        let mut arguments: IndexMap<String, Argument> = IndexMap::new();
        for item in &block.items {
            let Item::Pair(pair) = item else {
                self.report(
                    Diagnostic::new(&SYNTAX_ERROR, "call arguments are written `name: value`")
                        .primary(item.span(), "not an argument")
                        .help("write each argument as `name: value`, separated by commas or line breaks"),
                );
                continue;
            };
            if let Some(first) = arguments.get(pair.key.text) {
                self.report(
                    Diagnostic::new(
                        &DUPLICATE_FIELD,
                        format!("argument `{}` is given twice", pair.key.text),
                    )
                    .primary(pair.key.span, "given again here")
                    .secondary(first.key, "first given here")
                    .help("keep one of them"),
                );
                continue;
            }
            if let Some(value) = self.value(&pair.value) {
                arguments.insert(
                    pair.key.text.to_string(),
                    Argument {
                        key: pair.key.span,
                        value,
                    },
                );
            }
        }
        if self.error_count() > errors_before {
            return None;
        }
        Some(Call {
            tool: tool?,
            arguments,
            span: block.span,
        })
    }

    /// A call argument: a string, an integer, a boolean, or a list of them.
    fn value(&mut self, token: &Token<'_>) -> Option<Spanned<Value>> {
        let value = match token {
            Token::Str(literal) => {
                Value::String(strings::decode(literal, &mut self.diagnostics).value)
            }
            Token::Word(word) => match word.text {
                "true" => Value::Boolean(true),
                "false" => Value::Boolean(false),
                text => match text.parse::<i64>() {
                    Ok(number) => Value::Integer(number),
                    Err(_) => {
                        self.report(bare_word(word.text, word.span));
                        return None;
                    }
                },
            },
            Token::List(list) => {
                let mut items = Vec::new();
                for item in &list.items {
                    items.push(self.value(item)?.value);
                }
                Value::List(items)
            }
            Token::Op(op) => {
                self.report(
                    Diagnostic::new(
                        &SYNTAX_ERROR,
                        format!("expected a value, found `{}`", op.text),
                    )
                    .primary(op.span, "a value goes here"),
                );
                return None;
            }
        };
        Some(Spanned::new(value, token.span()))
    }
}

fn bare_word(text: &str, span: Span) -> Diagnostic {
    let quoted = format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""));
    Diagnostic::new(&INVALID_VALUE, format!("`{text}` is not a value"))
        .primary(span, "not a string, integer or boolean")
        .help(format!("strings are quoted: {quoted}"))
        .fix(Fix::replace("Quote it", Applicability::Safe, span, quoted))
}

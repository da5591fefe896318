//! Bodies → templates: literal runs and `{variables}`.

use super::strings::Decoded;
use super::Lowerer;
use crate::codes::{INVALID_TEMPLATE, LIMIT_EXCEEDED, UNKNOWN_VARIABLE};
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::ir::variables::{self, VARIABLES};
use crate::ir::{Template, TemplatePart, VariableUse};
use crate::limits::MAX_TEMPLATE_VARIABLES;
use crate::suggest;
use crate::syntax::tree::Field;

impl Lowerer<'_> {
    pub(super) fn template(&mut self, field: &Field<'_>) -> Option<Template> {
        let decoded = self.one_string(field)?;
        let errors_before = self.error_count();
        let template = self.parse_template(&decoded);
        (self.error_count() == errors_before).then_some(template)
    }

    fn parse_template(&mut self, decoded: &Decoded) -> Template {
        let text = decoded.value.as_str();
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut variable_count = 0;
        let mut rest_start = 0;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'{' if bytes.get(i + 1) == Some(&b'{') => {
                    literal.push_str(&text[rest_start..=i]);
                    i += 2;
                    rest_start = i;
                }
                b'}' if bytes.get(i + 1) == Some(&b'}') => {
                    literal.push_str(&text[rest_start..=i]);
                    i += 2;
                    rest_start = i;
                }
                b'{' => {
                    literal.push_str(&text[rest_start..i]);
                    let Some(close) = text[i + 1..].find(['}', '{', '\n']).map(|n| i + 1 + n)
                    else {
                        self.report(unclosed_brace(decoded, i));
                        return Template::default();
                    };
                    if bytes[close] != b'}' {
                        self.report(unclosed_brace(decoded, i));
                        i += 1;
                        rest_start = i;
                        continue;
                    }
                    let name = &text[i + 1..close];
                    let span = decoded.map.source_span(i, close + 1);
                    variable_count += 1;
                    if variable_count > MAX_TEMPLATE_VARIABLES {
                        self.report(
                            Diagnostic::new(
                                &LIMIT_EXCEEDED,
                                format!(
                                    "this body uses more than {MAX_TEMPLATE_VARIABLES} variables"
                                ),
                            )
                            .primary(span, "one too many")
                            .help("split the text across several contributors"),
                        );
                        return Template::default();
                    }
                    if let Some(variable) = self.variable(name, span) {
                        if !literal.is_empty() {
                            parts.push(TemplatePart::Literal(std::mem::take(&mut literal)));
                        }
                        parts.push(TemplatePart::Variable(VariableUse { variable, span }));
                    }
                    i = close + 1;
                    rest_start = i;
                }
                b'}' => {
                    let span = decoded.map.source_span(i, i + 1);
                    self.report(
                        Diagnostic::new(&INVALID_TEMPLATE, "a lone `}` in a body")
                            .primary(span, "this `}` closes no variable")
                            .help("write `}}` for a literal brace")
                            .fix(Fix::replace("Write `}}`", Applicability::Safe, span, "}}")),
                    );
                    i += 1;
                }
                _ => i += 1,
            }
        }
        literal.push_str(&text[rest_start..]);
        if !literal.is_empty() {
            parts.push(TemplatePart::Literal(literal));
        }
        Template {
            parts,
            span: decoded.span,
            text: decoded.value.clone(),
            map: decoded.map.clone(),
        }
    }

    fn variable(
        &mut self,
        name: &str,
        span: crate::source::Span,
    ) -> Option<&'static variables::Variable> {
        if let Some(variable) = variables::find(name) {
            return Some(variable);
        }
        let well_formed = !name.is_empty()
            && name.chars().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-' || c == '_'
            });
        if !well_formed {
            self.report(
                Diagnostic::new(&INVALID_TEMPLATE, format!("`{{{name}}}` is not a variable"))
                    .primary(
                        span,
                        "a variable is a name in braces, such as `{person.name}`",
                    )
                    .help("write `{{` and `}}` for literal braces"),
            );
            return None;
        }
        let names = VARIABLES.iter().map(|variable| variable.name);
        let diagnostic =
            Diagnostic::new(&UNKNOWN_VARIABLE, format!("unknown variable `{{{name}}}`"))
                .primary(span, "the platform has no such variable");
        let diagnostic = match suggest::closest(name, names.clone()) {
            Some(suggestion) => diagnostic.suggest(span, &format!("{{{suggestion}}}")),
            None => diagnostic.help(format!(
                "the variables are {}; write `{{{{` for a literal brace",
                suggest::list(names.map(|name| format!("{{{name}}}")))
            )),
        };
        self.report(diagnostic);
        None
    }
}

fn unclosed_brace(decoded: &Decoded, at: usize) -> Diagnostic {
    let span = decoded.map.source_span(at, at + 1);
    Diagnostic::new(&INVALID_TEMPLATE, "a `{` in a body is never closed")
        .primary(span, "this `{` starts no variable")
        .help("close the variable with `}`, or write `{{` for a literal brace")
        .fix(Fix::replace("Write `{{`", Applicability::Safe, span, "{{"))
}

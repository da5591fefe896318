use super::variables::Variable;
use crate::source::{OffsetMap, Span};

/// A body: literal runs and `{variables}`, each variable with its span.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Template {
    pub parts: Vec<TemplatePart>,
    /// The string literal the template was written as.
    pub span: Span,
    /// The decoded body as written, variables in braces, for rules that
    /// read the words (such as `override-attempt`).
    pub text: String,
    /// Maps offsets in `text` to the source.
    pub map: OffsetMap,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplatePart {
    /// Text as the model sees it, with `{{` and `}}` already made single.
    Literal(String),
    Variable(VariableUse),
}

/// One `{name}` in a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableUse {
    pub variable: &'static Variable,
    /// The variable with its braces.
    pub span: Span,
}

impl Template {
    pub fn variables(&self) -> impl Iterator<Item = &VariableUse> {
        self.parts.iter().filter_map(|part| match part {
            TemplatePart::Variable(variable) => Some(variable),
            TemplatePart::Literal(_) => None,
        })
    }

    /// The source span of `text[start..end]`.
    pub fn source_span(&self, start: usize, end: usize) -> Span {
        self.map.source_span(start, end)
    }

    /// The literal runs between variables, each measured on its own: a
    /// budget is the sum of their tokens and each variable's
    /// [`Variable::budgeted_tokens`].
    pub fn literals(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            TemplatePart::Literal(literal) => Some(literal.as_str()),
            TemplatePart::Variable(_) => None,
        })
    }

    /// The most tokens the variables may add, with their seams.
    pub fn variable_tokens(&self) -> u64 {
        self.variables()
            .map(|used| used.variable.budgeted_tokens())
            .sum()
    }

    /// The text with each variable replaced by `value(variable)`.
    pub fn render<'v>(&self, mut value: impl FnMut(&'static Variable) -> &'v str) -> String {
        let mut text = String::new();
        for part in &self.parts {
            match part {
                TemplatePart::Literal(literal) => text.push_str(literal),
                TemplatePart::Variable(used) => text.push_str(value(used.variable)),
            }
        }
        text
    }
}

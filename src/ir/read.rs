//! What the model reads of a contributor: every string it is sent, each
//! with where it was written, for the rules that read words
//! (`override-attempt`).
//!
//! A body is not the only text that reaches the model. An
//! `applies on request "…"` description is listed in the kept system
//! prompt, a fact's `heading` is sent as `## …`, a preface's origin is
//! written into its envelope, and an eager run's or a preface's string
//! arguments come back in what the tool returns.

use super::{Activation, Contributor, ContributorBody, Value};
use crate::source::{OffsetMap, Span};

/// Which part of a contributor a string is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part<'a> {
    Body,
    /// `applies on request "…"`.
    RequestDescription,
    /// A fact's `heading`.
    Heading,
    /// A preface's `origin`.
    Origin,
    /// A string argument of a call, by its key.
    Argument(&'a str),
}

impl Part<'_> {
    /// The part in a few words, for messages: "the body of `x`".
    pub fn describe(self) -> String {
        match self {
            Part::Body => "the body".to_string(),
            Part::RequestDescription => "the `applies on request` description".to_string(),
            Part::Heading => "the heading".to_string(),
            Part::Origin => "the origin".to_string(),
            Part::Argument(key) => format!("the argument `{key}`"),
        }
    }
}

/// One string the model reads.
#[derive(Debug, Clone, Copy)]
pub struct Read<'a> {
    pub part: Part<'a>,
    /// The string as decoded.
    pub text: &'a str,
    /// Where it was written: the literal, or the value it is part of.
    pub span: Span,
    map: Option<&'a OffsetMap>,
}

impl Read<'_> {
    /// The source span of `text[start..end]`: exact for a body, and for a
    /// string written without escapes; otherwise the whole literal.
    pub fn source_span(&self, start: usize, end: usize) -> Span {
        match self.map {
            Some(map) => map.source_span(start, end),
            // `"…"` with nothing decoded: the text is the literal's inside.
            None if self.span.len() == self.text.len() + 2 => {
                Span::new(self.span.start + 1 + start, self.span.start + 1 + end)
            }
            None => self.span,
        }
    }
}

impl Contributor {
    /// Every string of this contributor the model reads, in source order
    /// of its parts.
    pub fn reads(&self) -> Vec<Read<'_>> {
        let mut reads = Vec::new();
        if let Activation::Request(description) = &self.activation.value {
            reads.push(Read {
                part: Part::RequestDescription,
                text: &description.value,
                span: description.span,
                map: None,
            });
        }
        match &self.body {
            ContributorBody::Text { body } | ContributorBody::SystemMessage { body, .. } => {
                reads.push(Read {
                    part: Part::Body,
                    text: &body.text,
                    span: body.span,
                    map: Some(&body.map),
                });
            }
            ContributorBody::Fact {
                heading: Some(heading),
                ..
            } => reads.push(Read {
                part: Part::Heading,
                text: &heading.value,
                span: heading.span,
                map: None,
            }),
            ContributorBody::Preface { origin, .. } => reads.push(Read {
                part: Part::Origin,
                text: &origin.value,
                span: origin.span,
                map: None,
            }),
            _ => {}
        }
        if let Some(call) = self.call() {
            for (key, argument) in &call.arguments {
                push_strings(&mut reads, key, &argument.value.value, argument.value.span);
            }
        }
        reads
    }
}

fn push_strings<'a>(reads: &mut Vec<Read<'a>>, key: &'a str, value: &'a Value, span: Span) {
    match value {
        Value::String(text) => reads.push(Read {
            part: Part::Argument(key),
            text,
            span,
            map: None,
        }),
        Value::List(items) => {
            for item in items {
                push_strings(reads, key, item, span);
            }
        }
        Value::Integer(_) | Value::Boolean(_) => {}
    }
}

use super::prelude::*;
use crate::ir::origin::{pieces, OriginPiece};

pub use crate::codes::INVALID_ORIGIN_PLACEHOLDER as RULE;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (_, contributor) in cx.contributors() {
        let ContributorBody::Preface { origin, call, .. } = &contributor.body else { continue };
        // An origin holds no escapes (no quotes or backslashes), so its
        // value starts one byte into the literal.
        let at = |range: std::ops::Range<usize>| {
            Span { start: origin.span.start + 1 + range.start, end: origin.span.start + 1 + range.end }
        };
        match pieces(&origin.value) {
            Err(error) => out.push(
                Diagnostic::new(&RULE, format!("the origin `{}` has a placeholder that cannot be read: {}", origin.value, error.message))
                    .primary(at(error.range), "here")
                    .help("write `{call.NAME}` for an argument of the preface's call, or `{NAME}` for a value the host supplies in the session's `[origins]`, such as `{workspace}` or `{session}`"),
            ),
            Ok(pieces) => {
                let mut offset = 0;
                for piece in pieces {
                    let length = match piece {
                        OriginPiece::Text(text) => text.len(),
                        OriginPiece::Call(name) => name.len() + "{call.}".len(),
                        OriginPiece::Host(name) => name.len() + 2,
                    };
                    if let OriginPiece::Call(name) = piece {
                        if !call.arguments.contains_key(name) {
                            let known: Vec<String> = call.arguments.keys().map(|key| format!("`{key}`")).collect();
                            let help = if known.is_empty() {
                                format!("`{}` is called with no arguments; name a value the host supplies as `{{NAME}}` instead", call.tool.value)
                            } else {
                                format!("the call's arguments are {}", known.join(", "))
                            };
                            out.push(
                                Diagnostic::new(&RULE, format!("the origin names `{{call.{name}}}`, but the call has no argument `{name}`"))
                                    .primary(at(offset..offset + length), "no such argument")
                                    .secondary(call.span, "the call")
                                    .help(help),
                            );
                        }
                    }
                    offset += length;
                }
            }
        }
    }
}

//! `when CONDITION` and durations.

use super::Lowerer;
use crate::codes::{INVALID_DURATION, INVALID_VALUE};
use crate::diagnostic::Diagnostic;
use crate::ir::{Condition, ConditionKind, Duration};
use crate::source::{Span, Spanned};
use crate::suggest;
use crate::syntax::tree::{Field, Token};

impl Lowerer<'_> {
    pub(super) fn condition(&mut self, field: &Field<'_>) -> Option<Condition> {
        let word = match field.tokens.first() {
            Some(Token::Word(word)) => word,
            Some(other) => {
                self.report(
                    super::values::wrong_token(field, other, "a condition")
                        .help("conditions are written bare, such as `when idle > 4h`"),
                );
                return None;
            }
            None => {
                self.report(super::values::no_value(field, "a condition").help(format!(
                    "a condition is one of {}",
                    suggest::list(ConditionKind::spellings())
                )));
                return None;
            }
        };
        let kind = self.vocabulary_word::<ConditionKind>(*word)?.value;
        let rest = &field.tokens[1..];
        let span = field.span;
        let mut condition = Condition {
            kind,
            idle_over: None,
            skill: None,
            span,
        };
        match (kind, rest) {
            (ConditionKind::Idle, [Token::Op(op), Token::Word(duration)]) if op.text == ">" => {
                condition.idle_over = Some(self.duration(duration.text, duration.span)?);
            }
            (ConditionKind::Idle, _) => {
                let diagnostic = Diagnostic::new(
                    &INVALID_VALUE,
                    "`idle` needs a threshold: `idle > DURATION`",
                )
                .primary(rest_span(word.span, rest), "expected `> DURATION`")
                .help("write `when idle > 4h`");
                let diagnostic = match rest {
                    [Token::Op(op), ..] if op.text == ">=" => diagnostic
                        .suggest(op.span, ">")
                        .help("`idle` fires once the gap is over the threshold: write `>`"),
                    _ => diagnostic,
                };
                self.report(diagnostic);
                return None;
            }
            (ConditionKind::SkillUpdated, [Token::Word(skill)]) => {
                condition.skill = Some(self.identifier(*skill, "skill name")?);
            }
            (ConditionKind::SkillUpdated, _) => {
                self.report(
                    Diagnostic::new(&INVALID_VALUE, "`skill-updated` names one skill")
                        .primary(rest_span(word.span, rest), "expected a skill name")
                        .help("write `when skill-updated code-review`"),
                );
                return None;
            }
            (_, []) => {}
            (_, [first, ..]) => {
                self.report(
                    Diagnostic::new(&INVALID_VALUE, format!("`{kind}` takes nothing after it"))
                        .primary(Span::new(first.span().start, field.span.end), "unexpected")
                        .help(format!("write `when {kind}`")),
                );
                return None;
            }
        }
        Some(condition)
    }

    fn duration(&mut self, text: &str, span: Span) -> Option<Spanned<Duration>> {
        match parse_duration(text) {
            Some(seconds) if seconds > 0 => Some(Spanned::new(Duration { seconds }, span)),
            Some(_) => {
                self.report(
                    Diagnostic::new(&INVALID_DURATION, format!("the duration `{text}` is zero"))
                        .primary(span, "a threshold of zero is met on every turn")
                        .help("give a duration over zero, such as `30m` or `4h`"),
                );
                None
            }
            _ => {
                self.report(
                    Diagnostic::new(&INVALID_DURATION, format!("`{text}` is not a duration"))
                        .primary(span, "expected a number and a unit, such as `4h`")
                        .help("durations are whole numbers with units `s`, `m`, `h` or `d`, such as `30m`, `4h`, `2d` or `1h30m`"),
                );
                None
            }
        }
    }
}

fn rest_span(after: Span, rest: &[Token<'_>]) -> Span {
    rest.iter()
        .map(Token::span)
        .reduce(Span::to)
        .unwrap_or(Span::point(after.end))
}

/// `30m`, `4h`, `2d`, `1h30m` → seconds; `None` for anything else.
pub fn parse_duration(text: &str) -> Option<u64> {
    let mut total: u64 = 0;
    let mut number: Option<u64> = None;
    for c in text.chars() {
        if let Some(digit) = c.to_digit(10) {
            number = Some(
                number
                    .unwrap_or(0)
                    .checked_mul(10)?
                    .checked_add(u64::from(digit))?,
            );
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3_600,
            'd' => 86_400,
            _ => return None,
        };
        total = total.checked_add(number.take()?.checked_mul(unit)?)?;
    }
    if number.is_some() || text.is_empty() {
        return None;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30m"), Some(1_800));
        assert_eq!(parse_duration("4h"), Some(14_400));
        assert_eq!(parse_duration("2d"), Some(172_800));
        assert_eq!(parse_duration("1h30m"), Some(5_400));
        for bad in [
            "",
            "4",
            "4x",
            "h",
            "4hh",
            "99999999999999999999d",
            "-4h",
            "4 h",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }
}

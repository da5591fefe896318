//! `contrib explain` and `contrib rules`.

use std::fmt::Write as _;

use super::output;
use super::{fail, Outcome};
use crate::codes;
use crate::suggest;

pub(super) fn explain(name: &str) -> Outcome {
    let Some(rule) = codes::find(name) else {
        let names = codes::all().iter().map(|rule| rule.name);
        return match suggest::closest(name, names) {
            Some(suggestion) => fail(format!(
                "no rule is named `{name}`; did you mean `{suggestion}`?"
            )),
            None => fail(format!(
                "no rule is named `{name}`; `contrib rules` lists them"
            )),
        };
    };
    output::result(codes::page(rule).trim_end(), Outcome::Clean)
}

pub(super) fn list() -> Outcome {
    let mut text = String::new();
    for rule in codes::all() {
        let _ = writeln!(
            text,
            "{:<6} {:<28} {:<5} {:<8} {}",
            rule.code,
            rule.name,
            rule.default_level.as_str(),
            rule.kind.as_str(),
            rule.summary
        );
    }
    output::result(text.trim_end(), Outcome::Clean)
}

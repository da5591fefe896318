//! `contrib explain` and `contrib rules`.

use super::{fail, Outcome};
use crate::rules;
use crate::suggest;

pub fn explain(name: &str) -> Outcome {
    let Some(rule) = rules::find(name) else {
        let names = rules::all().iter().map(|rule| rule.name);
        return match suggest::closest(name, names) {
            Some(suggestion) => fail(format!(
                "no rule is named `{name}`; did you mean `{suggestion}`?"
            )),
            None => fail(format!(
                "no rule is named `{name}`; `contrib rules` lists them"
            )),
        };
    };
    print!("{}", rules::page(rule));
    Outcome::Clean
}

pub fn list() -> Outcome {
    for rule in rules::all() {
        println!(
            "{:<6} {:<28} {:<5} {}",
            rule.code,
            rule.name,
            rule.default_level.as_str(),
            rule.summary
        );
    }
    Outcome::Clean
}

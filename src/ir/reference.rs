//! The language reference's tables, written from the table of kinds and
//! the variables' table, so that `docs/language.md` cannot drift from what
//! lowering accepts: a test compares the generated blocks with the file.
//! `docs/formatting.md`'s field order is written and checked the same way.

use std::fmt::Write as _;

use super::kinds::{self, ReachRule, KINDS};
use super::variables::{Availability, VARIABLES};
use super::{ActivationKind, Placement, Reach};

/// The named tables, each as Markdown.
pub fn tables() -> Vec<(&'static str, String)> {
    vec![
        ("kinds", kinds_table()),
        ("fields", fields_table()),
        ("reach", reach_table()),
        ("variables", variables_table()),
    ]
}

/// The tables of `docs/formatting.md`.
pub fn formatting_tables() -> Vec<(&'static str, String)> {
    vec![("field-order", field_order_table())]
}

/// Each kind's fields in the order the formatter writes them: the
/// canonical order of `kinds::FIELDS`, taken by each kind in part.
fn field_order_table() -> String {
    let mut out = String::from("| kind | order |\n| --- | --- |\n");
    for spec in KINDS {
        let _ = writeln!(out, "| `{}` | {} |", spec.kind, spec.fields.join(", "));
    }
    out
}

fn code_list<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|item| format!("`{item}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn kinds_table() -> String {
    let mut out = String::from(
        "| Kind | What it adds | Placement | Where the runtime puts it | Its fields |\n|---|---|---|---|---|\n",
    );
    for spec in KINDS {
        let placement = match spec.fixed_placement() {
            Some(fixed) => format!("always `{fixed}` (not written)"),
            None => format!("{} (required)", code_list(spec.placements)),
        };
        let always = spec.delivery(spec.placements[0], true);
        let mut delivery = always.describe().to_string();
        if !spec.activations.is_empty() {
            let conditional = spec.delivery(spec.placements[0], false);
            delivery = format!(
                "{} at `platform`, `agent` and `person`; the opening at `conversation`; before each turn at `message`; {} when it applies only sometimes",
                always.describe(),
                conditional.describe()
            );
        }
        let fields = spec
            .fields
            .iter()
            .map(|field| {
                if spec.requires(field) {
                    format!("`{field}`*")
                } else {
                    format!("`{field}`")
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(
            out,
            "| `{}` | {} | {placement} | {delivery} | {fields} |",
            spec.kind, spec.adds
        );
    }
    out
}

fn fields_table() -> String {
    let mut out = String::from("| Field | Written | Means | Taken by |\n|---|---|---|---|\n");
    for field in kinds::FIELDS {
        let kinds: Vec<&str> = KINDS
            .iter()
            .filter(|spec| spec.has_field(field.name))
            .map(|spec| spec.kind.as_str())
            .collect();
        let _ = writeln!(
            out,
            "| `{}` | `{}` | {} | {} |",
            field.name,
            field.syntax.replace('|', "\\|"),
            field.doc,
            code_list(kinds)
        );
    }
    out
}

fn reach_table() -> String {
    let mut out =
        String::from("| Kind | At `platform` to `conversation` | At `message` |\n|---|---|---|\n");
    for spec in KINDS {
        let (kept, message) = match spec.reach {
            ReachRule::None => ("not a setting".to_string(), "not a setting".to_string()),
            _ => {
                let at = |placement: Placement| {
                    if spec.allows_placement(placement) {
                        code_list(spec.reaches_at(placement))
                    } else {
                        "—".to_string()
                    }
                };
                (at(Placement::Agent), at(Placement::Message))
            }
        };
        let _ = writeln!(out, "| `{}` | {kept} | {message} |", spec.kind);
    }
    let _ = writeln!(out, "\nThe default is `{}`.", Reach::EveryTurn);
    out
}

fn variables_table() -> String {
    let mut out = String::from(
        "| Variable | Varies per | At most (tokens) | Available | e.g. |\n|---|---|---:|---|---|\n",
    );
    for variable in VARIABLES {
        let available = match variable.available {
            Availability::Always => "always".to_string(),
            Availability::When(condition) => format!("in a `system-message` `when {condition} …`"),
        };
        let _ = writeln!(
            out,
            "| `{{{}}}` | {} | {} | {available} | `{}` |",
            variable.name, variable.variance, variable.max_tokens, variable.example
        );
    }
    let _ = writeln!(
        out,
        "\nEach use is budgeted at its bound plus {} tokens for where it meets the text around it.",
        super::variables::BOUNDARY_TOKENS
    );
    out
}

/// Whether every activation is named somewhere in the reference: kept here
/// so that adding one without documenting it fails a test.
pub fn activations_documented(text: &str) -> Vec<ActivationKind> {
    ActivationKind::ALL
        .iter()
        .copied()
        .filter(|kind| !text.contains(&format!("applies {}", written(*kind))))
        .collect()
}

fn written(kind: ActivationKind) -> &'static str {
    match kind {
        ActivationKind::Always => "always",
        ActivationKind::Command => "on command",
        ActivationKind::Skill => "on skill",
        ActivationKind::Subagent => "on subagent",
        ActivationKind::Files => "to files",
        ActivationKind::Request => "on request",
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_kind_is_in_the_kinds_table() {
        let table = super::kinds_table();
        for kind in crate::ir::Kind::ALL {
            assert!(table.contains(&format!("| `{kind}` |")), "{kind}");
        }
    }
}

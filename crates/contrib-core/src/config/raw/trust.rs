//! `[trust]`: who the workspace installs as, and the relaxations an
//! installer grants.

use toml::de::DeTable;

use super::super::{Config, Relaxation};
use super::{span_of, Reader, Value};
use crate::codes::INVALID_CONFIG;
use crate::diagnostic::Diagnostic;
use crate::suggest;

impl Reader {
    /// `[trust]`: the authority installs grant, and relaxations.
    pub(super) fn trust(&mut self, config: &mut Config, table: &DeTable<'_>) {
        self.known_keys(
            table,
            &["as", "plugins", "tools", "required", "optional"],
            "`[trust]`",
        );
        for (key, list) in [
            ("required", &mut config.trust.required),
            ("optional", &mut config.trust.optional),
        ] {
            if let Some(value) = table.get(key) {
                let names = self.names(value, key).unwrap_or_default();
                list.extend(names.into_iter().map(|(name, _)| name));
            }
        }
        if let Some(value) = table.get("as") {
            if let Some(text) = self.string(value, "as") {
                match crate::vocabulary::Owner::parse(text) {
                    Some(owner) => config.trust.installs_as = Some(owner),
                    None => {
                        let owners: Vec<&str> = crate::vocabulary::Owner::spellings().collect();
                        self.unknown_word(value, "owner", text, &owners);
                    }
                }
            }
        }
        for (key, slot) in [("plugins", true), ("tools", false)] {
            let Some(value) = table.get(key) else {
                continue;
            };
            let Some(entries) = self.table(value, &format!("trust.{key}")) else {
                continue;
            };
            for (name, value) in entries {
                let name = name.get_ref().to_string();
                let context = format!("trust.{key}.\"{name}\"");
                if let Some(relaxation) = self.relaxation(value, &context) {
                    let map = if slot {
                        &mut config.trust.plugins
                    } else {
                        &mut config.trust.tools
                    };
                    map.insert(name, relaxation);
                }
            }
        }
    }

    /// `{ relax = ["rule", …], reason = "…" }`.
    pub(super) fn relaxation(&mut self, value: &Value<'_>, context: &str) -> Option<Relaxation> {
        let table = self.table(value, context)?;
        self.known_keys(table, &["relax", "reason"], &format!("`[{context}]`"));
        let reason = match table.get("reason") {
            Some(reason) => self.string(reason, "reason")?.trim().to_string(),
            None => String::new(),
        };
        if reason.is_empty() {
            self.error(
                span_of(value),
                "no `reason`",
                format!("`[{context}]` relaxes rules without saying why"),
                "add `reason = \"…\"`: it is recorded in `contrib.lock` with every install it allows",
            );
            return None;
        }
        let Some(relax) = table.get("relax") else {
            self.error(
                span_of(value),
                "no `relax`",
                format!("`[{context}]` names no rule to relax"),
                "add `relax = [\"rule-name\"]`",
            );
            return None;
        };
        let mut rules = Vec::new();
        for (name, span) in self.names(relax, "relax")? {
            match crate::codes::find(&name) {
                Some(rule) if crate::codes::is_relaxable(rule) => rules.push(rule),
                found => {
                    let names = crate::codes::RELAXABLE.iter().map(|rule| rule.name);
                    let message = match found {
                        Some(rule) => format!("`{}` cannot be relaxed at install", rule.name),
                        None => format!("no rule is named `{name}`"),
                    };
                    self.diagnostics.push(
                        Diagnostic::new(&INVALID_CONFIG, message)
                            .primary(span, "not a rule an installer may relax")
                            .help(format!("an installer may relax {}", suggest::list(names))),
                    );
                }
            }
        }
        Some(Relaxation {
            rules,
            reason,
            declared: self.declared.then(|| span_of(value)),
        })
    }
}

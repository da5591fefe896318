//! `[skills.NAME]`: a skill's version, manifest size and operations.

use indexmap::IndexMap;
use toml::de::{DeTable, DeValue};

use super::super::Skill;
use super::{span_of, Reader, Value};

impl Reader {
    pub(super) fn skill(&mut self, name: &str, value: &Value<'_>) -> Option<Skill> {
        let table = self.table(value, &format!("skills.{name}"))?;
        self.known_keys(
            table,
            &["version", "operations", "manifest_tokens"],
            &format!("`[skills.{name}]`"),
        );
        let Some(version_value) = table.get("version") else {
            self.error(
                span_of(value),
                "no `version`",
                format!("skill `{name}` has no version"),
                "add `version = \"1.0.0\"`: requirements are checked against it",
            );
            return None;
        };
        let text = self.string(version_value, "version")?;
        let version = match semver::Version::parse(text) {
            Ok(version) => version,
            Err(error) => {
                self.error(
                    span_of(version_value),
                    "not a semantic version",
                    format!("skill version `{text}` is not a semantic version: {error}"),
                    "write `MAJOR.MINOR.PATCH`, such as \"2.3.0\"",
                );
                return None;
            }
        };
        let manifest_tokens = match table.get("manifest_tokens") {
            Some(value) => self.integer(value, "manifest_tokens")?,
            None => 0,
        };
        let operations = match table.get("operations") {
            Some(value) => self.operations(value)?,
            None => IndexMap::new(),
        };
        Some(Skill {
            version,
            manifest_tokens,
            operations,
            declared: self.declared.then(|| span_of(value)),
        })
    }

    /// `[{ name = "diff", tokens = 400 }]` or `{ diff = { tokens = 400 } }`.
    pub(super) fn operations(&mut self, value: &Value<'_>) -> Option<IndexMap<String, u64>> {
        let mut operations = IndexMap::new();
        match value.get_ref() {
            DeValue::Array(items) => {
                for item in items {
                    let table = self.table(item, "operations")?;
                    self.known_keys(table, &["name", "tokens"], "an operation");
                    let Some(name) = table.get("name") else {
                        self.error(
                            span_of(item),
                            "no `name`",
                            "an operation has no name",
                            "write `{ name = \"diff\", tokens = 400 }`",
                        );
                        return None;
                    };
                    let name = self.string(name, "name")?.to_string();
                    let tokens = self.operation_tokens(table, item)?;
                    operations.insert(name, tokens);
                }
            }
            DeValue::Table(table) => {
                for (name, item) in table {
                    let inner = self.table(item, "operations")?;
                    self.known_keys(inner, &["tokens"], "an operation");
                    let tokens = self.operation_tokens(inner, item)?;
                    operations.insert(name.get_ref().to_string(), tokens);
                }
            }
            other => {
                self.error(
                    span_of(value),
                    "expected a list or a table",
                    format!(
                        "`operations` must be a list or a table, not {}",
                        other.type_str()
                    ),
                    "write `operations = [{ name = \"diff\", tokens = 400 }]`",
                );
                return None;
            }
        }
        Some(operations)
    }

    pub(super) fn operation_tokens(
        &mut self,
        table: &DeTable<'_>,
        item: &Value<'_>,
    ) -> Option<u64> {
        match table.get("tokens") {
            Some(value) => self.integer(value, "tokens"),
            None => {
                self.error(
                    span_of(item),
                    "no `tokens`",
                    "an operation does not say what it costs",
                    "add `tokens = N`: what loading the operation adds to the context",
                );
                None
            }
        }
    }
}

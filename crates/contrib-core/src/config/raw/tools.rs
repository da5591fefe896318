//! `[tools.NAME]`: a tool's effect, parameters, hosts and schema size.

use indexmap::IndexMap;

use super::super::{Effect, Param, ParamKind, Tool};
use super::{span_of, Reader, Value};
use crate::codes::INVALID_CONFIG;
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::source::Span;
use crate::suggest;

impl Reader {
    pub(super) fn tool(&mut self, name: &str, value: &Value<'_>) -> Option<Tool> {
        let table = self.table(value, &format!("tools.{name}"))?;
        self.known_keys(
            table,
            &[
                "effect",
                "gated",
                "egress",
                "eager",
                "params",
                "hosts",
                "schema_tokens",
            ],
            &format!("`[tools.{name}]`"),
        );
        let mut tool = Tool {
            effect: Effect::Read,
            gated: false,
            egress: false,
            hosts: None,
            eager: false,
            params: IndexMap::new(),
            schema_tokens: 0,
            declared: self.declared.then(|| span_of(value)),
        };
        match table.get("effect") {
            Some(value) => match self.string(value, "effect")? {
                "read" => tool.effect = Effect::Read,
                "write" => tool.effect = Effect::Write,
                other => {
                    self.unknown_word(value, "effect", other, &["read", "write"]);
                    return None;
                }
            },
            None => {
                self.error(span_of(value), "no `effect`", format!("tool `{name}` does not say its effect"), "add `effect = \"read\"` or `effect = \"write\"`: the checker must know whether a tool changes anything");
                return None;
            }
        }
        for (key, slot) in [
            ("gated", &mut tool.gated),
            ("egress", &mut tool.egress),
            ("eager", &mut tool.eager),
        ] {
            if let Some(value) = table.get(key) {
                *slot = self.boolean(value, key)?;
            }
        }
        if let Some(value) = table.get("schema_tokens") {
            tool.schema_tokens = self.integer(value, "schema_tokens")?;
        }
        if let Some(value) = table.get("params") {
            tool.params = self.params(value)?;
        }
        if let Some(value) = table.get("hosts") {
            tool.hosts = Some(self.hosts(name, &tool, value)?);
        }
        Some(tool)
    }

    /// `hosts = ["url"]`: parameters of an egress tool that carry hosts.
    pub(super) fn hosts(
        &mut self,
        name: &str,
        tool: &Tool,
        value: &Value<'_>,
    ) -> Option<Vec<String>> {
        if !tool.egress {
            self.error(
                span_of(value),
                "on a tool without egress",
                format!(
                    "`{name}` lists parameters that carry hosts but does not reach the network"
                ),
                "add `egress = true`: a tool whose arguments name hosts reaches them",
            );
            return None;
        }
        let names = self.names(value, "hosts")?;
        let mut hosts = Vec::new();
        for (param, span) in names {
            if tool.params.contains_key(&param) {
                hosts.push(param);
                continue;
            }
            let known = tool.params.keys().map(String::as_str);
            let diagnostic = Diagnostic::new(
                &INVALID_CONFIG,
                format!("`{name}` has no parameter `{param}`"),
            )
            .primary(span, "not one of its `params`");
            self.diagnostics
                .push(match suggest::closest(&param, known) {
                    Some(suggestion) => diagnostic.help(format!("did you mean \"{suggestion}\"?")),
                    None => diagnostic.help("list parameters declared in `params`"),
                });
            return None;
        }
        Some(hosts)
    }

    /// A list of strings, each with its span.
    pub(super) fn names(&mut self, value: &Value<'_>, what: &str) -> Option<Vec<(String, Span)>> {
        let Some(items) = value.get_ref().as_array() else {
            self.error(
                span_of(value),
                "expected a list",
                format!("`{what}` must be a list of names"),
                format!("write `{what} = [\"…\"]`"),
            );
            return None;
        };
        let mut names = Vec::new();
        for item in items {
            names.push((self.string(item, what)?.to_string(), span_of(item)));
        }
        Some(names)
    }

    pub(super) fn params(&mut self, value: &Value<'_>) -> Option<IndexMap<String, Param>> {
        let table = self.table(value, "params")?;
        let mut params = IndexMap::new();
        for (key, value) in table {
            let text = self.string(value, "params")?;
            let (kind, required) = match text.strip_suffix('?') {
                Some(kind) => (kind, false),
                None => (text, true),
            };
            let kind = match kind {
                "string" => ParamKind::String,
                "integer" => ParamKind::Integer,
                "boolean" => ParamKind::Boolean,
                "list" => ParamKind::List,
                _ => {
                    self.unknown_param_type(value, text, required);
                    return None;
                }
            };
            params.insert(key.get_ref().to_string(), Param { kind, required });
        }
        Some(params)
    }

    /// A parameter type that is not one of the four, keeping its `?`.
    pub(super) fn unknown_param_type(&mut self, value: &Value<'_>, text: &str, required: bool) {
        let kind = text.strip_suffix('?').unwrap_or(text);
        let mark = if required { "" } else { "?" };
        let span = span_of(value);
        let diagnostic =
            Diagnostic::new(&INVALID_CONFIG, format!("unknown parameter type `{text}`"))
                .primary(span, "not a parameter type");
        let kinds = ["string", "integer", "boolean", "list"];
        self.diagnostics.push(match suggest::closest(kind, kinds) {
            Some(suggestion) => diagnostic
                .help(format!("did you mean \"{suggestion}{mark}\"?"))
                .fix(Fix::replace(
                    format!("Replace with \"{suggestion}{mark}\""),
                    Applicability::Safe,
                    span,
                    format!("\"{suggestion}{mark}\""),
                )),
            None => diagnostic.help(
                "a parameter is \"string\", \"integer\", \"boolean\" or \"list\"; add `?` for an optional one, as in \"integer?\"",
            ),
        });
    }
}

//! Reading `contrib.toml` into a [`Config`], reporting every problem with a
//! span into the file.
//!
//! The document is parsed with `toml`'s spanned tree (recovering from
//! syntax errors, so several are reported at once) and then walked by hand:
//! unknown keys get a suggestion, wrong types and ranges name what was
//! expected, and whatever could be read still applies.

use indexmap::IndexMap;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::{Config, Effect, HostPattern, Param, ParamKind, Relaxation, Skill, Tool};
use crate::codes::{INVALID_CONFIG, UNKNOWN_LINT};
use crate::diagnostic::{Applicability, Diagnostic, Fix, Level};
use crate::source::{SourceFile, Span};
use crate::suggest;
use crate::tokenizer::TokenizerKind;

type Value<'i> = Spanned<DeValue<'i>>;

/// Applies `source` to `config`; `declared` marks tools and skills as the
/// workspace's own (with spans for go-to-definition).
pub(super) fn apply(config: &mut Config, source: &SourceFile, declared: bool) -> Vec<Diagnostic> {
    let (document, errors) = DeTable::parse_recoverable(&source.text);
    let mut reader = Reader {
        text: source.text.clone(),
        diagnostics: Vec::new(),
        declared,
        // A broken line moves what follows it (a table header that does not
        // close puts its keys at the top level), so unknown keys after a
        // syntax error are most likely its echo: they are reported once
        // the syntax is fixed.
        report_unknown_keys: errors.is_empty(),
    };
    for error in errors {
        let span = error
            .span()
            .map_or(Span::point(0), |range| Span::new(range.start, range.end));
        reader.diagnostics.push(
            Diagnostic::new(
                &INVALID_CONFIG,
                format!(
                    "`contrib.toml` is not valid TOML: {}",
                    error.message().trim()
                ),
            )
            .primary(span, "not valid TOML")
            .help("fix the TOML syntax; see https://toml.io"),
        );
    }
    reader.document(config, document.get_ref());
    let mut diagnostics = reader.diagnostics;
    crate::diagnostic::sort(&mut diagnostics);
    diagnostics
}

struct Reader {
    text: std::sync::Arc<str>,
    diagnostics: Vec<Diagnostic>,
    declared: bool,
    report_unknown_keys: bool,
}

/// "a tokenizer", "an effect".
fn with_article(noun: &str) -> String {
    match noun.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {noun}"),
        _ => format!("a {noun}"),
    }
}

/// `"a", "b" or "c"`.
fn one_of(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|word| format!("\"{word}\"")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The whole line `span` is on, with its line break.
fn line_of(text: &str, span: Span) -> Span {
    let start = text
        .get(..span.start)
        .and_then(|before| before.rfind('\n'))
        .map_or(0, |at| at + 1);
    let end = text
        .get(span.end..)
        .and_then(|after| after.find('\n'))
        .map_or(text.len(), |at| span.end + at + 1);
    Span::new(start, end)
}

fn span_of<T>(value: &Spanned<T>) -> Span {
    let range = value.span();
    Span::new(range.start, range.end)
}

impl Reader {
    fn error(
        &mut self,
        span: Span,
        label: &str,
        message: impl Into<String>,
        help: impl Into<String>,
    ) {
        self.diagnostics.push(
            Diagnostic::new(&INVALID_CONFIG, message)
                .primary(span, label)
                .help(help),
        );
    }

    /// A string that is not one of the words `known`: suggests the closest,
    /// with a safe fix, or lists them.
    fn unknown_word(&mut self, value: &Value<'_>, noun: &str, text: &str, known: &[&str]) {
        let span = span_of(value);
        let diagnostic = Diagnostic::new(&INVALID_CONFIG, format!("unknown {noun} `{text}`"))
            .primary(span, format!("not {}", with_article(noun)));
        self.diagnostics
            .push(match suggest::closest(text, known.iter().copied()) {
                Some(suggestion) => diagnostic
                    .help(format!("did you mean \"{suggestion}\"?"))
                    .fix(Fix::replace(
                        format!("Replace with \"{suggestion}\""),
                        Applicability::Safe,
                        span,
                        format!("\"{suggestion}\""),
                    )),
                None => diagnostic.help(format!("write {}", one_of(known))),
            });
    }

    /// Reports every key of `table` not in `allowed`.
    fn known_keys(&mut self, table: &DeTable<'_>, allowed: &[&str], context: &str) {
        if !self.report_unknown_keys {
            return;
        }
        for key in table.keys() {
            let name = key.get_ref().as_ref();
            if allowed.contains(&name) {
                continue;
            }
            let span = span_of(key);
            let diagnostic = Diagnostic::new(
                &INVALID_CONFIG,
                format!("unknown key `{name}` in {context}"),
            )
            .primary(span, "not a key here");
            let diagnostic = match suggest::closest(name, allowed.iter().copied()) {
                Some(suggestion) => diagnostic.suggest(span, suggestion),
                None => diagnostic.help(format!(
                    "the keys of {context} are {}",
                    suggest::list(allowed.iter().copied())
                )),
            };
            self.diagnostics.push(diagnostic);
        }
    }

    fn table<'v, 'i>(&mut self, value: &'v Value<'i>, what: &str) -> Option<&'v DeTable<'i>> {
        match value.get_ref() {
            DeValue::Table(table) => Some(table),
            other => {
                self.error(
                    span_of(value),
                    "expected a table",
                    format!("`{what}` must be a table, not {}", other.type_str()),
                    format!("write `[{what}]` or an inline table `{{ … }}`"),
                );
                None
            }
        }
    }

    fn integer(&mut self, value: &Value<'_>, what: &str) -> Option<u64> {
        let parsed = value
            .get_ref()
            .as_integer()
            .and_then(|integer| u64::from_str_radix(integer.as_str(), integer.radix()).ok());
        if parsed.is_none() {
            self.error(
                span_of(value),
                "not a whole number",
                format!("`{what}` must be a whole number of tokens, at least 0"),
                format!("write `{what} = 1000`"),
            );
        }
        parsed
    }

    fn boolean(&mut self, value: &Value<'_>, what: &str) -> Option<bool> {
        let parsed = value.get_ref().as_bool();
        if parsed.is_none() {
            self.error(
                span_of(value),
                "not `true` or `false`",
                format!("`{what}` must be `true` or `false`"),
                format!("write `{what} = true`"),
            );
        }
        parsed
    }

    fn string<'v>(&mut self, value: &'v Value<'_>, what: &str) -> Option<&'v str> {
        let parsed = value.get_ref().as_str();
        if parsed.is_none() {
            self.error(
                span_of(value),
                "expected a string",
                format!(
                    "`{what}` must be a string, not {}",
                    value.get_ref().type_str()
                ),
                format!("quote the value: `{what} = \"…\"`"),
            );
        }
        parsed
    }

    fn document(&mut self, config: &mut Config, document: &DeTable<'_>) {
        self.known_keys(
            document,
            &["workspace", "egress", "tools", "skills", "lints", "trust"],
            "`contrib.toml`",
        );
        if let Some(value) = document.get("workspace") {
            if let Some(table) = self.table(value, "workspace") {
                self.workspace(config, table);
            }
        }
        if let Some(value) = document.get("egress") {
            if let Some(table) = self.table(value, "egress") {
                self.egress(config, table);
            }
        }
        if let Some(value) = document.get("tools") {
            if let Some(table) = self.table(value, "tools") {
                for (name, value) in table {
                    let name = name.get_ref().as_ref();
                    if let Some(tool) = self.tool(name, value) {
                        config.tools.insert(name.to_string(), tool);
                    }
                }
            }
        }
        if let Some(value) = document.get("skills") {
            if let Some(table) = self.table(value, "skills") {
                for (name, value) in table {
                    let name = name.get_ref().as_ref();
                    if let Some(skill) = self.skill(name, value) {
                        config.skills.insert(name.to_string(), skill);
                    }
                }
            }
        }
        if let Some(value) = document.get("lints") {
            if let Some(table) = self.table(value, "lints") {
                self.lints(config, table);
            }
        }
        if let Some(value) = document.get("trust") {
            if let Some(table) = self.table(value, "trust") {
                self.trust(config, table);
            }
        }
    }

    fn workspace(&mut self, config: &mut Config, table: &DeTable<'_>) {
        self.known_keys(
            table,
            &[
                "context_budget",
                "system_prompt_share",
                "tokenizer",
                "exclude",
            ],
            "`[workspace]`",
        );
        if let Some(value) = table.get("exclude") {
            config.exclude = self.exclude(value);
        }
        if let Some(value) = table.get("context_budget") {
            if let Some(budget) = self.integer(value, "context_budget") {
                config.context_budget = budget;
            }
        }
        if let Some(value) = table.get("system_prompt_share") {
            let share = match value.get_ref() {
                DeValue::Float(float) => float.as_str().parse::<f64>().ok(),
                DeValue::Integer(integer) => integer.as_str().parse::<f64>().ok(),
                _ => None,
            };
            match share {
                Some(share) if (0.0..=1.0).contains(&share) => config.system_prompt_share = share,
                _ => self.error(
                    span_of(value),
                    "not a number from 0 to 1",
                    "`system_prompt_share` must be a number from 0 to 1",
                    "write the share of the context the system prompt may take, such as `0.25`",
                ),
            }
        }
        if let Some(value) = table.get("tokenizer") {
            if let Some(name) = self.string(value, "tokenizer") {
                match TokenizerKind::parse(name) {
                    Some(kind) => config.tokenizer = kind,
                    None => {
                        let names = TokenizerKind::ALL.map(TokenizerKind::as_str);
                        self.unknown_word(value, "tokenizer", name, &names);
                    }
                }
            }
        }
    }

    /// `exclude`: gitignore patterns, each checked; one that is not a glob
    /// is reported and left out.
    fn exclude(&mut self, value: &Value<'_>) -> Vec<String> {
        let Some(items) = value.get_ref().as_array() else {
            self.error(
                span_of(value),
                "expected a list",
                "`exclude` must be a list of patterns",
                "write `exclude = [\"drafts/\", \"*.draft.contrib\"]`, in `.gitignore`'s syntax",
            );
            return Vec::new();
        };
        let mut patterns = Vec::new();
        for item in items {
            let Some(pattern) = self.string(item, "exclude") else {
                continue;
            };
            match crate::fs::invalid_pattern(pattern) {
                None => patterns.push(pattern.to_string()),
                Some(why) => self.error(
                    span_of(item),
                    "not a glob",
                    why,
                    "write a pattern in `.gitignore`'s syntax, such as `drafts/` or `*.draft.contrib`",
                ),
            }
        }
        patterns
    }

    fn egress(&mut self, config: &mut Config, table: &DeTable<'_>) {
        self.known_keys(table, &["allow"], "`[egress]`");
        let Some(value) = table.get("allow") else {
            return;
        };
        let Some(hosts) = value.get_ref().as_array() else {
            self.error(
                span_of(value),
                "expected a list",
                "`allow` must be a list of host names",
                "write `allow = [\"docs.acme.dev\", \"*.acme.dev\"]`",
            );
            return;
        };
        for host in hosts {
            let Some(text) = self.string(host, "allow") else {
                continue;
            };
            match HostPattern::parse(text) {
                Some(pattern) => config.egress.push(pattern),
                None => self.error(span_of(host), "not a host name", format!("`{text}` is not a host name"), "write a host such as `docs.acme.dev`, or `*.acme.dev` for its subdomains; no scheme, port or path"),
            }
        }
    }

    fn tool(&mut self, name: &str, value: &Value<'_>) -> Option<Tool> {
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
    fn hosts(&mut self, name: &str, tool: &Tool, value: &Value<'_>) -> Option<Vec<String>> {
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
    fn names(&mut self, value: &Value<'_>, what: &str) -> Option<Vec<(String, Span)>> {
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

    /// `[trust]`: the authority installs grant, and relaxations.
    fn trust(&mut self, config: &mut Config, table: &DeTable<'_>) {
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
                match crate::ir::Owner::parse(text) {
                    Some(owner) => config.trust.installs_as = Some(owner),
                    None => {
                        let owners: Vec<&str> = crate::ir::Owner::spellings().collect();
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
    fn relaxation(&mut self, value: &Value<'_>, context: &str) -> Option<Relaxation> {
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

    fn params(&mut self, value: &Value<'_>) -> Option<IndexMap<String, Param>> {
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
    fn unknown_param_type(&mut self, value: &Value<'_>, text: &str, required: bool) {
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

    fn skill(&mut self, name: &str, value: &Value<'_>) -> Option<Skill> {
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
    fn operations(&mut self, value: &Value<'_>) -> Option<IndexMap<String, u64>> {
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

    fn operation_tokens(&mut self, table: &DeTable<'_>, item: &Value<'_>) -> Option<u64> {
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

    fn lints(&mut self, config: &mut Config, table: &DeTable<'_>) {
        for (key, value) in table {
            let name = key.get_ref().as_ref();
            let Some(text) = self.string(value, name) else {
                continue;
            };
            let level = match text {
                "allow" => Level::Allow,
                "warn" => Level::Warn,
                "deny" => Level::Deny,
                _ => {
                    self.unknown_word(value, "lint level", text, &["allow", "warn", "deny"]);
                    continue;
                }
            };
            let span = span_of(key);
            match crate::codes::find(name) {
                Some(rule) if rule.is_configurable() => {
                    config.lints.insert(rule.code, level);
                }
                Some(rule) => {
                    let line = line_of(&self.text, span);
                    self.diagnostics.push(
                        Diagnostic::new(
                            &UNKNOWN_LINT,
                            format!(
                                "`{}` cannot be allowed or denied: it is a {} rule",
                                rule.name,
                                rule.kind.as_str()
                            ),
                        )
                        .primary(span, format!("a {} rule", rule.kind.as_str()))
                        .help(format!(
                            "remove this line; whether `{}` applies is decided by {}",
                            rule.name,
                            rule.kind.decided_by()
                        ))
                        .fix(Fix::replace(
                            "Remove this line",
                            Applicability::Safe,
                            line,
                            "",
                        )),
                    );
                }
                None => {
                    let names = crate::codes::all()
                        .iter()
                        .filter(|rule| rule.is_configurable())
                        .map(|rule| rule.name);
                    let diagnostic =
                        Diagnostic::new(&UNKNOWN_LINT, format!("no rule is named `{name}`"))
                            .primary(span, "not a rule");
                    self.diagnostics.push(match suggest::closest(name, names) {
                        Some(suggestion) => diagnostic.suggest(span, suggestion),
                        None => diagnostic.help("`contrib rules` lists every rule's name and code"),
                    });
                }
            }
        }
    }
}

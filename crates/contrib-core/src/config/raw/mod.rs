//! Reading `contrib.toml` into a [`Config`], reporting every problem with a
//! span into the file.
//!
//! The document is parsed with `toml`'s spanned tree (recovering from
//! syntax errors, so several are reported at once) and then walked by hand:
//! unknown keys get a suggestion, wrong types and ranges name what was
//! expected, and whatever could be read still applies.

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::{Config, HostPattern};
use crate::codes::{INVALID_CONFIG, UNKNOWN_LINT};
use crate::diagnostic::{Applicability, Diagnostic, Fix, Level};
use crate::source::{SourceFile, Span};
use crate::suggest;
use crate::tokenizer::TokenizerKind;

mod skills;
mod tools;
mod trust;

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
            match glob_error(pattern) {
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
                Some(rule) if rule.is_raisable() && level != Level::Allow => {
                    config.lints.insert(rule.code, level);
                }
                Some(rule) if rule.is_raisable() => {
                    let line = line_of(&self.text, span);
                    self.diagnostics.push(
                        Diagnostic::new(
                            &UNKNOWN_LINT,
                            format!(
                                "`{}` cannot be allowed: it reports what a source format's loaders do, so it can only be raised",
                                rule.name
                            ),
                        )
                        .primary(span, "a source rule")
                        .help(format!(
                            "remove this line, or set `{}` to `warn` or `deny` to report its findings as at least that",
                            rule.name
                        ))
                        .fix(Fix::replace(
                            "Remove this line",
                            Applicability::Safe,
                            line,
                            "",
                        )),
                    );
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
                        .filter(|rule| rule.is_configurable() || rule.is_raisable())
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

/// Why `pattern` is not a pattern in `.gitignore`'s syntax, or `None`
/// when it is: read as gitignore reads a line (`#` starts a comment, a
/// leading `!` negates and `/` anchors, a trailing `/` means a folder, an
/// unclosed `[` is literal), then as the glob it stands for. The command
/// line matches the patterns with the gitignore reader that discovery uses
/// (`contrib::fs::Excludes`), and a test there keeps the two in agreement.
pub fn glob_error(pattern: &str) -> Option<String> {
    let line = pattern.trim_end();
    if line.starts_with('#') {
        return None;
    }
    let line = match line.strip_prefix('\\') {
        Some(rest) if rest.starts_with(['!', '#']) => rest,
        _ => line.strip_prefix('!').unwrap_or(line),
    };
    let line = line.strip_prefix('/').unwrap_or(line);
    let line = line.strip_suffix('/').unwrap_or(line);
    let options = crate::glob::Options {
        allow_unclosed_class: true,
    };
    crate::glob::Glob::with(line, options)
        .err()
        .map(|error| format!("`{pattern}` is not a glob: {error}"))
}

//! The configuration's own diagnostics.

use crate::diagnostic::{Level, Rule, RuleGroup};

pub static INVALID_CONFIG: Rule = Rule {
    code: "C0201",
    name: "invalid-config",
    group: RuleGroup::Config,
    default_level: Level::Deny,
    summary: "`contrib.toml` cannot be read as a workspace configuration",
    explanation: r#"
## What it does
Reports a `contrib.toml` that is not valid TOML, has a key the
configuration does not know, or a value of the wrong type or range: a
tokenizer that is not `o200k` or `cl100k`, a `system_prompt_share` outside
0–1, a tool `effect` other than `read` or `write`, a parameter type other
than `string`, `integer`, `boolean` or `list` (with `?` for optional), a
skill version that is not semver.

## Why is this bad?
Every rule about tools, skills, egress and budgets reads the configuration.
A configuration that is half understood would make those rules wrong.

## Example
```toml
[tools.fetch_url]
effect = "reads"
```
```toml
[tools.fetch_url]
effect = "read"
```
"#,
};

pub static UNKNOWN_LINT: Rule = Rule {
    code: "C0202",
    name: "unknown-lint",
    group: RuleGroup::Config,
    default_level: Level::Warn,
    summary: "`[lints]` names a rule that does not exist or cannot be changed",
    explanation: r#"
## What it does
Reports a key in `[lints]` that is neither a rule's name nor its code, and
a language rule (such as `syntax-error`) whose level cannot be changed.

## Why is this bad?
A misspelt lint name silently changes nothing: the rule it meant to allow
or deny keeps its default level.

## Example
```toml
[lints]
budget-unsued = "allow"
```
```toml
[lints]
budget-unused = "allow"
```
"#,
};

pub static ALL: &[&Rule] = &[&INVALID_CONFIG, &UNKNOWN_LINT];

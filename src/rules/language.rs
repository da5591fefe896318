//! The language's own diagnostics: text that cannot be read as a manifest.
//! They are raised by `syntax` and `lower` and cannot be allowed in
//! `[lints]`.

use crate::diagnostic::{Level, Rule, RuleGroup};

macro_rules! language_rule {
    ($ident:ident, $code:literal, $name:literal, $summary:literal, $explanation:literal) => {
        pub static $ident: Rule = Rule {
            code: $code,
            name: $name,
            group: RuleGroup::Language,
            default_level: Level::Deny,
            summary: $summary,
            explanation: $explanation,
        };
    };
}

language_rule!(
    SYNTAX_ERROR,
    "C0001",
    "syntax-error",
    "the text does not follow the manifest's structure",
    r#"
## What it does
Reports text the parser cannot read as blocks, fields and values.

## Why is this bad?
Nothing after the error can be understood with confidence, so the manifest
cannot be checked or built.

## Example
```
plugin acme/notes 1.0.0 {
    text tone {
        placement: agent
    }
}
```
Fields are written `name value`, without a colon:
```
        placement agent
```
"#
);

language_rule!(
    UNTERMINATED_STRING,
    "C0002",
    "unterminated-string",
    "a string is missing its closing quotes",
    r#"
## What it does
Reports a `"…"` string that reaches the end of its line, or a `"""…"""` block
that reaches the end of the file, without its closing quotes.

## Why is this bad?
Everything after the opening quote would become part of the text the model
is given.

## Example
```
body "Answer tersely.
```
Close the string on the same line, or use a `"""` block for text over
several lines:
```
body "Answer tersely."
```
"#
);

language_rule!(
    INVALID_ESCAPE,
    "C0003",
    "invalid-escape",
    "a string holds an escape the language does not know",
    r#"
## What it does
Reports a backslash escape other than `\"`, `\\`, `\n`, `\t`, `\r`, `\0` and
`\u{…}` (one to six hex digits naming a Unicode scalar value).

## Why is this bad?
An unknown escape is almost always a typo, and guessing what it meant would
change the text a person approved.

## Example
```
body "Use C:\path"
```
Write a literal backslash as `\\`:
```
body "Use C:\\path"
```
"#
);

language_rule!(
    UNKNOWN_FIELD,
    "C0004",
    "unknown-field",
    "a field or contributor kind the language does not have",
    r#"
## What it does
Reports a field name that the enclosing block does not accept, and a block
keyword that is not a contributor kind. When a known name is close, it is
suggested.

## Why is this bad?
A misspelt field is ignored by nobody: the contributor would silently lose
its placement, budget or body.

## Example
```
text stance {
    placment agent
}
```
```
text stance {
    placement agent
}
```
"#
);

language_rule!(
    MISSING_FIELD,
    "C0005",
    "missing-field",
    "a required field is absent",
    r#"
## What it does
Reports a block without a field it needs: a plugin without `owner`, a
`text` without `placement` or `body`, an `eager-run` without `call`, a
`system-message` without `when`, a `fact` without `says`.

## Why is this bad?
The field carries a decision the platform will not guess for the author:
where text goes, what it says, when it fires.

## Example
```
text stance {
    budget 100 tokens
    body "Challenge premises."
}
```
```
text stance {
    placement agent
    budget 100 tokens
    body "Challenge premises."
}
```
"#
);

language_rule!(
    DUPLICATE_FIELD,
    "C0006",
    "duplicate-field",
    "a field is given twice in one block",
    r#"
## What it does
Reports a field written twice in the same block, such as two `budget`
lines, or two `requires` of the same skill.

## Why is this bad?
Only one value can win, and a reader cannot tell which one the author meant.

## Example
```
budget 100 tokens
budget 200 tokens
```
Keep the one you mean.
"#
);

language_rule!(
    DUPLICATE_ID,
    "C0007",
    "duplicate-id",
    "two contributors share an id",
    r#"
## What it does
Reports two contributors in one plugin with the same id.

## Why is this bad?
A contributor is named `plugin@version/id` in bundles, approvals and turn
records; two with one name cannot be told apart.

## Example
```
text stance { … }
text stance { … }
```
Rename one of them:
```
text stance { … }
text stance-for-tests { … }
```
"#
);

language_rule!(
    INVALID_VALUE,
    "C0008",
    "invalid-value",
    "a field's value is not one the field accepts",
    r#"
## What it does
Reports a value outside a field's vocabulary (an unknown placement, owner,
priority, reach, source, fact section or condition) or of the wrong shape
(a budget that is not a whole number of tokens, a list where one value is
expected). A close known value is suggested.

## Why is this bad?
The checker's rules reason about these values; a value it does not know
cannot be placed, approved or composed.

## Example
```
placement agnet
```
```
placement agent
```
"#
);

language_rule!(
    INVALID_IDENTIFIER,
    "C0009",
    "invalid-identifier",
    "an id or name is not lowercase kebab-case",
    r#"
## What it does
Reports contributor ids, skill names and operation names that are not
lowercase kebab-case (`a-z`, `0-9` and single `-` between them, starting with a
letter), and tool names that are not lowercase with `_` or `-`.

## Why is this bad?
Ids appear in bundle paths, approval screens and turn records. One spelling
per name keeps them comparable everywhere.

## Example
```
text Review_Stance { … }
```
```
text review-stance { … }
```
"#
);

language_rule!(
    INVALID_VERSION,
    "C0010",
    "invalid-version",
    "a plugin version is not a semantic version",
    r#"
## What it does
Reports a plugin version that is not `MAJOR.MINOR.PATCH` with optional
pre-release and build metadata, as semver.org defines it.

## Why is this bad?
Published versions are frozen and compared: a new version must be greater
than the last, and what it asks for beyond the last needs approval. That
needs versions that compare.

## Example
```
plugin acme/notes 1.4 {
```
```
plugin acme/notes 1.4.0 {
```
"#
);

language_rule!(
    INVALID_VERSION_REQ,
    "C0011",
    "invalid-version-req",
    "a skill requirement is not a semantic version requirement",
    r#"
## What it does
Reports a `requires skill NAME "REQ"` whose requirement does not parse as a
semver requirement (`^2.1`, `>=1.2, <2`, `~1.4.0`, `=3.0.0`, `*`).

## Why is this bad?
The checker matches the requirement against the skill version the workspace
has; a requirement that does not parse matches nothing.

## Example
```
requires skill code-review "^^2"
```
```
requires skill code-review "^2"
```
"#
);

language_rule!(
    INVALID_PLUGIN_NAME,
    "C0012",
    "invalid-plugin-name",
    "a plugin name is not `scope/name`",
    r#"
## What it does
Reports a plugin name that is not a scope and a name, each lowercase
kebab-case, joined by one `/`.

## Why is this bad?
The scope says who publishes the plugin; catalogs store bundles under
`<scope>/<name>/`, and two publishers cannot share a name without it.

## Example
```
plugin Acme_Corp/notes 1.0.0 {
```
```
plugin acme-corp/notes 1.0.0 {
```
"#
);

language_rule!(
    INVALID_DURATION,
    "C0013",
    "invalid-duration",
    "a duration has no unit or an unknown one",
    r#"
## What it does
Reports a duration that is not one or more whole numbers each followed by
a unit: `s` seconds, `m` minutes, `h` hours, `d` days (`30m`, `4h`, `1h30m`).

## Why is this bad?
An idle threshold without a clear unit fires at the wrong time, or never.

## Example
```
when idle > 4x
```
```
when idle > 4h
```
"#
);

language_rule!(
    UNKNOWN_VARIABLE,
    "C0014",
    "unknown-variable",
    "a template names a variable the platform does not provide",
    r#"
## What it does
Reports a `{name.part}` in a body that is not one of the platform's
variables, suggesting a close one.

| variable | varies per |
|---|---|
| `{agent.name}` | agent |
| `{person.name}`, `{person.locale}`, `{person.timezone}` | person |
| `{conversation.started-at}`, `{model.name}` | conversation |
| `{now}`, `{date}`, `{weekday}`, `{idle}`, `{skill.version}` | message |

## Why is this bad?
The platform cannot fill a variable it does not know; the model would see
the braces.

## Example
```
body "Call me {person.nmae}."
```
```
body "Call me {person.name}."
```
Write `{{` and `}}` for literal braces.
"#
);

language_rule!(
    INVALID_TEMPLATE,
    "C0015",
    "invalid-template",
    "a brace in a body is not part of a variable",
    r#"
## What it does
Reports a `{` without its `}` (or a lone `}`) in a body, and a variable name
that is empty or malformed.

## Why is this bad?
The author meant either a variable or a literal brace; the platform cannot
tell which.

## Example
```
body "Use {braces like this"
```
Double a brace to write it literally:
```
body "Use {{braces like this"
```
"#
);

language_rule!(
    MISSING_BUDGET,
    "C0016",
    "missing-budget",
    "a contributor does not declare its token budget",
    r#"
## What it does
Reports a contributor without `budget N tokens`.

## Why is this bad?
A budget is what a person approves: the most a contributor may add to what
the model is told. Without one, a contributor could take the whole context
window, and nothing would refuse it.

## Example
```
text stance {
    placement agent
    body "Challenge premises."
}
```
```
text stance {
    placement agent
    budget 20 tokens
    body "Challenge premises."
}
```
"#
);

language_rule!(
    LIMIT_EXCEEDED,
    "C0017",
    "limit-exceeded",
    "the manifest exceeds one of the reader's limits",
    r#"
## What it does
Refuses input beyond the documented limits: a file over 4 MiB, blocks and
lists nested more than 32 deep, a string over 1 MiB, more than 4,096
contributors in a plugin, more than 256 variables in one body.

## Why is this bad?
Catalogs read manifests written by many people. Every limit is far above
what a real manifest needs, and each keeps one hostile file from taking a
whole CI run or editor down with it.

## Example
A 10 MiB generated manifest. Split it into several plugins.
"#
);

language_rule!(
    INVALID_ENCODING,
    "C0018",
    "invalid-encoding",
    "the file is not UTF-8 text",
    r#"
## What it does
Reports bytes that are not valid UTF-8, and NUL bytes, at the first
offending offset.

## Why is this bad?
Manifests are text a person reviews. Bytes that do not decode would reach
the model as something nobody read.

## Example
A manifest saved as UTF-16 or Latin-1. Save it as UTF-8.
"#
);

/// Every language rule, by code.
pub static ALL: &[&Rule] = &[
    &SYNTAX_ERROR,
    &UNTERMINATED_STRING,
    &INVALID_ESCAPE,
    &UNKNOWN_FIELD,
    &MISSING_FIELD,
    &DUPLICATE_FIELD,
    &DUPLICATE_ID,
    &INVALID_VALUE,
    &INVALID_IDENTIFIER,
    &INVALID_VERSION,
    &INVALID_VERSION_REQ,
    &INVALID_PLUGIN_NAME,
    &INVALID_DURATION,
    &UNKNOWN_VARIABLE,
    &INVALID_TEMPLATE,
    &MISSING_BUDGET,
    &LIMIT_EXCEEDED,
    &INVALID_ENCODING,
];

//! Diagnostics of bundles and catalogs.

use crate::diagnostic::{Level, Rule, RuleGroup};

macro_rules! bundle_rule {
    ($ident:ident, $code:literal, $name:literal, $summary:literal, $explanation:literal) => {
        pub static $ident: Rule = Rule {
            code: $code,
            name: $name,
            group: RuleGroup::Bundle,
            default_level: Level::Deny,
            summary: $summary,
            explanation: $explanation,
        };
    };
}

bundle_rule!(
    FROZEN_VERSION_CHANGED,
    "C0301",
    "frozen-version-changed",
    "a published version would change",
    r#"
## What it does
Refuses to build or publish a bundle for a `plugin@version` that already
exists with a different digest.

## Why is this bad?
A version names one content, forever: a person approved that content, and
runtimes cache it by name. Changing it in place would change what people
approved without asking them.

## Example
Editing a contributor of `acme/notes` and building `1.0.0` again. Bump the
version (`1.0.1`, or `1.1.0` if it asks for more) and build that.
"#
);

bundle_rule!(
    VERSION_NOT_INCREASED,
    "C0302",
    "version-not-increased",
    "a published version is not newer than the last",
    r#"
## What it does
Refuses to publish a version that is not greater than the newest version of
the plugin already in the catalog (yanked versions count: their numbers are
never reused).

## Why is this bad?
Runtimes and people compare versions to know what is new and what needs
approval; a version that goes backwards breaks both.

## Example
Publishing `1.2.0` when `1.3.0` is in the catalog: publish `1.3.1` or later.
"#
);

bundle_rule!(
    DIGEST_MISMATCH,
    "C0303",
    "digest-mismatch",
    "a bundle does not match its digest or the catalog's lock",
    r#"
## What it does
Reports a bundle whose content does not hash to its own `digest`, or whose
digest differs from the one `catalog.lock` recorded when it was published.

## Why is this bad?
The bundle was edited or corrupted after it was built. What would be loaded
is not what was approved.

## Example
Hand-editing a budget in a `.bundle.json`. Restore the published file, or
publish a new version from the source.
"#
);

bundle_rule!(
    MISSING_BUNDLE,
    "C0304",
    "missing-bundle",
    "the lock names a version whose bundle is missing",
    r#"
## What it does
Reports a `catalog.lock` entry whose bundle file is not in the catalog, and
a bundle in the catalog that the lock does not list.

## Why is this bad?
Installs of that version would fail, or a bundle would be loadable without
ever having been published and approved.

## Example
Deleting `acme/notes/1.0.0.bundle.json` by hand. Versions are never
deleted: yank them with `contrib yank`.
"#
);

bundle_rule!(
    INVALID_BUNDLE,
    "C0305",
    "invalid-bundle",
    "a file is not a loadable bundle",
    r#"
## What it does
Reports a bundle that is not JSON, has an unknown `format`, or does not
follow the bundle schema (`schema/bundle.schema.json`).

## Why is this bad?
The runtime refuses it, so every install of it fails.

## Example
A bundle written by a newer `contrib` with `"format": 2`: upgrade the
runtime, or rebuild with this version.
"#
);

bundle_rule!(
    DUPLICATE_PLUGIN,
    "C0306",
    "duplicate-plugin",
    "two sources or owners claim one plugin name",
    r#"
## What it does
Reports two manifests in one catalog that declare the same `scope/name`, or
versions of one plugin published by different owners.

## Why is this bad?
A plugin name is what a person installs and approves; two things under one
name cannot be told apart.

## Example
Two folders each holding `plugin acme/notes …`. Rename one.
"#
);

bundle_rule!(
    CATALOG_OVER_BUDGET,
    "C0307",
    "catalog-over-budget",
    "the catalog's agent-placement budgets exceed the system-prompt share",
    r#"
## What it does
Adds up the agent-placement budgets of the newest version of every plugin
in the catalog and compares the sum with `context_budget ×
system_prompt_share`.

## Why is this bad?
Each plugin fits on its own, but an agent that installs the whole catalog
would have a system prompt larger than the workspace allows.

## Example
Twenty plugins at 3,000 agent tokens each against a 50,000-token share.
"#
);

bundle_rule!(
    AMBIGUOUS_CONTRIBUTOR,
    "C0308",
    "ambiguous-contributor",
    "two plugins' contributors share an id within one placement",
    r#"
## What it does
Reports contributors of different plugins with the same id at the same
placement and priority.

## Why is this bad?
Composition orders a placement by priority, then plugin, then id; turn
records and approvals name contributors by id. Two with one id at one
place are hard to tell apart when someone explains a turn.

## Example
`acme/a` and `acme/b` both with an agent-placement `text stance`. Rename
one (`review-stance`).
"#
);

bundle_rule!(
    UNTRUSTED_SIGNATURE,
    "C0309",
    "untrusted-signature",
    "a bundle's signature is missing, unknown or invalid",
    r#"
## What it does
When `catalog.lock` lists trusted key ids, reports a bundle with no
signature file, a signature by a key that is not trusted, or a signature
that does not verify against the bundle's digest.

## Why is this bad?
Signatures say who published a bundle. Verification fails closed: a
signature that cannot be verified is no signature.

## Example
`contrib sign dist/acme/notes/1.0.0.bundle.json --key publisher.key`, and
list the key id under `trusted_keys` in `catalog.lock`.
"#
);

bundle_rule!(
    SOURCE_CHANGED,
    "C0310",
    "source-changed",
    "a manifest no longer matches what was published for its version",
    r#"
## What it does
Builds each source manifest given to `contrib catalog check` and compares
it with the bundle published for the same `plugin@version`.

## Why is this bad?
The source says one thing and the catalog serves another: the next person
to publish will be refused, or will not know what was approved.

## Example
Editing `notes.contrib` after publishing `1.0.0`. Bump its version.
"#
);

pub static ALL: &[&Rule] = &[
    &FROZEN_VERSION_CHANGED,
    &VERSION_NOT_INCREASED,
    &DIGEST_MISMATCH,
    &MISSING_BUNDLE,
    &INVALID_BUNDLE,
    &DUPLICATE_PLUGIN,
    &CATALOG_OVER_BUDGET,
    &AMBIGUOUS_CONTRIBUTOR,
    &UNTRUSTED_SIGNATURE,
    &SOURCE_CHANGED,
];

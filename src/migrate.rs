//! `contrib migrate`: manifests and configurations of the language's first
//! version, rewritten in the current one.
//!
//! Every construct of the first version still parses: what changed is what
//! it means. Lowering reports each such construct with a precise
//! diagnostic and a fix (a list written without brackets, a setting its
//! kind no longer has, a reach the runtime cannot honour at a kept
//! placement, a suppression of a rule that is no longer a judgment call), so
//! migrating is applying exactly those fixes, round after round until none
//! is left, as `check --fix` does. The rest of the text, comments included,
//! is left byte for byte, so migrating twice changes nothing the second
//! time.
//!
//! | first version | now |
//! |---|---|
//! | `tools a, b`, `says a, b`, `operations a, b` | `[a, b]` |
//! | `placement` on `eager-run`, `system-message`, `preface`, `fact` | removed: the kind fixes it |
//! | `reach` on `eager-load`, `eager-run`; `priority` on `eager-load`, `eager-run`, `preface`, `fact` | removed: the runtime never honoured them |
//! | `reach replies` on text kept in the prompt or the opening | `reach with-person`, what the runtime did |
//! | `allow(...)` of a rule that is no longer a lint | that name removed (the comment too when nothing is left) |
//! | `[lints]` levels of rules that are no longer lints | the line removed |

use crate::codes::{
    FIELD_NOT_FOR_KIND, PLACEMENT_NOT_FOR_KIND, REACH_NOT_FOR_PLACEMENT, UNBRACKETED_LIST,
    UNKNOWN_LINT, UNUSED_SUPPRESSION,
};
use crate::config::{self, Config};
use crate::diagnostic::{Diagnostic, Rule};
use crate::fix;
use crate::source::SourceFile;

/// The rules whose fixes are the migration.
const MIGRATION_RULES: &[&Rule] = &[
    &UNBRACKETED_LIST,
    &PLACEMENT_NOT_FOR_KIND,
    &FIELD_NOT_FOR_KIND,
    &REACH_NOT_FOR_PLACEMENT,
];

/// A file as migrated: its new text and what changed, one line each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migrated {
    pub text: String,
    pub changes: Vec<String>,
}

impl Migrated {
    pub fn changed(&self, original: &str) -> bool {
        self.text != original
    }
}

/// Migrates one manifest. A manifest that does not parse is returned
/// unchanged with its syntax error: only what can be read can be rewritten
/// with its meaning kept.
pub fn manifest(name: &str, text: &str) -> Result<Migrated, Diagnostic> {
    // The platform's configuration: the migration's rules are the
    // language's own and do not depend on a workspace.
    let config = Config::platform();
    let chosen = |text: &str| -> Result<Vec<Diagnostic>, Diagnostic> {
        let source = SourceFile::new(name, text);
        crate::syntax::parse(&source.text)?;
        Ok(crate::analyze(&source, &config)
            .diagnostics
            .into_iter()
            .filter(|diagnostic| is_migration(diagnostic, &source.text))
            .collect())
    };
    let first = chosen(text)?;
    let mut changes = Vec::new();
    let (text, _) = fix::until_stable(
        text.to_string(),
        first,
        true,
        chosen,
        |before, diagnostic| {
            changes.extend(describe(diagnostic, &SourceFile::new(name, before)));
        },
    )?;
    Ok(Migrated { text, changes })
}

/// Migrates a `contrib.toml`: removes `[lints]` levels of rules that are no
/// longer lints, which the configuration now reports.
pub fn configuration(name: &str, text: &str) -> Migrated {
    let chosen = |text: &str| {
        let (_, diagnostics) = config::Config::from_source(SourceFile::new(name, text));
        Ok::<_, std::convert::Infallible>(
            diagnostics
                .into_iter()
                .filter(|diagnostic| {
                    diagnostic.rule == &UNKNOWN_LINT && !diagnostic.fixes.is_empty()
                })
                .collect::<Vec<_>>(),
        )
    };
    let Ok(first) = chosen(text);
    let mut changes = Vec::new();
    let Ok((text, _)) = fix::until_stable(
        text.to_string(),
        first,
        false,
        chosen,
        |before, diagnostic| {
            changes.extend(describe(diagnostic, &SourceFile::new(name, before)));
        },
    );
    Migrated { text, changes }
}

/// Whether a diagnostic's fix is part of the migration.
fn is_migration(diagnostic: &Diagnostic, text: &str) -> bool {
    if diagnostic.fixes.is_empty() {
        return false;
    }
    if MIGRATION_RULES.contains(&diagnostic.rule) {
        return true;
    }
    // A suppression naming a rule that is no longer a lint.
    diagnostic.rule == &UNUSED_SUPPRESSION
        && text
            .get(diagnostic.span().start..diagnostic.span().end)
            .and_then(crate::codes::find)
            .is_some_and(|rule| !rule.is_configurable())
}

/// `line 12: Write `[a, b]``.
fn describe(diagnostic: &Diagnostic, source: &SourceFile) -> Option<String> {
    let fix = diagnostic.fixes.first()?;
    let line = source.position(diagnostic.span().start).line;
    Some(format!("line {line}: {}", fix.title))
}

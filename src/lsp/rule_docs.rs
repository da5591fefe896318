//! Where a diagnostic's `codeDescription` link points: the rule's page,
//! `docs/rules/<name>.md`, in the repository at the tag of the release
//! that reported it (`<repository>/blob/v<version>/docs/rules/<name>.md`).
//!
//! # Why a versioned page, and no files of the server's own
//!
//! The page is [`crate::codes::page`], the text `contrib explain` prints,
//! checked into the repository (a test keeps every page equal to it), so
//! the link always shows the explanation of the binary that reported the
//! diagnostic, which a page for "the latest version" would not.
//!
//! The server used to write every explanation under the user's cache
//! folder and link to those files. That worked offline, but a language
//! server that fills a folder nobody asked for, one per version, with
//! nothing to clean it up, surprises people, and only VS Code shows the
//! link anyway. Offline, the same text is one step away in every editor:
//! hover on a rule's name in a `# contrib: allow(…)` comment shows the
//! whole page, hover on a diagnostic's range shows the rule's summary and
//! why it matters, and `contrib explain <name>` prints it in a terminal.
//! The server writes nothing.
//!
//! A team that hosts the pages itself sets the initialization option
//! `ruleDocsUrl` to a template such as `https://docs.example/rules/{name}`
//! (`{name}`, `{code}` and `{version}` are replaced).

use std::str::FromStr;

use lsp_types::Uri;

use crate::diagnostic::Rule;

/// The template used unless the client names another: the rule's page in
/// the repository, at this release's tag.
pub const DEFAULT_TEMPLATE: &str = concat!(
    env!("CARGO_PKG_REPOSITORY"),
    "/blob/v{version}/docs/rules/{name}.md"
);

pub struct RuleDocs {
    template: String,
}

impl Default for RuleDocs {
    fn default() -> Self {
        RuleDocs::new(None)
    }
}

impl RuleDocs {
    /// Links to the pages `template` names, or to [`DEFAULT_TEMPLATE`]'s.
    pub fn new(template: Option<String>) -> Self {
        RuleDocs {
            template: template.unwrap_or_else(|| DEFAULT_TEMPLATE.to_string()),
        }
    }

    /// The link for `rule`; `None` when the template does not make a URI.
    pub fn href(&self, rule: &Rule) -> Option<Uri> {
        let url = self
            .template
            .replace("{name}", rule.name)
            .replace("{code}", rule.code)
            .replace("{version}", env!("CARGO_PKG_VERSION"));
        Uri::from_str(&url).ok()
    }
}

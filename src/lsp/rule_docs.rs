//! Where a diagnostic's `codeDescription` link points: the rule's
//! explanation, the same text `contrib explain` prints.
//!
//! By default the server writes every rule's explanation once per start to
//! `<cache>/contrib/<version>/rules/<name>.md` (`<cache>` is
//! `$XDG_CACHE_HOME`, else `~/.cache`, else the system's temporary folder)
//! and links each diagnostic to its `file:` URI. The link then works
//! offline, opens in the editor itself, and always matches the binary that
//! reported the diagnostic, which a web page for "the latest version" would
//! not. A team that hosts its own pages sets the initialization option
//! `ruleDocsUrl` to a template such as `https://docs.example/rules/{name}`
//! (`{name}` and `{code}` are replaced). When the cache cannot be written,
//! links fall back to [`DEFAULT_URL`].

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::Uri;

use super::convert;
use crate::diagnostic::Rule;

/// The template used when neither an option nor the cache is available.
pub const DEFAULT_URL: &str = "https://contrib.dev/rules/{name}";

#[derive(Default)]
pub struct RuleDocs {
    /// The `ruleDocsUrl` option.
    template: Option<String>,
    /// The folder the explanations were written to, once tried.
    folder: OnceCell<Option<PathBuf>>,
}

impl RuleDocs {
    /// Links into a folder of explanations written on first use, or, with
    /// `template`, to the pages it names.
    pub fn new(template: Option<String>) -> Self {
        RuleDocs {
            template,
            folder: OnceCell::new(),
        }
    }

    /// Links into `folder`, written on first use; for tests.
    pub fn in_folder(folder: PathBuf) -> Self {
        let docs = RuleDocs::default();
        let _ = docs.folder.set(write_all(&folder).then_some(folder));
        docs
    }

    pub fn href(&self, rule: &Rule) -> Option<Uri> {
        if let Some(template) = &self.template {
            return from_template(template, rule);
        }
        let folder = self
            .folder
            .get_or_init(|| default_folder().filter(|folder| write_all(folder)));
        match folder {
            Some(folder) => convert::uri_of(&folder.join(format!("{}.md", rule.name))),
            None => from_template(DEFAULT_URL, rule),
        }
    }
}

fn from_template(template: &str, rule: &Rule) -> Option<Uri> {
    let url = template
        .replace("{name}", rule.name)
        .replace("{code}", rule.code);
    Uri::from_str(&url).ok()
}

fn default_folder() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|value| !value.is_empty())
                .map(|home| PathBuf::from(home).join(".cache"))
        })
        .unwrap_or_else(std::env::temp_dir);
    let folder = cache
        .join("contrib")
        .join(env!("CARGO_PKG_VERSION"))
        .join("rules");
    folder.is_absolute().then_some(folder)
}

/// Writes every rule's explanation into `folder`; `false` if any could not
/// be written. Each file is written under a temporary name and renamed, so
/// two servers starting at once never show a half-written page.
fn write_all(folder: &Path) -> bool {
    if crate::fs::create_folder(folder).is_err() {
        return false;
    }
    crate::rules::all().into_iter().all(|rule| {
        let path = folder.join(format!("{}.md", rule.name));
        crate::fs::write_atomically(&path, page(rule).as_bytes()).is_ok()
    })
}

/// A rule's page: what `contrib explain` prints.
pub fn page(rule: &Rule) -> String {
    format!(
        "# {} ({})\n\n{}\n\nDefault level: {}\n{}\n",
        rule.name,
        rule.code,
        rule.summary,
        rule.default_level.as_str(),
        rule.explanation.trim_end()
    )
}

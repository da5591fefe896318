//! What an export wrote, what the target cannot express, and what the
//! target keeps in its own way: printed for a person, or as JSON.

use serde::Serialize;

use super::Target;
use crate::ir::Plugin;

/// One package's report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `scope/name`.
    pub plugin: String,
    pub version: String,
    pub target: Target,
    /// The package's name in its own manifest.
    pub package: String,
    /// The folder written, once it is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out: Option<String>,
    pub written: Vec<Written>,
    pub not_expressed: Vec<Loss>,
    pub enforced: Vec<Enforced>,
}

/// A contributor written to a file of the package.
#[derive(Debug, Clone, Serialize)]
pub struct Written {
    pub contributor: String,
    pub file: String,
    /// What the target calls it: `skill`, `command`, `agent`, `hook`.
    #[serde(rename = "as")]
    pub what: &'static str,
}

/// Something the manifest says that the package does not.
#[derive(Debug, Clone, Serialize)]
pub struct Loss {
    /// The contributor, or `None` for the plugin as a whole.
    pub contributor: Option<String>,
    /// What is lost: `placement`, `budget`, `activation`, a kind, …
    pub what: &'static str,
    /// Why, in one sentence.
    pub why: String,
}

/// A promise of the manifest the package keeps in the target's own way.
#[derive(Debug, Clone, Serialize)]
pub struct Enforced {
    pub contributor: String,
    pub how: String,
}

impl Report {
    pub fn new(plugin: &Plugin, target: Target) -> Self {
        Report {
            plugin: plugin.name.value.to_string(),
            version: plugin.version.value.to_string(),
            target,
            package: String::new(),
            out: None,
            written: Vec::new(),
            not_expressed: Vec::new(),
            enforced: Vec::new(),
        }
    }

    /// The report for a person: what was written, what the target keeps
    /// its own way, what it cannot express.
    pub fn human(&self, folder: &str) -> String {
        let mut out = format!(
            "{} {} → {folder} ({} package `{}`)\n",
            self.plugin,
            self.version,
            self.target.title(),
            self.package
        );
        let width = self
            .written
            .iter()
            .map(|written| written.contributor.len())
            .chain(self.enforced.iter().map(|kept| kept.contributor.len()))
            .chain(
                self.not_expressed
                    .iter()
                    .map(|loss| loss.contributor.as_deref().map_or(8, str::len)),
            )
            .max()
            .unwrap_or(0);
        if self.written.is_empty() {
            out.push_str("  written: no contributor (only the manifest)\n");
        } else {
            out.push_str("  written:\n");
            for written in &self.written {
                out.push_str(&format!(
                    "    {:width$}  {} `{}`\n",
                    written.contributor, written.what, written.file
                ));
            }
        }
        if !self.enforced.is_empty() {
            out.push_str("  kept by the target's own means:\n");
            for kept in &self.enforced {
                out.push_str(&format!("    {:width$}  {}\n", kept.contributor, kept.how));
            }
        }
        if !self.not_expressed.is_empty() {
            out.push_str("  not expressed:\n");
            for loss in &self.not_expressed {
                out.push_str(&format!(
                    "    {:width$}  {}: {}\n",
                    loss.contributor.as_deref().unwrap_or("(plugin)"),
                    loss.what,
                    loss.why
                ));
            }
        }
        out
    }
}

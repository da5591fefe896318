//! The import report: per source, what was read and produced, the tokens
//! it adds per placement (what always applies) and when it applies (the
//! conditional texts), what could not be mapped, and what `contrib
//! check` finds in the result — which is what the original formats let
//! through: text over any sensible budget, hooks that run shell commands at
//! start-up, tools nobody declared.
//!
//! It is Markdown, so it can go into a README as it is. [`render`] writes
//! the summary; with `details`, it adds every unmapped item, file by file.

use std::collections::{BTreeMap, BTreeSet};

use super::claude_plugin::HOOK_TOOL;
use super::Imported;
use crate::config::Config;
use crate::diagnostic::Severity;
use crate::ir::{ActivationKind, Kind, Placement};
use crate::source::SourceFile;

/// One source's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub source: String,
    pub files_read: usize,
    pub skipped: usize,
    pub failures: usize,
    pub manifests: usize,
    pub contributors: usize,
    /// `eager-run` stubs made from hooks.
    pub hooks: usize,
    /// Measured tokens of what always applies, by placement.
    pub tokens: BTreeMap<Placement, u64>,
    /// Measured tokens of the texts told only when their activation holds.
    pub conditional: u64,
    /// Unmapped items, by category.
    pub not_mapped: BTreeMap<&'static str, usize>,
    /// Tools the sources name that the workspace does not declare.
    pub undeclared_tools: BTreeSet<String>,
    /// What the checker finds, by rule.
    pub diagnostics: BTreeMap<Finding, usize>,
    /// `eager-load`s produced (skills always loaded, bundle tools).
    pub eager_loads: usize,
    /// The largest contributions that always apply at system-prompt
    /// placements, largest first: what is sent with every request.
    pub largest: Vec<Largest>,
}

/// One contribution, for the list of the largest.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Largest {
    pub tokens: u64,
    pub plugin: String,
    pub id: String,
    pub source: String,
}

/// How many of the largest contributions the report lists.
const LARGEST: usize = 5;

/// A rule as the report counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
}

impl Summary {
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|(finding, _)| finding.severity == severity)
            .map(|(_, count)| count)
            .sum()
    }

    fn not_mapped_total(&self) -> usize {
        self.not_mapped.values().sum()
    }
}

/// Checks every manifest of an import with `config`, as `contrib check`
/// would, and adds up the figures.
pub fn summarize(imported: &Imported, config: &Config) -> Summary {
    let mut summary = Summary {
        source: imported.source.clone(),
        files_read: imported.files_read,
        skipped: imported.skipped.len(),
        failures: imported.failures.len(),
        manifests: imported.manifests.len(),
        ..Summary::default()
    };
    for manifest in &imported.manifests {
        summary.contributors += manifest.contributors.len();
        for contributor in &manifest.contributors {
            let always = contributor.activation == ActivationKind::Always;
            if always {
                *summary.tokens.entry(contributor.placement).or_default() += contributor.tokens;
            } else {
                summary.conditional += contributor.tokens;
            }
            match contributor.kind {
                Kind::EagerRun => summary.hooks += 1,
                Kind::EagerLoad => summary.eager_loads += 1,
                Kind::Text | Kind::SystemMessage | Kind::Preface | Kind::Fact => {}
            }
            if always && contributor.placement.is_system_prompt() {
                summary.largest.push(Largest {
                    tokens: contributor.tokens,
                    plugin: manifest.plugin.clone(),
                    id: contributor.id.clone(),
                    source: format!("{}/{}", imported.source, contributor.source),
                });
            }
        }
        for note in &manifest.notes {
            *summary.not_mapped.entry(note.category).or_default() += 1;
        }
        summary.undeclared_tools.extend(
            manifest
                .vocabulary
                .iter()
                .filter(|(_, declared)| !**declared)
                .map(|(tool, _)| tool.clone()),
        );
        summary
            .largest
            .sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.cmp(b)));
        summary.largest.truncate(LARGEST);
        let source = SourceFile::new(manifest.path.clone(), manifest.text.clone());
        for diagnostic in crate::analyze(&source, config).diagnostics {
            let finding = Finding {
                code: diagnostic.rule.code,
                name: diagnostic.rule.name,
                severity: diagnostic.severity,
            };
            *summary.diagnostics.entry(finding).or_default() += 1;
        }
    }
    summary
}

/// The report as Markdown.
pub fn render(summaries: &[Summary], imports: &[Imported], details: bool) -> String {
    let mut out = String::from("## Import report\n\n");
    sources_table(&mut out, summaries);
    formats_table(&mut out, imports);
    findings_table(&mut out, summaries);
    problems_table(&mut out, imports);
    not_mapped_table(&mut out, summaries);
    conventions(&mut out, summaries, imports);
    if details {
        detail(&mut out, imports);
    }
    out
}

fn sources_table(out: &mut String, summaries: &[Summary]) {
    let placements: Vec<Placement> = Placement::ALL
        .iter()
        .copied()
        .filter(|placement| summaries.iter().any(|s| s.tokens.contains_key(placement)))
        .collect();
    out.push_str("| source | files read | skipped | manifests | contributors |");
    for placement in &placements {
        out.push_str(&format!(" {placement} tokens |"));
    }
    out.push_str(" conditional tokens | not mapped | errors | warnings |\n|---|");
    out.push_str(&"---:|".repeat(4 + placements.len() + 4));
    out.push('\n');
    let mut total = Summary {
        source: "**total**".into(),
        ..Summary::default()
    };
    for summary in summaries {
        row(out, summary, &placements);
        total.files_read += summary.files_read;
        total.skipped += summary.skipped;
        total.manifests += summary.manifests;
        total.contributors += summary.contributors;
        for (placement, tokens) in &summary.tokens {
            *total.tokens.entry(*placement).or_default() += tokens;
        }
        total.conditional += summary.conditional;
        for (category, count) in &summary.not_mapped {
            *total.not_mapped.entry(category).or_default() += count;
        }
        for (finding, count) in &summary.diagnostics {
            *total.diagnostics.entry(*finding).or_default() += count;
        }
    }
    if summaries.len() > 1 {
        row(out, &total, &placements);
    }
    out.push('\n');
}

fn row(out: &mut String, summary: &Summary, placements: &[Placement]) {
    out.push_str(&format!(
        "| {} | {} | {} | {} | {} |",
        summary.source,
        thousands(summary.files_read as u64),
        thousands(summary.skipped as u64),
        thousands(summary.manifests as u64),
        thousands(summary.contributors as u64)
    ));
    for placement in placements {
        let tokens = summary.tokens.get(placement).copied().unwrap_or(0);
        out.push_str(&format!(" {} |", thousands(tokens)));
    }
    out.push_str(&format!(
        " {} | {} | {} | {} |\n",
        thousands(summary.conditional),
        thousands(summary.not_mapped_total() as u64),
        thousands(summary.errors() as u64),
        thousands(summary.warnings() as u64)
    ));
}

fn findings_table(out: &mut String, summaries: &[Summary]) {
    let mut findings: BTreeMap<Finding, Vec<(String, usize)>> = BTreeMap::new();
    for summary in summaries {
        for (finding, count) in &summary.diagnostics {
            findings
                .entry(*finding)
                .or_default()
                .push((summary.source.clone(), *count));
        }
    }
    out.push_str("### What `contrib check` finds in the imported manifests\n\n");
    if findings.is_empty() {
        out.push_str("Nothing.\n\n");
        return;
    }
    out.push_str("| code | rule | severity | count | in |\n|---|---|---|---:|---|\n");
    for (finding, sources) in findings {
        let (count, within) = count_within(&sources);
        out.push_str(&format!(
            "| {} | `{}` | {} | {count} | {within} |\n",
            finding.code,
            finding.name,
            finding.severity.as_str(),
        ));
    }
    out.push('\n');
}

/// Files taken for import, by format, and in which sources.
fn formats_table(out: &mut String, imports: &[Imported]) {
    let mut formats: BTreeMap<&str, Vec<(String, usize)>> = BTreeMap::new();
    for imported in imports {
        for (format, count) in &imported.formats {
            formats
                .entry(format)
                .or_default()
                .push((imported.source.clone(), *count));
        }
    }
    if formats.is_empty() {
        return;
    }
    out.push_str("### Files read, by format\n\n| format | files | in |\n|---|---:|---|\n");
    for (format, sources) in formats {
        let (count, within) = count_within(&sources);
        out.push_str(&format!("| {format} | {count} | {within} |\n"));
    }
    out.push('\n');
}

/// What the sources' own formats say is wrong with them (as `contrib
/// check` reports it in place), by rule.
fn problems_table(out: &mut String, imports: &[Imported]) {
    // By code, which orders the rules as `contrib rules` does.
    let mut rules: BTreeMap<&'static str, Vec<(String, usize)>> = BTreeMap::new();
    for imported in imports {
        let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
        for problem in &imported.problems {
            *counts.entry(problem.kind.rule().code).or_insert(0) += 1;
        }
        for (code, count) in counts {
            rules
                .entry(code)
                .or_default()
                .push((imported.source.clone(), count));
        }
    }
    out.push_str("### What the sources' own formats say (`contrib check` on the sources)\n\n");
    if rules.is_empty() {
        out.push_str("Nothing.\n\n");
        return;
    }
    out.push_str("| code | rule | severity | count | in |\n|---|---|---|---:|---|\n");
    for (code, sources) in rules {
        let Some(rule) = crate::codes::find(code) else {
            continue;
        };
        let severity = rule
            .default_level
            .severity()
            .map_or("allowed", |severity| severity.as_str());
        let (count, within) = count_within(&sources);
        out.push_str(&format!(
            "| {code} | `{}` | {severity} | {count} | {within} |\n",
            rule.name
        ));
    }
    out.push('\n');
}

/// The total of per-source counts, and where they are: `a 3, b 1`.
fn count_within(sources: &[(String, usize)]) -> (String, String) {
    let count: usize = sources.iter().map(|(_, count)| count).sum();
    let within: Vec<String> = sources
        .iter()
        .map(|(source, count)| format!("{source} {count}"))
        .collect();
    (thousands(count as u64), within.join(", "))
}

fn not_mapped_table(out: &mut String, summaries: &[Summary]) {
    let mut categories: BTreeMap<&str, Vec<(String, usize)>> = BTreeMap::new();
    for summary in summaries {
        for (category, count) in &summary.not_mapped {
            categories
                .entry(category)
                .or_default()
                .push((summary.source.clone(), *count));
        }
    }
    if categories.is_empty() {
        return;
    }
    out.push_str("### Not mapped (each is a comment in its manifest)\n\n");
    out.push_str("| what | count | in |\n|---|---:|---|\n");
    for (category, sources) in categories {
        let (count, within) = count_within(&sources);
        out.push_str(&format!("| {category} | {count} | {within} |\n"));
    }
    out.push('\n');
}

fn conventions(out: &mut String, summaries: &[Summary], imports: &[Imported]) {
    let hooks: usize = summaries.iter().map(|summary| summary.hooks).sum();
    let undeclared: BTreeSet<&String> = summaries
        .iter()
        .flat_map(|summary| &summary.undeclared_tools)
        .collect();
    let failures: Vec<String> = imports
        .iter()
        .flat_map(|imported| {
            imported.failures.iter().map(|failure| {
                format!(
                    "- {}/{}: {}\n",
                    imported.source, failure.file, failure.message
                )
            })
        })
        .collect();
    let eager_loads: usize = summaries.iter().map(|summary| summary.eager_loads).sum();
    let mut largest: Vec<&Largest> = summaries.iter().flat_map(|s| &s.largest).collect();
    largest.sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.cmp(b)));
    largest.truncate(LARGEST);
    if hooks == 0 && undeclared.is_empty() && failures.is_empty() && largest.is_empty() {
        return;
    }
    out.push_str("### Notes\n\n");
    if !largest.is_empty() {
        out.push_str(
            "- The largest contributions sent with every request (agent placement and wider):\n",
        );
        for entry in largest {
            out.push_str(&format!(
                "  - {} tokens: `{}` in `{}`, from {}\n",
                thousands(entry.tokens),
                entry.id,
                entry.plugin,
                entry.source
            ));
        }
    }
    if hooks > 0 {
        out.push_str(&format!(
            "- {hooks} `SessionStart` hook(s) became `eager-run` stubs calling `{HOOK_TOOL}`, flagged `REVIEW`. \
             The tool is undeclared on purpose, so `unknown-tool` refuses each stub: a hook runs a shell command and must never pass as read-only. \
             A workspace that means to keep one declares `[tools.{HOOK_TOOL}]` with `effect = \"write\"`, and `eager-run-writes` then refuses it by name.\n"
        ));
    }
    if eager_loads > 0 {
        out.push_str(&format!(
            "- {eager_loads} `eager-load`(s) load a skill that is always loaded or a bundle's tools. \
             Their budgets are measured on the sources' text; the checker measures an eager load by what the workspace declares \
             (`[skills.NAME]`, `[tools.NAME]` with `schema_tokens`), so until it declares them it cannot tell whether the budgets fit \
             (`unknown-tool` and `unsatisfied-requirement` name what is missing).\n"
        ));
    }
    if !undeclared.is_empty() {
        let names: Vec<String> = undeclared.iter().map(|name| format!("`{name}`")).collect();
        out.push_str(&format!(
            "- Tools named by `allowed-tools`/`tools` that the workspace does not declare ({}): {}.\n",
            undeclared.len(),
            names.join(", ")
        ));
    }
    if !failures.is_empty() {
        out.push_str(&format!(
            "- {} file(s) could not be imported:\n",
            failures.len()
        ));
        for failure in failures {
            out.push_str("  ");
            out.push_str(&failure);
        }
    }
    out.push('\n');
}

fn detail(out: &mut String, imports: &[Imported]) {
    out.push_str("### Not mapped, file by file\n\n");
    for imported in imports {
        for manifest in &imported.manifests {
            for note in &manifest.notes {
                out.push_str(&format!(
                    "- `{}/{}` ({}): {}\n",
                    imported.source, note.file, note.category, note.message
                ));
            }
        }
    }
    out.push_str("\n### Skipped\n\n");
    for imported in imports {
        let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
        for skipped in &imported.skipped {
            *reasons.entry(skipped.reason.as_str()).or_default() += 1;
        }
        for (reason, count) in reasons {
            out.push_str(&format!("- {}: {count} × {reason}\n", imported.source));
        }
    }
    out.push('\n');
}

/// `12345` → `12,345`.
pub(crate) fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}

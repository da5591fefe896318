//! Every diagnostic the tool can emit, in one registry: one line per rule,
//! its explanation in `explain/NAME.md`.
//!
//! The registry sits above the stages that raise rules: `syntax`, `lower`,
//! `check`, `config` and `bundle` refer to the statics here, and nothing
//! here refers to them. `contrib rules` lists the table, `contrib explain`
//! prints an explanation, the language server shows it on hover, and the
//! tests make sure each rule has an explanation and fixtures.
//!
//! A rule's page ([`page`]) is written once and read in three places: the
//! terminal (`contrib explain`), the editor (hover on a rule named in a
//! suppression), and `docs/rules/<name>.md`, where a diagnostic's link
//! points (see `lsp::rule_docs`).
//!
//! A rule's [`RuleKind`] says who decides whether it applies: the language
//! (always), the workspace's policy (its tools, egress and budgets, and at
//! install the installer's), or the author's judgment (`[lints]` and
//! suppression comments). Only lints can be allowed or suppressed.

use crate::diagnostic::{Level, Rule, RuleKind};

macro_rules! registry {
    ($($ident:ident = ($code:literal, $name:literal, $kind:ident, $level:ident, $summary:literal),)*) => {
        $(
            pub static $ident: Rule = Rule {
                code: $code,
                name: $name,
                kind: RuleKind::$kind,
                default_level: Level::$level,
                summary: $summary,
                explanation: include_str!(concat!("explain/", $name, ".md")),
            };
        )*

        /// Every rule, ordered by code.
        static ALL: &[&Rule] = &[$(&$ident),*];
    };
}

registry! {
    SYNTAX_ERROR = ("C0001", "syntax-error", Language, Deny, "the text does not follow the manifest's structure"),
    UNTERMINATED_STRING = ("C0002", "unterminated-string", Language, Deny, "a string is missing its closing quotes"),
    INVALID_ESCAPE = ("C0003", "invalid-escape", Language, Deny, "a string holds an escape the language does not know"),
    UNKNOWN_FIELD = ("C0004", "unknown-field", Language, Deny, "a field or contributor kind the language does not have"),
    MISSING_FIELD = ("C0005", "missing-field", Language, Deny, "a required field is absent"),
    DUPLICATE_FIELD = ("C0006", "duplicate-field", Language, Deny, "a field is given twice in one block"),
    DUPLICATE_ID = ("C0007", "duplicate-id", Language, Deny, "two contributors share an id"),
    INVALID_VALUE = ("C0008", "invalid-value", Language, Deny, "a field's value is not one the field accepts"),
    INVALID_IDENTIFIER = ("C0009", "invalid-identifier", Language, Deny, "an id or name is not lowercase kebab-case"),
    INVALID_VERSION = ("C0010", "invalid-version", Language, Deny, "a plugin version is not a semantic version"),
    INVALID_VERSION_REQ = ("C0011", "invalid-version-req", Language, Deny, "a skill requirement is not a semantic version requirement"),
    INVALID_PLUGIN_NAME = ("C0012", "invalid-plugin-name", Language, Deny, "a plugin name is not `scope/name`"),
    INVALID_DURATION = ("C0013", "invalid-duration", Language, Deny, "a duration has no unit or an unknown one"),
    UNKNOWN_VARIABLE = ("C0014", "unknown-variable", Language, Deny, "a template names a variable the platform does not provide"),
    INVALID_TEMPLATE = ("C0015", "invalid-template", Language, Deny, "a brace in a body is not part of a variable"),
    MISSING_BUDGET = ("C0016", "missing-budget", Language, Deny, "a contributor does not declare its token budget"),
    LIMIT_EXCEEDED = ("C0017", "limit-exceeded", Language, Deny, "the manifest exceeds one of the reader's limits"),
    INVALID_ENCODING = ("C0018", "invalid-encoding", Language, Deny, "the file is not UTF-8 text"),
    FIELD_NOT_FOR_KIND = ("C0019", "field-not-for-kind", Language, Deny, "a contributor sets something its kind does not have"),
    REACH_NOT_FOR_PLACEMENT = ("C0020", "reach-not-for-placement", Language, Deny, "a reach the runtime cannot honour at the contributor's placement"),
    OWNER_WIDER_THAN_PLUGIN = ("C0021", "owner-wider-than-plugin", Language, Deny, "a contributor claims more authority than its plugin's owner"),
    UNBRACKETED_LIST = ("C0022", "unbracketed-list", Language, Deny, "a list is written without its brackets"),
    ACTIVATION_NOT_FOR_PLACEMENT = ("C0023", "activation-not-for-placement", Language, Deny, "an activation that cannot work at the contributor's placement"),
    PLACEMENT_TOO_WIDE = ("C0101", "placement-too-wide", Language, Deny, "a contributor varies more finely than the placement it is shared at"),
    PLACEMENT_NOT_FOR_KIND = ("C0102", "placement-not-for-kind", Language, Deny, "a contributor's kind cannot go at the placement it names"),
    PLACEMENT_COULD_BE_WIDER = ("C0103", "placement-could-be-wider", Lint, Warn, "a text is placed narrower than its content and owner need"),
    OWNER_CANNOT_PLACE = ("C0104", "owner-cannot-place", Language, Deny, "an owner adds at a placement wider than its authority"),
    PRIORITY_ABOVE_OWNER = ("C0105", "priority-above-owner", Language, Deny, "a contributor claims a priority its owner may not claim"),
    OVERRIDE_ATTEMPT = ("C0106", "override-attempt", Lint, Deny, "text the model reads claims authority it does not have"),
    UNKNOWN_TOOL = ("C0107", "unknown-tool", Policy, Deny, "a contributor loads or calls a tool the workspace does not have"),
    EAGER_RUN_WRITES = ("C0108", "eager-run-writes", Policy, Deny, "a call made with nobody asking uses a tool that writes"),
    EGRESS_NOT_ALLOWED = ("C0109", "egress-not-allowed", Policy, Deny, "a call reaches a host the workspace does not allow"),
    EAGER_RUN_GATED = ("C0110", "eager-run-gated", Lint, Warn, "an eager call uses a gated tool and will wait for approval"),
    INVALID_TOOL_ARGUMENTS = ("C0111", "invalid-tool-arguments", Policy, Deny, "a call's arguments do not match the tool's parameters"),
    MISSING_REQUIREMENT = ("C0112", "missing-requirement", Language, Deny, "a contributor uses a skill the plugin does not require"),
    UNKNOWN_OPERATION = ("C0113", "unknown-operation", Policy, Deny, "an eager-load names an operation the skill does not have"),
    UNSATISFIED_REQUIREMENT = ("C0114", "unsatisfied-requirement", Policy, Deny, "the workspace's skill version does not match the plugin's requirement"),
    UNUSED_REQUIREMENT = ("C0115", "unused-requirement", Lint, Warn, "the plugin requires a skill that no contributor uses"),
    EXTERNAL_PREFACE = ("C0116", "external-preface", Lint, Warn, "a preface brings in content from outside the workspace"),
    INVALID_ORIGIN = ("C0117", "invalid-origin", Language, Deny, "a preface's origin is not `host:scope`"),
    OVER_BUDGET = ("C0118", "over-budget", Policy, Deny, "what a contributor adds is larger than its budget"),
    SYSTEM_PROMPT_OVER_BUDGET = ("C0119", "system-prompt-over-budget", Policy, Deny, "the budgets in the system prompt exceed the workspace's share"),
    BUDGET_UNUSED = ("C0120", "budget-unused", Lint, Warn, "a budget is more than four times what the contributor adds"),
    REACH_WITHOUT_AUDIENCE = ("C0121", "reach-without-audience", Lint, Warn, "a person's contribution reaches turns no person is waiting on"),
    VARIABLE_NOT_AVAILABLE = ("C0122", "variable-not-available", Language, Deny, "a body uses a variable that has no value where it is used"),
    LIST_TOO_LONG = ("C0123", "list-too-long", Language, Deny, "a list of tools, operations or fact sections has more than 64 items"),
    NAME_TOO_LONG = ("C0124", "name-too-long", Language, Deny, "a name is longer than 200 characters"),
    UNUSED_SUPPRESSION = ("C0125", "unused-suppression", Lint, Warn, "a suppression comment gives no reason or suppresses nothing"),
    DUPLICATE_FACT_SECTION = ("C0126", "duplicate-fact-section", Lint, Warn, "two facts state the same section"),
    FACT_OVER_BUDGET = ("C0127", "fact-over-budget", Lint, Warn, "a fact can add more than its budget within the runtime's bounds"),
    INVALID_ORIGIN_PLACEHOLDER = ("C0128", "invalid-origin-placeholder", Language, Deny, "a preface's origin names a placeholder that cannot be filled"),
    HIDDEN_CHARACTER = ("C0129", "hidden-character", Lint, Deny, "the manifest holds a control, bidirectional, invisible, variation-selector or tag character"),
    INVALID_CONFIG = ("C0201", "invalid-config", Config, Deny, "`contrib.toml` cannot be read as a workspace configuration"),
    UNKNOWN_LINT = ("C0202", "unknown-lint", Config, Warn, "`[lints]` names a rule that does not exist or cannot be changed"),
    FROZEN_VERSION_CHANGED = ("C0301", "frozen-version-changed", Bundle, Deny, "a published version would change"),
    VERSION_NOT_INCREASED = ("C0302", "version-not-increased", Bundle, Deny, "a published version is not newer than the last"),
    DIGEST_MISMATCH = ("C0303", "digest-mismatch", Bundle, Deny, "a bundle does not match its digest or the catalog's lock"),
    MISSING_BUNDLE = ("C0304", "missing-bundle", Bundle, Deny, "the lock names a version whose bundle is missing"),
    INVALID_BUNDLE = ("C0305", "invalid-bundle", Bundle, Deny, "a file is not a loadable bundle"),
    DUPLICATE_PLUGIN = ("C0306", "duplicate-plugin", Bundle, Deny, "two sources or owners claim one plugin name"),
    CATALOG_OVER_BUDGET = ("C0307", "catalog-over-budget", Bundle, Deny, "the catalog's agent-placement budgets exceed the system-prompt share"),
    AMBIGUOUS_CONTRIBUTOR = ("C0308", "ambiguous-contributor", Bundle, Deny, "two plugins' contributors share an id within one placement"),
    UNTRUSTED_SIGNATURE = ("C0309", "untrusted-signature", Bundle, Deny, "a bundle's signature is missing, unknown or invalid"),
    SOURCE_CHANGED = ("C0310", "source-changed", Bundle, Deny, "a manifest no longer matches what was published for its version"),
    PERMISSIONS_MISMATCH = ("C0311", "permissions-mismatch", Bundle, Deny, "a bundle's permissions say less than its contributors ask for under the installer's tools"),
    NEEDS_APPROVAL = ("C0312", "needs-approval", Bundle, Deny, "a version asks for more than the workspace approved"),
    WITHDRAWN_VERSION = ("C0313", "withdrawn-version", Bundle, Deny, "a version its catalog has withdrawn"),
    INVALID_PLUGIN_MANIFEST = ("C0401", "invalid-plugin-manifest", Source, Deny, "a plugin manifest breaks its format, so the plugin is refused"),
    IGNORED_MANIFEST_FIELD = ("C0402", "ignored-manifest-field", Source, Warn, "a plugin manifest holds a field its format ignores"),
    INVALID_MCP_CONFIG = ("C0403", "invalid-mcp-config", Source, Deny, "an MCP configuration breaks its format, so MCP is disabled"),
    INVALID_MCP_SERVER = ("C0404", "invalid-mcp-server", Source, Deny, "an MCP server entry breaks its transport's format, so it is skipped"),
    INVALID_SKILL = ("C0405", "invalid-skill", Source, Warn, "a skill breaks the Agent Skills specification, so stricter clients skip it"),
    MISSING_PATH = ("C0406", "missing-path", Source, Deny, "a path a plugin relies on is missing or of the wrong kind"),
    BROKEN_LINK = ("C0407", "broken-link", Source, Warn, "a relative Markdown link leads to no file of the package"),
    INVISIBLE_CHARACTER = ("C0408", "invisible-character", Source, Deny, "a source holds an invisible character the model still reads"),
    SHELL_IN_SKILL = ("C0409", "shell-in-skill", Source, Allow, "a skill tells the model to run a command that fetches code from the network and runs it"),
    UNKNOWN_HOOK_EVENT = ("C0410", "unknown-hook-event", Source, Warn, "a hooks file names an event its agent does not have"),
    INVALID_FRONTMATTER = ("C0411", "invalid-frontmatter", Source, Warn, "a command's or subagent's frontmatter is missing or cannot be read, so its agent drops fields or the file"),
    INVALID_MARKETPLACE = ("C0412", "invalid-marketplace", Source, Deny, "a marketplace breaks its format, so nothing can be installed from it"),
    INVALID_HOOK = ("C0413", "invalid-hook", Source, Deny, "a hooks file or a hook breaks its agent's hook schema, so the hook is ignored or the plugin refused"),
    CATALOG_METADATA = ("C0414", "catalog-metadata", Source, Allow, "a plugin or marketplace lacks metadata a catalog expects (opt-in)"),
    NOT_CHECKED = ("C0415", "not-checked", Source, Warn, "a file, or some rules on it, was left out of the check"),
    MISSING_REFERENCE = ("C0416", "missing-reference", Source, Allow, "a skill mentions a file of its own that is not in its folder (opt-in)"),
}

/// The lints that protect an installer, run again at install and at every
/// load whatever the author's `[lints]` and suppressions said. The other
/// lints are the author's judgment about their own manifest and are not
/// run where trust changes hands.
pub static PROTECTIVE_LINTS: &[&Rule] = &[
    &OVERRIDE_ATTEMPT,
    &EAGER_RUN_GATED,
    &EXTERNAL_PREFACE,
    &HIDDEN_CHARACTER,
];

/// The rules an installer's `contrib.toml` may relax for one plugin or one
/// tool (`[trust.plugins."scope/name"]`, `[trust.tools.NAME]`), each
/// relaxation recorded in `contrib.lock`. The language's rules and the
/// rest of the policy (unknown tools, arguments that do not fit, budgets)
/// describe what cannot run as written, so no one relaxes them.
pub static RELAXABLE: &[&Rule] = &[
    &EAGER_RUN_WRITES,
    &EGRESS_NOT_ALLOWED,
    &EAGER_RUN_GATED,
    &OVERRIDE_ATTEMPT,
    &EXTERNAL_PREFACE,
    &HIDDEN_CHARACTER,
];

/// Whether an installer may relax `rule`.
pub fn is_relaxable(rule: &Rule) -> bool {
    RELAXABLE
        .iter()
        .any(|relaxable| relaxable.code == rule.code)
}

/// Whether `rule` is run where trust changes hands: every rule of the
/// language and the policy, and the protective lints.
pub fn protects_installer(rule: &Rule) -> bool {
    match rule.kind {
        RuleKind::Language | RuleKind::Policy | RuleKind::Bundle | RuleKind::Source => true,
        RuleKind::Lint => PROTECTIVE_LINTS
            .iter()
            .any(|protective| protective.code == rule.code),
        RuleKind::Config => false,
    }
}

/// All rules, ordered by code.
pub fn all() -> &'static [&'static Rule] {
    ALL
}

/// Finds a rule by its code (`C0004`, any case) or its name (`unknown-field`).
pub fn find(code_or_name: &str) -> Option<&'static Rule> {
    ALL.iter()
        .copied()
        .find(|rule| rule.name == code_or_name || rule.code.eq_ignore_ascii_case(code_or_name))
}

/// A rule's page, in Markdown: what `contrib explain` prints, and what
/// `docs/rules/<name>.md` holds.
pub fn page(rule: &Rule) -> String {
    format!(
        "# {} ({})\n\n{}\n\nDefault level: {}\nKind: {}, decided by {}\n\n{}\n",
        rule.name,
        rule.code,
        rule.summary,
        rule.default_level.as_str(),
        rule.kind.as_str(),
        rule.kind.decided_by(),
        rule.explanation.trim_end()
    )
}

/// One `## heading` section of a rule's explanation, without its heading.
pub fn section<'r>(rule: &'r Rule, heading: &str) -> Option<&'r str> {
    let marker = format!("## {heading}\n");
    let start = rule.explanation.find(&marker)? + marker.len();
    let rest = rule.explanation.get(start..)?;
    let end = rest.find("\n## ").map_or(rest.len(), |end| end + 1);
    rest.get(..end).map(str::trim)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_ordered_and_unique() {
        let codes: Vec<&str> = ALL.iter().map(|rule| rule.code).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(codes, sorted);
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = ALL.iter().map(|rule| rule.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }
}

//! The workspace configuration, `contrib.toml`.
//!
//! Found by walking up from a manifest's folder (as cargo and ruff find
//! theirs) or named with `--config`. The platform's own configuration
//! (`default.toml`, compiled in) always applies first: its read-only tools
//! `get_current_time`, `read_object`, `load_tools` and `fetch_url`, no
//! egress, no skills, the `o200k` tokenizer, a 200,000-token context of
//! which a quarter may go to the system prompt. A workspace's file adds
//! tools and skills to it and overrides what it sets.
//!
//! ```toml
//! [workspace]
//! context_budget = 200000
//! system_prompt_share = 0.25
//! tokenizer = "o200k"            # or "cl100k"
//!
//! [egress]
//! allow = ["docs.acme.dev", "*.acme.dev"]
//!
//! [tools.search_code]
//! effect = "read"                # or "write"
//! gated = false                  # runs wait for approval
//! egress = false                 # it reaches the network
//! hosts = ["url"]                # which parameters carry hosts (egress tools;
//!                                # by default every one), checked against [egress]
//! eager = false                  # opt a write tool in to eager runs
//! params = { query = "string", limit = "integer?" }   # `?`: optional
//! schema_tokens = 150            # what loading its schema costs
//!
//! [skills.code-review]
//! version = "2.3.0"
//! manifest_tokens = 300
//! operations = [{ name = "diff", tokens = 400 }]   # or { diff = { tokens = 400 } }
//!
//! [lints]
//! budget-unused = "allow"        # by name or code: allow | warn | deny
//!
//! [trust]                        # what `contrib install` does here (docs/trust.md)
//! as = "workspace"               # the authority installs grant: operator |
//!                                # agent-author | workspace | person (the default)
//!
//! [trust.plugins."acme/news"]    # relax protective rules for one plugin …
//! relax = ["egress-not-allowed"]
//! reason = "its feed host changes weekly; reviewed by the platform team"
//!
//! [trust.tools.deploy]           # … or for every call of one tool
//! relax = ["eager-run-writes"]
//! reason = "deploy only records the conversation's start"
//! ```

mod raw;

pub use raw::glob_error;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;

use crate::diagnostic::{Diagnostic, Level, Rule};
use crate::source::{SourceFile, Span};
use crate::tokenizer::TokenizerKind;

/// The name of the configuration file.
pub const FILE_NAME: &str = "contrib.toml";

const PLATFORM_DEFAULT: &str = include_str!("default.toml");

/// A resolved workspace configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The workspace's file, when there is one (for diagnostics and
    /// go-to-definition).
    pub source: Option<Arc<SourceFile>>,
    pub context_budget: u64,
    pub system_prompt_share: f64,
    pub tokenizer: TokenizerKind,
    pub egress: Vec<HostPattern>,
    pub tools: IndexMap<String, Tool>,
    pub skills: IndexMap<String, Skill>,
    /// Levels set in `[lints]`, by rule code.
    pub lints: HashMap<&'static str, Level>,
    /// `[trust]`: how this workspace installs plugins.
    pub trust: Trust,
    /// `[workspace] exclude`: what a search for manifests leaves out, as
    /// written (gitignore's syntax, relative to the file's folder).
    pub exclude: Vec<String>,
    /// A hash of the text this configuration was read from, so cached
    /// results are only reused under the same configuration.
    pub fingerprint: [u8; 32],
}

/// A tool the platform can call or load.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub effect: Effect,
    pub gated: bool,
    pub egress: bool,
    /// The parameters whose values are URLs or host names, checked against
    /// `[egress] allow`; `None` when the tool does not say, so every
    /// parameter of an egress tool is taken to carry one.
    pub hosts: Option<Vec<String>>,
    /// Opts a write tool in to eager runs.
    pub eager: bool,
    pub params: IndexMap<String, Param>,
    pub schema_tokens: u64,
    /// Where the tool is declared in the workspace's file; `None` for the
    /// platform's own tools.
    pub declared: Option<Span>,
}

impl Tool {
    /// Whether `param`'s value names a host the egress allow-list must
    /// allow: one of the declared `hosts`, or any parameter of an egress
    /// tool that declares none.
    pub fn carries_host(&self, param: &str) -> bool {
        self.egress
            && self
                .hosts
                .as_ref()
                .is_none_or(|hosts| hosts.iter().any(|host| host == param))
    }
}

/// `[trust]`: who installs here, and the protective rules this workspace
/// relaxes for a plugin or a tool. Only the installing workspace's file
/// says this; an author's `[trust]` never reaches a bundle.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trust {
    /// `as`: the authority an install grants unless `--as` says otherwise.
    pub installs_as: Option<crate::vocabulary::Owner>,
    /// `[trust.plugins."scope/name"]`, by plugin name.
    pub plugins: IndexMap<String, Relaxation>,
    /// `[trust.tools.NAME]`, by tool name.
    pub tools: IndexMap<String, Relaxation>,
    /// `required`: installed plugins (`scope/name`) without which no
    /// conversation composes, besides those installed as `operator`.
    pub required: Vec<String>,
    /// `optional`: plugins installed as `operator` that conversations may
    /// go on without, saying so, when they are refused at load.
    pub optional: Vec<String>,
}

impl Trust {
    /// Whether a plugin granted `granted` at install must load for any
    /// conversation to compose: those the workspace lists as `required`,
    /// and by default the operator's own (the platform's safety text must
    /// not drop out unnoticed), unless listed as `optional`.
    pub fn requires(&self, plugin: &str, granted: crate::vocabulary::Owner) -> bool {
        let listed = |names: &[String]| names.iter().any(|name| name == plugin);
        listed(&self.required)
            || (granted == crate::vocabulary::Owner::Operator && !listed(&self.optional))
    }
}

/// Protective rules relaxed for one plugin or tool, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Relaxation {
    pub rules: Vec<&'static Rule>,
    pub reason: String,
    /// Where it is written in the workspace's file.
    pub declared: Option<Span>,
}

impl Relaxation {
    pub fn relaxes(&self, rule: &Rule) -> bool {
        self.rules.iter().any(|relaxed| relaxed.code == rule.code)
    }
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    Read,
    Write,
}

impl Effect {
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
        }
    }
}

/// A tool parameter's type and whether a call must give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    pub kind: ParamKind,
    pub required: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    String,
    Integer,
    Boolean,
    List,
}

impl ParamKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamKind::String => "string",
            ParamKind::Integer => "integer",
            ParamKind::Boolean => "boolean",
            ParamKind::List => "list",
        }
    }
}

/// A skill the workspace has installed.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    pub version: semver::Version,
    pub manifest_tokens: u64,
    /// Each operation's tokens, by name.
    pub operations: IndexMap<String, u64>,
    pub declared: Option<Span>,
}

/// An `[egress] allow` entry: a host, or `*.` and a domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPattern {
    Exact(String),
    /// `*.acme.dev` matches `docs.acme.dev` and `a.b.acme.dev`, not
    /// `acme.dev` itself.
    Subdomains(String),
}

impl HostPattern {
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.to_ascii_lowercase();
        let (pattern, host) = match text.strip_prefix("*.") {
            Some(domain) => (
                HostPattern::Subdomains(domain.to_string()),
                domain.to_string(),
            ),
            None => (HostPattern::Exact(text.clone()), text),
        };
        is_host(&host).then_some(pattern)
    }

    pub fn matches(&self, host: &str) -> bool {
        match self {
            HostPattern::Exact(exact) => host.eq_ignore_ascii_case(exact),
            HostPattern::Subdomains(domain) => {
                host.len().checked_sub(domain.len() + 1).is_some_and(|cut| {
                    host.as_bytes()[cut] == b'.' && host[cut + 1..].eq_ignore_ascii_case(domain)
                })
            }
        }
    }
}

/// A DNS host name: dot-separated labels of letters, digits and `-`.
pub fn is_host(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 253
        && text.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

impl Config {
    /// The platform's configuration alone.
    pub fn platform() -> Config {
        let mut config = Config {
            source: None,
            context_budget: 0,
            system_prompt_share: 0.0,
            tokenizer: TokenizerKind::O200k,
            egress: Vec::new(),
            tools: IndexMap::new(),
            skills: IndexMap::new(),
            lints: HashMap::new(),
            trust: Trust::default(),
            exclude: Vec::new(),
            fingerprint: crate::fingerprint::of(PLATFORM_DEFAULT),
        };
        let platform = SourceFile::new("<platform>", PLATFORM_DEFAULT);
        let diagnostics = raw::apply(&mut config, &platform, false);
        debug_assert!(
            diagnostics.is_empty(),
            "the platform's default.toml is invalid: {diagnostics:?}"
        );
        config
    }

    /// The platform's configuration with a workspace's file applied.
    /// Diagnostics about the file come back beside it; what could be read
    /// applies, what could not is left at the platform's value.
    pub fn from_source(source: SourceFile) -> (Config, Vec<Diagnostic>) {
        let mut config = Config::platform();
        let diagnostics = raw::apply(&mut config, &source, true);
        config.fingerprint =
            crate::fingerprint::of(&format!("{PLATFORM_DEFAULT}\0{}", source.text));
        config.source = Some(Arc::new(source));
        (config, diagnostics)
    }

    /// Reads a workspace's file.
    pub fn load(path: &Path) -> Result<(Config, Vec<Diagnostic>), crate::fs::Error> {
        let bytes = crate::fs::read_limited(path, crate::limits::files::CONFIG)?;
        let name = path.to_string_lossy().replace('\\', "/");
        match crate::decode::decode_bytes(&name, &bytes) {
            Ok(source) => Ok(Config::from_source(source)),
            Err((source, diagnostic)) => {
                let (config, _) = Config::from_source(SourceFile::new(source.name.clone(), ""));
                let diagnostic = Diagnostic {
                    rule: &crate::codes::INVALID_CONFIG,
                    ..diagnostic
                };
                Ok((
                    Config {
                        source: Some(Arc::new(source)),
                        ..config
                    },
                    vec![diagnostic],
                ))
            }
        }
    }

    /// The level `[lints]` sets for a rule, or its default.
    pub fn level(&self, rule: &Rule) -> Level {
        self.lints
            .get(rule.code)
            .copied()
            .unwrap_or(rule.default_level)
    }

    /// Whether `[lints]` sets this rule's level explicitly.
    pub fn sets_level(&self, rule: &Rule) -> bool {
        self.lints.contains_key(rule.code)
    }

    /// The most tokens the platform, agent and person placements together
    /// may take.
    pub fn system_prompt_budget(&self) -> u64 {
        (self.context_budget as f64 * self.system_prompt_share).floor() as u64
    }

    pub fn egress_allows(&self, host: &str) -> bool {
        self.egress.iter().any(|pattern| pattern.matches(host))
    }
}

impl Default for Config {
    fn default() -> Self {
        Config::platform()
    }
}

/// The nearest `contrib.toml` in `folder` or a folder above it.
pub fn discover(folder: &Path) -> Option<PathBuf> {
    let mut folder = Some(folder);
    while let Some(current) = folder {
        let candidate = current.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        folder = current.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_config_has_the_platform_tools() {
        let config = Config::platform();
        for tool in ["get_current_time", "read_object", "load_tools", "fetch_url"] {
            assert_eq!(config.tools[tool].effect, Effect::Read, "{tool}");
        }
        assert!(config.tools["fetch_url"].egress);
        assert_eq!(config.system_prompt_budget(), 50_000);
        assert!(config.egress.is_empty());
    }

    #[test]
    fn host_patterns() {
        let exact = HostPattern::parse("docs.acme.dev").unwrap();
        assert!(exact.matches("DOCS.acme.dev"));
        assert!(!exact.matches("evil.docs.acme.dev"));
        let wildcard = HostPattern::parse("*.acme.dev").unwrap();
        assert!(wildcard.matches("docs.acme.dev"));
        assert!(wildcard.matches("a.b.acme.dev"));
        assert!(!wildcard.matches("acme.dev"));
        assert!(!wildcard.matches("evilacme.dev"));
        assert!(HostPattern::parse("not a host").is_none());
    }
}

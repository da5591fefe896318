//! The re-check: a bundle under the installer's policy.
//!
//! 1. The bundle is read back as a manifest (`reread`), owned by
//!    the authority granted.
//! 2. The checker runs on it under the installer's configuration with its
//!    `[lints]` left out: every rule of the language and the policy, and
//!    the protective lints (`codes::PROTECTIVE_LINTS`), at their defaults.
//!    The author's suppressions and `[lints]` never reach this text.
//! 3. A diagnostic of a relaxable rule is relaxed only by the installer's
//!    `[trust]` table, for the plugin or for a tool its contributor calls
//!    or loads (and at load, only as the lock recorded it).
//! 4. The manifest is built again and must be the bundle: the same
//!    contributors with the same content, so what was checked is what will
//!    run.
//! 5. The bundle's own `permissions` must not say less than the
//!    installer's tools make of it (`permissions-mismatch`).

use std::collections::HashMap;

use crate::bundle::diff::{self, Change, Class};
use crate::bundle::{self, Bundle, BundledContributor, Permissions};
use crate::codes::{
    self, EAGER_RUN_WRITES, INVALID_BUNDLE, OWNER_CANNOT_PLACE, OWNER_WIDER_THAN_PLUGIN,
    PERMISSIONS_MISMATCH, PRIORITY_ABOVE_OWNER,
};
use crate::config::Config;
use crate::diagnostic::{Diagnostic, Severity};
use crate::ir::{ContributorBody, Owner, Plugin};
use crate::source::{SourceFile, Span};

use super::lock::Relaxed;
use super::reread;

/// What the re-check found.
#[derive(Debug)]
pub struct Recheck {
    /// The bundle as this workspace reads it, which the diagnostics point
    /// into.
    pub source: SourceFile,
    /// Errors refuse the bundle; warnings are shown.
    pub diagnostics: Vec<Diagnostic>,
    /// What the workspace relaxed, to be recorded.
    pub relaxed: Vec<Relaxed>,
    /// The authority granted.
    pub granted: Owner,
    /// The bundle as granted: owners narrowed, permissions the workspace's
    /// own, measured with its tokenizer; the catalog's digest kept. What
    /// the preview shows, even when refused.
    pub approved: Bundle,
    /// Where the bundle's own permissions say more than it asks for: shown,
    /// not refused.
    pub overstated: Vec<Change>,
}

impl Recheck {
    /// Whether anything refuses the bundle.
    pub fn refused(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Which relaxations may apply.
#[derive(Debug, Clone, Copy)]
pub enum Relaxations<'a> {
    /// At install: what the workspace's `[trust]` table says now.
    Configured,
    /// At load: what it says now and the lock recorded when approving.
    Recorded(&'a [Relaxed]),
}

/// The help of every diagnostic about a bundle no build of its manifest
/// would write.
const NOT_BUILT_HERE: &str =
    "a build never writes this; the bundle was made or edited by hand: do not install it";

/// Re-checks `bundle` for a workspace configured by `config`, installed by
/// `installer`.
pub fn recheck(
    bundle: &Bundle,
    config: &Config,
    installer: Owner,
    relaxations: Relaxations<'_>,
) -> Recheck {
    let granted = super::grant(bundle.requested_owner, installer);
    let name = format!("{} (as this workspace reads it)", bundle.id());
    let mut approved = bundle.clone();
    approved.permissions = Permissions::of(&bundle.contributors, config);
    let text = match reread::manifest(bundle, granted) {
        Ok(text) => text,
        Err(why) => {
            let source = SourceFile::new(name, String::new());
            let diagnostic = Diagnostic::new(
                &INVALID_BUNDLE,
                format!("{} cannot be read back as a manifest: {why}", bundle.id()),
            )
            .primary(Span::point(0), "not what a build writes")
            .help(NOT_BUILT_HERE);
            return Recheck {
                source,
                diagnostics: vec![diagnostic],
                relaxed: Vec::new(),
                granted,
                approved,
                overstated: Vec::new(),
            };
        }
    };
    let source = SourceFile::new(name, text);
    let policy = Config {
        lints: HashMap::new(),
        ..config.clone()
    };
    let analysis = crate::analyze(&source, &policy);
    let mut diagnostics: Vec<Diagnostic> = analysis
        .diagnostics
        .into_iter()
        .filter(|diagnostic| codes::protects_installer(diagnostic.rule))
        .map(|diagnostic| explain_authority(diagnostic, bundle.requested_owner, installer, granted))
        .collect();
    let mut relaxed = Vec::new();
    if let Some(plugin) = &analysis.plugin {
        diagnostics.retain(|diagnostic| {
            match relaxation(diagnostic, plugin, config, &bundle.plugin, relaxations) {
                Some(relaxation) => {
                    relaxed.push(relaxation);
                    false
                }
                None => true,
            }
        });
        if !diagnostics
            .iter()
            .any(|d| d.is_error() && d.rule.kind == crate::diagnostic::RuleKind::Language)
        {
            match bundle::build(plugin, &policy) {
                Ok(rebuilt) => {
                    diagnostics.extend(unfaithful(bundle, &rebuilt, plugin.name.span));
                    approved = Bundle {
                        requested_owner: bundle.requested_owner,
                        author_waivers: bundle.author_waivers.clone(),
                        digest: bundle.digest.clone(),
                        ..rebuilt
                    };
                }
                Err(message) => diagnostics.push(
                    Diagnostic::new(
                        &INVALID_BUNDLE,
                        format!("{} cannot be rebuilt: {message}", bundle.id()),
                    )
                    .primary(plugin.name.span, "no bundle can be written for this")
                    .help(NOT_BUILT_HERE),
                ),
            }
        }
    }
    relaxed.sort();
    relaxed.dedup();
    // A run of a tool this workspace does not have is `unknown-tool`'s to
    // report; what either side says of its effect is beside the point.
    let known = |permissions: &Permissions| Permissions {
        tools_run: permissions
            .tools_run
            .iter()
            .filter(|run| config.tools.contains_key(&run.tool))
            .cloned()
            .collect(),
        ..permissions.clone()
    };
    let changes = diff::permissions(&known(&bundle.permissions), &known(&approved.permissions));
    let (understated, overstated): (Vec<Change>, Vec<Change>) = changes
        .into_iter()
        .partition(|change| change.class == Class::NeedsApproval);
    for change in understated {
        diagnostics.push(mismatch(&source, &change));
    }
    crate::diagnostic::sort(&mut diagnostics);
    Recheck {
        source,
        diagnostics,
        relaxed,
        granted,
        approved,
        overstated,
    }
}

/// A diagnostic about authority, told in the installer's terms when the
/// authority granted is less than the one requested.
fn explain_authority(
    diagnostic: Diagnostic,
    requested: Owner,
    installer: Owner,
    granted: Owner,
) -> Diagnostic {
    let about_authority = [
        &OWNER_CANNOT_PLACE,
        &PRIORITY_ABOVE_OWNER,
        &OWNER_WIDER_THAN_PLUGIN,
    ]
    .iter()
    .any(|rule| rule.code == diagnostic.rule.code);
    if !about_authority || granted == requested {
        return diagnostic;
    }
    Diagnostic {
        fixes: Vec::new(),
        ..diagnostic
    }
    .help(format!(
        "its author requests `{requested}`, and this install grants at most `{installer}`: install it as an authority that may add this (`contrib install --as …`, or `[trust] as`), or ask its author for a version within `{granted}`"
    ))
}

/// The relaxation that applies to `diagnostic`, if any.
fn relaxation(
    diagnostic: &Diagnostic,
    plugin: &Plugin,
    config: &Config,
    plugin_name: &str,
    relaxations: Relaxations<'_>,
) -> Option<Relaxed> {
    if !codes::is_relaxable(diagnostic.rule) {
        return None;
    }
    let at = diagnostic.span().start;
    let contributor = plugin
        .contributors
        .iter()
        .find(|contributor| contributor.span.contains(at))?;
    let tools: Vec<&str> = match &contributor.body {
        ContributorBody::EagerLoad { tools, .. } => {
            tools.iter().map(|tool| tool.value.as_str()).collect()
        }
        _ => contributor
            .call()
            .map(|call| call.tool.value.as_str())
            .into_iter()
            .collect(),
    };
    let by_plugin = config
        .trust
        .plugins
        .get(plugin_name)
        .filter(|relaxation| relaxation.relaxes(diagnostic.rule))
        .map(|relaxation| (None, relaxation.reason.clone()));
    let by_tool = || {
        tools.iter().find_map(|tool| {
            config
                .trust
                .tools
                .get(*tool)
                .filter(|relaxation| relaxation.relaxes(diagnostic.rule))
                .map(|relaxation| (Some(tool.to_string()), relaxation.reason.clone()))
        })
    };
    // `eager = true` on a tool that writes is the workspace opting that
    // tool in to eager runs: the rule reports it as a warning.
    let by_eager = || {
        (diagnostic.rule.code == EAGER_RUN_WRITES.code && diagnostic.severity == Severity::Warning)
            .then(|| {
                let tool = tools.first().map(|tool| tool.to_string());
                let reason = format!(
                    "`eager = true` in `[tools.{}]`",
                    tool.as_deref().unwrap_or_default()
                );
                (tool, reason)
            })
    };
    let (tool, reason) = by_plugin.or_else(by_tool).or_else(by_eager)?;
    let relaxed = Relaxed {
        rule: diagnostic.rule.name.to_string(),
        contributor: contributor.id.value.clone(),
        tool,
        reason,
    };
    match relaxations {
        Relaxations::Configured => Some(relaxed),
        Relaxations::Recorded(recorded) => recorded
            .iter()
            .any(|entry| {
                entry.rule == relaxed.rule
                    && entry.contributor == relaxed.contributor
                    && entry.tool == relaxed.tool
            })
            .then_some(relaxed),
    }
}

/// Where the manifest read back builds to something other than the
/// bundle: a bundle no build writes.
fn unfaithful(bundle: &Bundle, rebuilt: &Bundle, at: Span) -> Vec<Diagnostic> {
    let mut differences = Vec::new();
    if bundle.plugin != rebuilt.plugin
        || bundle.version != rebuilt.version
        || bundle.summary != rebuilt.summary
        || bundle.requires != rebuilt.requires
    {
        differences.push("its name, version, summary or requirements".to_string());
    }
    let comparable = |contributor: &BundledContributor| {
        let fixed_priority = !contributor.kind.spec().has_field("priority");
        BundledContributor {
            owner: Owner::Person,
            measured_tokens: 0,
            priority: if fixed_priority {
                crate::ir::Priority::Person
            } else {
                contributor.priority
            },
            framing: if fixed_priority {
                None
            } else {
                contributor.framing.clone()
            },
            // How an eager load chose from usage is a record a manifest
            // cannot say; what it loads (its tools and operations, compared
            // here) is what the runtime acts on.
            choice: None,
            ..contributor.clone()
        }
    };
    for contributor in &bundle.contributors {
        match rebuilt
            .contributors
            .iter()
            .find(|other| other.id == contributor.id)
        {
            Some(other) if comparable(other) == comparable(contributor) => {}
            Some(_) => differences.push(format!("contributor `{}`", contributor.id)),
            None => differences.push(format!("contributor `{}` is missing", contributor.id)),
        }
    }
    if rebuilt.contributors.len() != bundle.contributors.len() {
        differences.push("the number of contributors".to_string());
    }
    differences
        .into_iter()
        .map(|difference| {
            Diagnostic::new(
                &INVALID_BUNDLE,
                format!(
                    "{} does not read back as a build writes it: {difference} differs",
                    bundle.id()
                ),
            )
            .primary(at, "not the bundle a build of this manifest writes")
            .help(NOT_BUILT_HERE)
        })
        .collect()
}

/// A claim of the bundle's that says less than the workspace's tools make
/// of it.
fn mismatch(source: &SourceFile, change: &Change) -> Diagnostic {
    // Point at the words the change is about: the tool's call or the
    // host, when the manifest names them.
    let named = change.message.split('`').nth(1).and_then(|name| {
        source
            .text
            .find(name)
            .map(|start| Span::new(start, start + name.len()))
    });
    let at = named.unwrap_or_else(|| Span::new(0, source.text.find(' ').unwrap_or(0)));
    let what = change
        .message
        .replacen("newly ", "", 1)
        .replace(" now ", " ");
    Diagnostic::new(
        &PERMISSIONS_MISMATCH,
        format!("the bundle's permissions understate what it asks for under this workspace's tools: {what}"),
    )
    .primary(at, "under this workspace's tools")
    .help("this workspace's definitions of its tools apply, never the bundle's: ask its author to build it against the tools as the platform defines them")
}

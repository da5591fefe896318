//! `textDocument/hover`: the vocabulary explained where it is used.
//!
//! - a placement: who shares it and where it goes, in a list of every
//!   placement with this one marked; owners, priorities, reaches and
//!   sources likewise;
//! - a contributor (its header or its `budget`): measured tokens against
//!   the budget, its variance, and the framing put before it;
//! - a tool: its effect, gating, egress and parameters from the workspace
//!   configuration; a skill or one of its operations: versions and tokens;
//! - a `{variable}` in a body: its variance and worst-case length;
//! - a rule named in a `# contrib: allow(…)` comment: its explanation;
//! - anything a diagnostic covers: the rule's summary and why it matters,
//!   after whatever else the hover says.
//!
//! # Lists, not tables
//!
//! Every hover is paragraphs and `- name: value` lists. Markdown tables
//! render only in some clients (Helix and plain-text clients show their
//! pipes), while a list reads the same rendered or not.
//!
//! Everything is computed from the cursor's context (see `context`), so a
//! hover works on text that does not parse yet; what needs the IR (a
//! contributor's measure) says so when its contributor has errors.

use std::fmt::Write as _;

use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind, Position};

use crate::config::{Config, Effect, Tool};
use crate::diagnostic::Rule;
use crate::ir::variables::{self, Availability};
use crate::ir::variance;
use crate::ir::{self, Contributor, Kind, Owner, Placement, Plugin, Priority, Reach, Source};
use crate::lsp::context::Cursor;
use crate::lsp::convert;
use crate::lsp::state::Snapshot;
use crate::lsp::world::World;
use crate::source::Span;

/// The route's handler: what is under the cursor.
pub fn request(world: &mut World, params: HoverParams) -> Option<Hover> {
    let at = params.text_document_position_params;
    let snapshot = world.state.snapshot(&at.text_document.uri)?;
    hover(&snapshot, at.position)
}

pub fn hover(snapshot: &Snapshot<'_>, position: Position) -> Option<Hover> {
    let offset = convert::offset(snapshot.source, position);
    let cursor = Cursor::new(&snapshot.source.text, snapshot.syntax.tree(), offset);
    let (markdown, span) = with_rules(markdown(snapshot, &cursor), snapshot, offset)?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }),
        range: Some(convert::range(snapshot.source, span)),
    })
}

/// The hover's Markdown and the span it is about.
pub fn markdown(snapshot: &Snapshot<'_>, cursor: &Cursor<'_>) -> Option<(String, Span)> {
    if let Some(comment) = cursor.comment {
        return suppression(cursor, comment);
    }
    if let Some(string) = &cursor.string {
        return variable(cursor, string.before);
    }
    let (_, span) = cursor.word()?;
    let word = cursor.slice(span);
    let words = cursor.words();
    let index = cursor.words_before().len();
    let key = *words.first()?;
    let config = &snapshot.config;
    let plugin = snapshot.analysis.plugin.as_ref();
    let block = cursor.block().map(|head| head.keyword.as_str());
    let text = if block == Some("call") {
        let tool = cursor.block()?.args.first()?;
        (index == 0).then(|| parameter(config, tool, word))?
    } else if Kind::parse(key).is_some() || (key == "budget" && index <= 1) {
        contributor(snapshot, cursor, key)
    } else {
        match (key, index) {
            ("plugin", _) => plugin.map(|plugin| plugin_summary(snapshot, plugin, config))?,
            ("placement", _) => vocabulary::<Placement>(pick(&words), placement_item),
            ("owner", _) => vocabulary::<Owner>(pick(&words), owner_item),
            ("priority", _) => vocabulary::<Priority>(pick(&words), priority_item),
            ("reach", _) => vocabulary::<Reach>(pick(&words), reach_item),
            ("source", _) => vocabulary::<Source>(pick(&words), source_item),
            ("tools", 1..) | ("call", 1) => tool(config, word),
            ("skill", 1) | ("requires", 2) => skill(config, word),
            ("skill", 3..) if words.get(2) == Some(&"operations") => {
                operation(config, words.get(1)?, word)
            }
            ("when", 2) if words.get(1) == Some(&"skill-updated") => skill(config, word),
            _ => return None,
        }
    };
    Some((text, span))
}

/// The value written after a field's name, if it is one of the vocabulary.
fn pick<'w>(words: &[&'w str]) -> Option<&'w str> {
    words.get(1).copied()
}

/// A whole vocabulary as a list, the value written marked "(here)".
fn vocabulary<V: ir::Vocabulary + std::fmt::Display>(
    written: Option<&str>,
    item: fn(V) -> String,
) -> String {
    let written = written.and_then(V::parse);
    let mut text = match written {
        Some(value) => format!("**{}** `{value}`\n\n", V::NOUN),
        None => format!("**{}**\n\n", V::NOUN),
    };
    for spelling in V::spellings() {
        let Some(value) = V::parse(spelling) else {
            continue;
        };
        let here = if written.is_some_and(|written| written.to_string() == spelling) {
            " (here)"
        } else {
            ""
        };
        let _ = writeln!(text, "- `{spelling}`{here}: {}", item(value));
    }
    text
}

/// `- name: value` lines, the form every hover's details take.
fn fields(text: &mut String, rows: &[(&str, String)]) {
    for (name, value) in rows {
        let _ = writeln!(text, "- {name}: {value}");
    }
}

fn placement_item(placement: Placement) -> String {
    format!(
        "shared by {}; goes to {}",
        placement.shared_by(),
        goes_to(placement)
    )
}

/// Where a placement's text ends up in what the model is given.
pub fn goes_to(placement: Placement) -> &'static str {
    match placement {
        Placement::Platform | Placement::Agent | Placement::Person => {
            "the system prompt, cached with everyone who shares it"
        }
        Placement::Conversation => "the conversation's start, after the system prompt",
        Placement::Message => "the turn it is for, before the person's message",
    }
}

fn owner_item(owner: Owner) -> String {
    format!(
        "places at `{}` or narrower, ranks at `{}` or lower",
        owner.widest_placement(),
        owner.highest_priority()
    )
}

fn priority_item(priority: Priority) -> String {
    let framed = if priority.is_framed() {
        "framed, so it cannot override what ranks above"
    } else {
        "not framed"
    };
    let owners: Vec<String> = Owner::ALL
        .iter()
        .filter(|owner| owner.highest_priority() <= priority)
        .map(|owner| format!("`{owner}`"))
        .collect();
    format!("{framed}; may be claimed by {}", owners.join(", "))
}

fn reach_item(reach: Reach) -> String {
    match reach {
        Reach::EveryTurn => "every turn, including those no person is waiting on",
        Reach::WithPerson => "turns taken while a person is present",
        Reach::Replies => "only turns that answer a person's message",
    }
    .to_string()
}

fn source_item(source: Source) -> String {
    match source {
        Source::UserAuthored => "written by the person; trusted as theirs",
        Source::SystemConfig => "the platform's or workspace's configuration",
        Source::External => "untrusted: marked so in its envelope",
    }
    .to_string()
}

/// A contributor: what it adds against its budget, and how it is framed.
fn contributor(snapshot: &Snapshot<'_>, cursor: &Cursor<'_>, key: &str) -> String {
    let words = cursor.words();
    let id = if Kind::parse(key).is_some() {
        words.get(1).copied()
    } else {
        cursor
            .blocks
            .iter()
            .rev()
            .find(|head| Kind::parse(&head.keyword).is_some())
            .and_then(|head| head.args.first().map(String::as_str))
    };
    let plugin = snapshot.analysis.plugin.as_ref();
    let found = plugin.zip(id).and_then(|(plugin, id)| {
        plugin
            .contributors
            .iter()
            .find(|contributor| contributor.id.value == id)
            .map(|contributor| (plugin, contributor))
    });
    match found {
        Some((plugin, contributor)) => describe(plugin, contributor, &snapshot.config),
        None => {
            let kind = Kind::parse(key).map_or(String::new(), |kind| format!("**{kind}** "));
            format!(
                "{kind}`{}`\n\nNot measured: fix the errors in this contributor first.",
                id.unwrap_or("?")
            )
        }
    }
}

/// A lowered contributor's hover.
pub fn describe(plugin: &Plugin, contributor: &Contributor, config: &Config) -> String {
    let kind = contributor.kind();
    let measure = crate::check::measure(plugin, contributor, config);
    let tokens = measure.tokens();
    let budget = contributor.budget.value;
    let summary = contributor.spec().summary_at(
        contributor.placement.value,
        contributor.activation.value.is_always(),
    );
    let mut text = format!("**{kind}** `{}` — {summary}\n\n", contributor.id.value);
    let percent = (tokens * 100).checked_div(budget).unwrap_or(0);
    let verdict = if tokens > budget {
        " — **over budget**"
    } else {
        ""
    };
    let measured = if measure.complete {
        format!("{tokens} tokens ({percent}% of {budget}){verdict}")
    } else {
        format!(
            "{tokens} tokens known before run time (the call); the runtime refuses a result over {budget}"
        )
    };
    let (varies, cause) = variance::of(contributor);
    let why = match cause {
        Some(variance::Cause::Variable(used)) => format!(" (`{{{}}}`)", used.variable.name),
        Some(variance::Cause::Owner(_)) => " (a person owns it)".to_string(),
        Some(variance::Cause::Kind(_)) => format!(" (every `{kind}` does)"),
        None => String::new(),
    };
    let placement = contributor.placement.value;
    let rows = [
        ("measured", format!("{measured}, with {}", config.tokenizer)),
        ("budget", format!("{budget} tokens")),
        (
            "placement",
            format!("`{placement}`, shared by {}", placement.shared_by()),
        ),
        ("varies per", varies_per(varies, &why)),
        ("owner", format!("`{}`", contributor.owner.value)),
        ("priority", format!("`{}`", contributor.priority.value)),
        ("reach", format!("`{}`", contributor.reach.value)),
    ];
    fields(&mut text, &rows);
    if let Some(framing) = ir::framing(&plugin.name.value, contributor) {
        let _ = write!(
            text,
            "\nFramed as lower-priority text; counted in the measure:\n\n> {framing}\n"
        );
    }
    text
}

fn varies_per(variance: Placement, why: &str) -> String {
    if variance == Placement::Platform {
        "nothing; it is the same for everyone".to_string()
    } else {
        format!("`{variance}`{why}")
    }
}

fn plugin_summary(snapshot: &Snapshot<'_>, plugin: &Plugin, config: &Config) -> String {
    let in_prompt: u64 = plugin
        .contributors
        .iter()
        .filter(|contributor| contributor.placement.value.is_system_prompt())
        .map(|contributor| contributor.budget.value)
        .sum();
    format!(
        "**plugin** `{}` {}\n\n{} contributors, owned by `{}`; {in_prompt} of the system prompt's {} tokens budgeted at platform, agent and person placements",
        plugin.name.value,
        plugin.version.value,
        plugin.contributors.len(),
        plugin.owner.value,
        config.system_prompt_budget()
    ) + &by_placement(snapshot)
}

/// The plugin's totals at each placement, as its code lens shows them.
fn by_placement(snapshot: &Snapshot<'_>) -> String {
    let mut text = String::from("\n\nBy placement:\n\n");
    for (placement, total) in super::code_lens::totals(snapshot) {
        let bound = if total.complete { "" } else { "≥ " };
        let _ = writeln!(
            text,
            "- `{placement}`: {} budgeted, {bound}{} measured, {} contributors",
            total.budgeted, total.measured, total.contributors
        );
    }
    text
}

fn tool(config: &Config, name: &str) -> String {
    let Some(tool) = config.tools.get(name) else {
        return format!("`{name}` is not a tool of this workspace: declare it as `[tools.{name}]` in `contrib.toml`");
    };
    let mut text = format!(
        "**tool** `{name}` — {}\n\n",
        declared_in(tool.declared.is_some())
    );
    let eager = match (tool.effect, tool.eager) {
        (Effect::Read, _) => "allowed (read-only)",
        (_, true) => "allowed, opted in with `eager = true` (it writes)",
        _ => "refused: it writes",
    };
    let gated = if tool.gated {
        "yes; a run waits for the person's approval"
    } else {
        "no"
    };
    let egress = if tool.egress {
        let allowed: Vec<String> = config.egress.iter().map(host_pattern).collect();
        if allowed.is_empty() {
            "yes; its `url` is checked against `[egress] allow`, which allows no host".to_string()
        } else {
            format!(
                "yes; its `url` is checked against `[egress] allow`, which allows {}",
                allowed.join(", ")
            )
        }
    } else {
        "no".to_string()
    };
    let rows = [
        ("effect", format!("`{}`", tool.effect.as_str())),
        ("gated", gated.to_string()),
        ("egress", egress),
        ("eager runs", eager.to_string()),
        (
            "schema",
            format!("{} tokens when loaded eagerly", tool.schema_tokens),
        ),
        ("params", params(tool)),
    ];
    fields(&mut text, &rows);
    text
}

fn params(tool: &Tool) -> String {
    if tool.params.is_empty() {
        return "none".to_string();
    }
    tool.params
        .iter()
        .map(|(name, param)| {
            let optional = if param.required { "" } else { "?" };
            format!("`{name}: {}{optional}`", param.kind.as_str())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn parameter(config: &Config, tool: &str, name: &str) -> String {
    match config
        .tools
        .get(tool)
        .and_then(|found| found.params.get(name))
    {
        Some(param) => format!(
            "**parameter** `{name}` of `{tool}`: {}, {}",
            param.kind.as_str(),
            if param.required {
                "required"
            } else {
                "optional"
            }
        ),
        None => format!("`{tool}` has no parameter `{name}`"),
    }
}

fn host_pattern(pattern: &crate::config::HostPattern) -> String {
    match pattern {
        crate::config::HostPattern::Exact(host) => format!("`{host}`"),
        crate::config::HostPattern::Subdomains(domain) => format!("`*.{domain}`"),
    }
}

fn declared_in(workspace: bool) -> &'static str {
    if workspace {
        "declared in the workspace's `contrib.toml`"
    } else {
        "one of the platform's own"
    }
}

fn skill(config: &Config, name: &str) -> String {
    let Some(skill) = config.skills.get(name) else {
        return format!("`{name}` is not a skill of this workspace: declare it as `[skills.{name}]` in `contrib.toml`");
    };
    let mut text = format!(
        "**skill** `{name}` {} — {}\n\nIts manifest costs {} tokens when loaded eagerly, and each operation:\n\n",
        skill.version,
        declared_in(skill.declared.is_some()),
        skill.manifest_tokens
    );
    for (operation, tokens) in &skill.operations {
        let _ = writeln!(text, "- `{operation}`: {tokens} tokens");
    }
    text
}

fn operation(config: &Config, skill: &str, name: &str) -> String {
    match config
        .skills
        .get(skill)
        .and_then(|found| found.operations.get(name))
    {
        Some(tokens) => format!(
            "**operation** `{name}` of skill `{skill}`: {tokens} tokens when loaded eagerly"
        ),
        None => format!("`{skill}` has no operation `{name}`"),
    }
}

/// The `{variable}` around the cursor in a string.
fn variable(cursor: &Cursor<'_>, before: Span) -> Option<(String, Span)> {
    let text = cursor.text;
    let prefix = cursor.slice(before);
    let open = prefix.rfind('{')?;
    let name_start = before.start + open + 1;
    if !text[name_start..cursor.offset]
        .bytes()
        .all(is_variable_byte)
    {
        return None;
    }
    let name_end = name_start
        + text[name_start..]
            .bytes()
            .position(|byte| !is_variable_byte(byte))
            .unwrap_or(text.len() - name_start);
    let name = &text[name_start..name_end];
    let span = Span::new(name_start - 1, (name_end + 1).min(text.len()));
    let Some(variable) = variables::find(name) else {
        let known: Vec<String> = variables::VARIABLES
            .iter()
            .map(|variable| format!("`{{{}}}`", variable.name))
            .collect();
        return Some((
            format!(
                "`{{{name}}}` is not a template variable; the variables are {}",
                known.join(", ")
            ),
            span,
        ));
    };
    let available = match variable.available {
        Availability::Always => "always".to_string(),
        Availability::When(condition) => format!("only in a `system-message` `when {condition} …`"),
    };
    let mut text = format!(
        "**variable** `{{{}}}` — {}\n\n",
        variable.name, variable.description
    );
    fields(
        &mut text,
        &[
            (
                "varies per",
                format!(
                    "`{}`; place it at `{}` or narrower",
                    variable.variance, variable.variance
                ),
            ),
            (
                "at most",
                format!(
                    "{} tokens, as budgets count it; a longer value is withheld",
                    variable.max_tokens
                ),
            ),
            ("available", available),
            ("e.g.", format!("`{}`", variable.example)),
        ],
    );
    Some((text, span))
}

pub fn is_variable_byte(byte: u8) -> bool {
    byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'.' || byte == b'-'
}

/// The rule named under the cursor in a `# contrib: allow(…)` comment.
fn suppression(cursor: &Cursor<'_>, comment: Span) -> Option<(String, Span)> {
    let text = cursor.slice(comment);
    if !text.contains("contrib:") {
        return None;
    }
    let is_name = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'-';
    let at = cursor.offset.checked_sub(comment.start)?;
    let bytes = text.as_bytes();
    let start = bytes[..at]
        .iter()
        .rposition(|&byte| !is_name(byte))
        .map_or(0, |i| i + 1);
    let end = bytes[at..]
        .iter()
        .position(|&byte| !is_name(byte))
        .map_or(bytes.len(), |i| at + i);
    let rule = crate::codes::find(text.get(start..end)?)?;
    let span = Span::new(comment.start + start, comment.start + end);
    Some((
        format!(
            "**{}** ({}) — {}\n\nDefault level: `{}`\n{}",
            rule.name,
            rule.code,
            rule.summary,
            rule.default_level.as_str(),
            rule.explanation.trim_end()
        ),
        span,
    ))
}

/// The hover's text followed by the rules of the diagnostics the cursor is
/// on, each once: what the rule is and why it matters. The editor shows
/// the diagnostic's own message beside it; `contrib explain` has the rest.
fn with_rules(
    found: Option<(String, Span)>,
    snapshot: &Snapshot<'_>,
    offset: usize,
) -> Option<(String, Span)> {
    let mut rules: Vec<(&Rule, Span)> = Vec::new();
    for diagnostic in &snapshot.analysis.diagnostics {
        let span = diagnostic.span();
        let on = span.contains(offset) || span.end == offset;
        if on
            && !rules
                .iter()
                .any(|(rule, _)| rule.code == diagnostic.rule.code)
        {
            rules.push((diagnostic.rule, span));
        }
    }
    let (mut text, span) = match found {
        Some(found) => found,
        None => (String::new(), rules.first()?.1),
    };
    for (rule, _) in rules {
        if !text.is_empty() {
            text.push_str("\n---\n\n");
        }
        text.push_str(&rule_note(rule));
    }
    Some((text, span))
}

/// A rule in a few lines: its name, code and summary, why it matters, and
/// where the whole explanation is.
fn rule_note(rule: &Rule) -> String {
    let mut text = format!("**{}** ({}): {}\n\n", rule.name, rule.code, rule.summary);
    if let Some(why) = crate::codes::section(rule, "Why is this bad?") {
        let _ = write!(text, "{why}\n\n");
    }
    let _ = writeln!(
        text,
        "`contrib explain {}` shows the whole explanation, with an example.",
        rule.name
    );
    text
}

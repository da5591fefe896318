//! `textDocument/hover`: the vocabulary explained where it is used.
//!
//! - a placement: who shares it and where it goes, as a table of every
//!   placement with this one in bold; owners, priorities, reaches and
//!   sources likewise;
//! - a contributor (its header or its `budget`): measured tokens against
//!   the budget, its variance, and the framing put before it;
//! - a tool: its effect, gating, egress and parameters from the workspace
//!   configuration; a skill or one of its operations: versions and tokens;
//! - a `{variable}` in a body: its variance and worst-case length;
//! - a rule named in a `# contrib: allow(…)` comment: its explanation.
//!
//! Everything is computed from the cursor's context (see `context`), so a
//! hover works on text that does not parse yet; what needs the IR (a
//! contributor's measure) says so when its contributor has errors.

use std::fmt::Write as _;

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};

use crate::check::Measure;
use crate::config::{Config, Effect, Tool};
use crate::ir::variables::{self, Availability};
use crate::ir::variance;
use crate::ir::{self, Contributor, Kind, Owner, Placement, Plugin, Priority, Reach, Source};
use crate::lsp::context::Cursor;
use crate::lsp::convert;
use crate::lsp::state::Snapshot;
use crate::source::Span;

pub fn hover(snapshot: &Snapshot<'_>, position: Position) -> Option<Hover> {
    let offset = convert::offset(snapshot.source, position);
    let cursor = Cursor::new(&snapshot.source.text, offset);
    let (markdown, span) = markdown(snapshot, &cursor)?;
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
            ("plugin", _) => plugin.map(|plugin| plugin_summary(plugin, config))?,
            ("placement", _) => table::<Placement>(pick(&words), placement_row),
            ("owner", _) => table::<Owner>(pick(&words), owner_row),
            ("priority", _) => table::<Priority>(pick(&words), priority_row),
            ("reach", _) => table::<Reach>(pick(&words), reach_row),
            ("source", _) => table::<Source>(pick(&words), source_row),
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

/// A table of a whole vocabulary, the value written in bold.
fn table<V: ir::Vocabulary + std::fmt::Display>(
    written: Option<&str>,
    row: fn(V) -> [String; 2],
) -> String {
    let written = written.and_then(V::parse);
    let [first, second] = header::<V>();
    let mut text = match written {
        Some(value) => format!("**{}** `{value}`\n\n", V::NOUN),
        None => format!("**{}**\n\n", V::NOUN),
    };
    let _ = writeln!(text, "| {} | {first} | {second} |\n|---|---|---|", V::NOUN);
    for spelling in V::spellings() {
        let Some(value) = V::parse(spelling) else {
            continue;
        };
        let [a, b] = row(value);
        let name = if written.is_some_and(|written| written.to_string() == spelling) {
            format!("**`{spelling}`**")
        } else {
            format!("`{spelling}`")
        };
        let _ = writeln!(text, "| {name} | {a} | {b} |");
    }
    text
}

fn header<V: ir::Vocabulary>() -> [&'static str; 2] {
    match V::NOUN {
        "placement" => ["shared by", "goes to"],
        "owner" => ["widest placement", "highest priority"],
        "priority" => ["framed", "may be claimed by"],
        "reach" => ["reaches", ""],
        _ => ["trust", ""],
    }
}

fn placement_row(placement: Placement) -> [String; 2] {
    [
        placement.shared_by().to_string(),
        goes_to(placement).to_string(),
    ]
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

fn owner_row(owner: Owner) -> [String; 2] {
    [
        format!("`{}`", owner.widest_placement()),
        format!("`{}`", owner.highest_priority()),
    ]
}

fn priority_row(priority: Priority) -> [String; 2] {
    let framed = if priority.is_framed() {
        "yes: it cannot override what ranks above"
    } else {
        "no"
    };
    let owners: Vec<String> = Owner::ALL
        .iter()
        .filter(|owner| owner.highest_priority() <= priority)
        .map(|owner| format!("`{owner}`"))
        .collect();
    [framed.to_string(), owners.join(", ")]
}

fn reach_row(reach: Reach) -> [String; 2] {
    let text = match reach {
        Reach::EveryTurn => "every turn, including those no person is waiting on",
        Reach::WithPerson => "turns taken while a person is present",
        Reach::Replies => "only turns that answer a person's message",
    };
    [text.to_string(), String::new()]
}

fn source_row(source: Source) -> [String; 2] {
    let text = match source {
        Source::UserAuthored => "written by the person; trusted as theirs",
        Source::SystemConfig => "the platform's or workspace's configuration",
        Source::External => "untrusted: marked so in its envelope",
    };
    [text.to_string(), String::new()]
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
    let measure = Measure::new(plugin, contributor, config);
    let tokens = measure.tokens();
    let budget = contributor.budget.value;
    let mut text = format!(
        "**{kind}** `{}` — {}\n\n",
        contributor.id.value,
        kind_summary(kind)
    );
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
            format!("`{placement}`: shared by {}", placement.shared_by()),
        ),
        ("varies per", varies_per(varies, &why)),
        ("owner", format!("`{}`", contributor.owner.value)),
        ("priority", format!("`{}`", contributor.priority.value)),
        ("reach", format!("`{}`", contributor.reach.value)),
    ];
    text.push_str("| | |\n|---|---|\n");
    for (name, value) in rows {
        let _ = writeln!(text, "| {name} | {value} |");
    }
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
        "nothing: it is the same for everyone".to_string()
    } else {
        format!("`{variance}`{why}")
    }
}

fn kind_summary(kind: Kind) -> &'static str {
    match kind {
        Kind::Text => "text added to the system prompt",
        Kind::EagerLoad => "tools and skill operations loaded when a conversation starts",
        Kind::EagerRun => "a read-only tool call run when a conversation starts",
        Kind::SystemMessage => "a note before a turn when its condition holds",
        Kind::Preface => "retrieved content before a turn, in an envelope",
        Kind::Fact => "session facts, sent again when they change",
    }
}

fn plugin_summary(plugin: &Plugin, config: &Config) -> String {
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
    )
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
        "yes: a run waits for the person's approval"
    } else {
        "no"
    };
    let egress = if tool.egress {
        let allowed: Vec<String> = config.egress.iter().map(host_pattern).collect();
        if allowed.is_empty() {
            "yes: its `url` is checked against `[egress] allow`, which allows no host".to_string()
        } else {
            format!(
                "yes: its `url` is checked against `[egress] allow`: {}",
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
    text.push_str("| | |\n|---|---|\n");
    for (name, value) in rows {
        let _ = writeln!(text, "| {name} | {value} |");
    }
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
        "**skill** `{name}` {} — {}\n\nIts manifest costs {} tokens when loaded eagerly.\n\n| operation | tokens |\n|---|---|\n",
        skill.version,
        declared_in(skill.declared.is_some()),
        skill.manifest_tokens
    );
    for (operation, tokens) in &skill.operations {
        let _ = writeln!(text, "| `{operation}` | {tokens} |");
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
    let text = format!(
        "**variable** `{{{}}}` — {}\n\n| | |\n|---|---|\n| varies per | `{}`: place it at `{}` or narrower |\n| at most | {} tokens, as budgets count it; a longer value is withheld |\n| available | {available} |\n| e.g. | `{}` |\n",
        variable.name,
        variable.description,
        variable.variance,
        variable.variance,
        variable.max_tokens,
        variable.example,
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
    let rule = crate::rules::find(text.get(start..end)?)?;
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

//! The approval screen as the terminal shows it, and as a page written
//! beside: both drawn from one [`Screen`].

use super::build::print_changes;
use super::output::status;
use crate::trust::screen::{headings, Added, Asks, Screen, Waived};

/// Writes the approval screen's page to `path`, saying so on standard
/// error.
pub(super) fn write_page(path: &std::path::Path, screen: &Screen) -> Result<(), String> {
    crate::fs::write_atomically(path, crate::pages::approval::render(screen).as_bytes())?;
    status(format_args!(
        "wrote the approval screen for {} to `{}`",
        screen.id,
        path.display()
    ));
    Ok(())
}

/// The approval screen as terminal text: the header and what the plugin
/// asks for, then, when installing, who grants what and what changed.
pub(super) fn screen_text(screen: &Screen) -> String {
    let mut text = String::new();
    if let Some(install) = &screen.install {
        text.push_str(&format!(
            "Installing {} from `{}`\n",
            screen.id, install.catalog
        ));
        text.push_str(&format!(
            "authority: requested `{}`, granted `{}` (installing as `{}`)\n",
            screen.requested_owner, install.granted, install.installer
        ));
        text.push_str(
            "tools, effects, gates and hosts below are this workspace's, not the bundle's\n\n",
        );
    }
    text.push_str(&format!(
        "{} (owner: {})\n",
        screen.id, screen.requested_owner
    ));
    if let Some(summary) = &screen.summary {
        text.push_str(&format!("{summary}\n"));
    }
    text.push_str(&format!(
        "digest: {}\n\n",
        screen.digest.as_deref().unwrap_or("none")
    ));
    asks_text(&mut text, &screen.asks);
    for added in &screen.contributors {
        added_text(&mut text, added);
    }
    if !screen.overstated.is_empty() {
        text.push_str(&format!("\n{}:\n", headings::OVERSTATED));
        for message in &screen.overstated {
            text.push_str(&format!("  - {message}\n"));
        }
    }
    if !screen.waivers.is_empty() {
        text.push_str(&format!("\n{}:\n", headings::WAIVED));
        for waived in &screen.waivers {
            match waived {
                Waived::Allow {
                    rule,
                    scope,
                    reason,
                } => {
                    let scope = scope
                        .as_ref()
                        .map_or_else(|| "the whole file".to_string(), |id| format!("`{id}`"));
                    text.push_str(&format!("  - allow({rule}) on {scope}: \"{reason}\"\n"));
                }
                Waived::Lint { rule, level } => {
                    text.push_str(&format!("  - [lints] {rule} = \"{level}\"\n"));
                }
            }
        }
    }
    if !screen.relaxed.is_empty() {
        text.push_str(&format!("\n{}:\n", headings::RELAXED));
        for relaxed in &screen.relaxed {
            text.push_str(&format!(
                "  - {} for `{}`, by {}: \"{}\"\n",
                relaxed.rule, relaxed.contributor, relaxed.by, relaxed.reason
            ));
        }
    }
    if let Some(delta) = &screen.delta {
        text.push('\n');
        let mut changes = Vec::new();
        // Writing into memory cannot fail.
        let _ = print_changes(&mut changes, &delta.from, &delta.to, &delta.changes);
        text.push_str(&String::from_utf8_lossy(&changes));
    }
    text
}

fn asks_text(text: &mut String, asks: &Asks) {
    text.push_str("It asks for:\n");
    for budget in &asks.budgets {
        text.push_str(&format!(
            "  {:>6} tokens at {} placement ({})\n",
            budget.tokens, budget.placement, budget.shared_by
        ));
    }
    text.push_str(&format!("  highest priority: {}\n", asks.highest_priority));
    text.push_str(&format!("  reaches: {}\n", asks.reaches.join(", ")));
    if !asks.loads.is_empty() {
        text.push_str(&format!(
            "  loads when a conversation starts: {}\n",
            asks.loads.join(", ")
        ));
    }
    for run in &asks.runs {
        text.push_str(&format!(
            "  runs with nobody asking: {} ({}{})\n",
            run.tool,
            run.effect,
            if run.gated {
                ", gated: waits for approval"
            } else {
                ""
            }
        ));
    }
    if !asks.hosts.is_empty() {
        text.push_str(&format!("  may reach: {}\n", asks.hosts.join(", ")));
    }
    for (skill, version) in &asks.requires {
        text.push_str(&format!("  requires skill {skill} {version}\n"));
    }
}

fn added_text(text: &mut String, added: &Added) {
    text.push_str(&format!(
        "\n── {} {} · {} placement · {} priority · reach {} · budget {} (measured {})\n",
        added.kind,
        added.id,
        added.placement,
        added.priority,
        added.reach,
        added.budget,
        added.measured_tokens
    ));
    if let Some(framing) = &added.framing {
        text.push_str(&format!("{framing}\n"));
    }
    if let Some(body) = &added.text {
        text.push_str(body);
        text.push('\n');
    }
    if let Some(applies) = &added.applies {
        text.push_str(&format!("applies {applies}\n"));
    }
    if let Some(when) = &added.when {
        text.push_str(&format!("when: {when}\n"));
    }
    if let Some(heading) = &added.heading {
        text.push_str(&format!("heading: {heading}\n"));
    }
    if !added.loads_tools.is_empty() {
        text.push_str(&format!("loads tools: {}\n", added.loads_tools.join(", ")));
    }
    if let Some((skill, operations)) = &added.loads_skill {
        text.push_str(&format!("loads skill {skill}: {}\n", operations.join(", ")));
    }
    if let Some(chosen) = &added.chosen {
        text.push_str(&format!("{chosen}\n"));
    }
    if let Some(call) = &added.calls {
        text.push_str(&format!(
            "calls: {} {} ({})\n",
            call.tool, call.arguments, call.effect
        ));
    }
    if let Some((origin, source)) = &added.retrieved {
        text.push_str(&format!("retrieved from: {origin} ({source})\n"));
    }
    if !added.states.is_empty() {
        text.push_str(&format!("states: {}\n", added.states.join(", ")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::Bundle;

    /// A bundle whose one contributor holds a marker in every part the
    /// model reads or that runs.
    fn marked() -> Bundle {
        let contributor = serde_json::json!({
            "id": "all", "kind": "preface", "owner": "workspace", "placement": "message",
            "priority": "person", "reach": "every-turn", "delivery": "turn-note",
            "activation": {"on": "request", "description": "MARK-REQUEST"},
            "budget": 10, "measured_tokens": 5,
            "template": [{"text": "MARK-BODY "}, {"variable": "mark.variable"}],
            "framing": "MARK-FRAMING",
            "tools": ["mark-tool"], "operations": {"skill": "mark-skill", "operations": ["mark-op"]},
            "call": {"tool": "mark-call", "arguments": {"path": "MARK-ARGUMENT"}},
            "condition": {"kind": "skill-updated", "skill": "mark-condition"},
            "source": "system-config", "origin": "MARK-ORIGIN", "heading": "MARK-HEADING",
            "says": ["workspace-root"]
        });
        let bundle = serde_json::json!({
            "format": 2, "plugin": "acme/x", "version": "1.0.0",
            "requested_owner": "workspace", "requires": {}, "tokenizer": "o200k",
            "contributors": [contributor],
            "permissions": {"placements": [], "budgets": {}, "tools_loaded": [], "tools_run": [],
                "egress_hosts": [], "highest_priority": "person", "reaches": []}
        });
        serde_json::from_value(bundle).expect("a bundle")
    }

    /// Every string the model reads, and everything that runs, is on the
    /// terminal screen and on the page.
    #[test]
    fn every_part_the_model_reads_is_shown() {
        let screen = Screen::of_bundle(&marked());
        let terminal = screen_text(&screen);
        let page = crate::pages::approval::render(&screen);
        for part in [
            "MARK-REQUEST",
            "MARK-BODY {mark.variable}",
            "MARK-FRAMING",
            "mark-tool",
            "mark-skill",
            "mark-op",
            "mark-call",
            "MARK-ARGUMENT",
            "skill-updated mark-condition",
            "system-config",
            "MARK-ORIGIN",
            "MARK-HEADING",
            "workspace-root",
        ] {
            assert!(
                terminal.contains(part),
                "`{part}` is not on the terminal screen:\n{terminal}"
            );
            assert!(page.contains(part), "`{part}` is not on the page");
        }
    }
}

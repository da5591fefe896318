//! The approval screen as a page: the same [`Screen`] the terminal preview
//! prints, laid out for a person deciding whether to install.
//!
//! Order follows the decision: for an update, what needs approval first;
//! then who asks and who grants, what the plugin asks for as a whole, what
//! each contributor adds (its exact text), and what its author waived. Key
//! numbers carry `data-key` attributes so a test can read them back from a
//! browser and compare them with the bundle's JSON.

use std::fmt::Write;

use super::html::text;
use super::page;
use crate::bundle::diff::Class;
use crate::trust::screen::{headings, Added, Asks, Delta, Screen, Waived};

/// The whole page.
pub fn render(screen: &Screen) -> String {
    let mut body = String::new();
    let title = match &screen.install {
        Some(_) => format!("Install {}?", screen.id),
        None => format!("What {} adds", screen.id),
    };
    let _ = writeln!(body, "<h1>{}</h1>", text(&title));
    if let Some(summary) = &screen.summary {
        let _ = writeln!(body, "<p>{}</p>", text(summary));
    }
    if let Some(delta) = &screen.delta {
        delta_section(&mut body, delta);
    }
    who_section(&mut body, screen);
    asks_section(&mut body, &screen.asks);
    let _ =
        writeln!(
        body,
        "<section aria-labelledby=\"adds\">\n<h2 id=\"adds\">What it adds ({} contributor{})</h2>",
        screen.contributors.len(),
        if screen.contributors.len() == 1 { "" } else { "s" }
    );
    for (index, added) in screen.contributors.iter().enumerate() {
        contributor_article(&mut body, index, added);
    }
    body.push_str("</section>\n");
    list_section(
        &mut body,
        "claimed",
        headings::OVERSTATED,
        screen.overstated.iter().map(|message| text(message)),
    );
    list_section(
        &mut body,
        "waived",
        headings::WAIVED,
        screen.waivers.iter().map(waived_item),
    );
    list_section(
        &mut body,
        "relaxed",
        headings::RELAXED,
        screen.relaxed.iter().map(|relaxed| {
            format!(
                "<code>{}</code> for <code>{}</code>, by <code>{}</code>: “{}”",
                text(&relaxed.rule),
                text(&relaxed.contributor),
                text(&relaxed.by),
                text(&relaxed.reason)
            )
        }),
    );
    page(&title, &body)
}

/// For an update: the changes, those that need a new approval first and
/// marked in words as well as colour.
fn delta_section(body: &mut String, delta: &Delta) {
    let needs = delta
        .changes
        .iter()
        .filter(|change| change.class == Class::NeedsApproval)
        .count();
    let _ = writeln!(
        body,
        "<section aria-labelledby=\"delta\" class=\"callout\">\n<h2 id=\"delta\">Changes since {}</h2>\n<p><span data-key=\"needs-approval\">{needs}</span> of {} change{} need{} your approval.</p>",
        text(&delta.from),
        delta.changes.len(),
        if delta.changes.len() == 1 { "" } else { "s" },
        if needs == 1 { "s" } else { "" },
    );
    if delta.changes.is_empty() {
        body.push_str("<p>No changes.</p>\n");
    } else {
        body.push_str("<ul>\n");
        let ordered = delta
            .changes
            .iter()
            .filter(|change| change.class == Class::NeedsApproval)
            .chain(
                delta
                    .changes
                    .iter()
                    .filter(|change| change.class == Class::Update),
            );
        for change in ordered {
            let badge = match change.class {
                Class::NeedsApproval => {
                    "<span class=\"badge needs-approval\">needs approval</span>"
                }
                Class::Update => "<span class=\"badge\">update</span>",
            };
            let what = match &change.contributor {
                Some(id) => format!("<code>{}</code>: {}", text(id), text(&change.message)),
                None => text(&change.message),
            };
            let _ = writeln!(body, "<li>{badge} {what}</li>");
        }
        body.push_str("</ul>\n");
    }
    body.push_str("</section>\n");
}

fn who_section(body: &mut String, screen: &Screen) {
    body.push_str("<section aria-labelledby=\"who\">\n<h2 id=\"who\">Who asks, who grants</h2>\n<dl class=\"facts\">\n");
    fact(
        body,
        "Plugin",
        &format!("<code>{}</code>", text(&screen.id)),
    );
    fact(
        body,
        "Owner requested",
        &format!("<code>{}</code>", text(&screen.requested_owner.to_string())),
    );
    if let Some(install) = &screen.install {
        fact(
            body,
            "Authority granted",
            &format!(
                "<code data-key=\"granted\">{}</code> (installing as <code>{}</code>)",
                text(&install.granted.to_string()),
                text(&install.installer.to_string())
            ),
        );
        fact(
            body,
            "Catalog",
            &format!("<code>{}</code>", text(&install.catalog)),
        );
    }
    fact(
        body,
        "Digest",
        &format!(
            "<code>{}</code>",
            text(screen.digest.as_deref().unwrap_or("none"))
        ),
    );
    body.push_str("</dl>\n");
    if screen.install.is_some() {
        body.push_str("<p class=\"muted\">Tools, effects, gates and hosts below are this workspace's, not the bundle's.</p>\n");
    }
    body.push_str("</section>\n");
}

fn asks_section(body: &mut String, asks: &Asks) {
    body.push_str("<section aria-labelledby=\"asks\">\n<h2 id=\"asks\">It asks for</h2>\n");
    body.push_str("<table>\n<caption>Budgets: tokens it may add, by placement</caption>\n<thead><tr><th scope=\"col\">Placement</th><th scope=\"col\" class=\"number\">Tokens</th><th scope=\"col\">Shared by</th></tr></thead>\n<tbody>\n");
    for budget in &asks.budgets {
        let _ = writeln!(
            body,
            "<tr><th scope=\"row\">{}</th><td class=\"number\" data-key=\"budget-{}\">{}</td><td>{}</td></tr>",
            text(&budget.placement),
            super::key(&budget.placement),
            budget.tokens,
            text(budget.shared_by),
        );
    }
    body.push_str("</tbody>\n</table>\n<dl class=\"facts\">\n");
    fact(
        body,
        "Highest priority",
        &format!("<code>{}</code>", text(&asks.highest_priority)),
    );
    fact(body, "Reaches", &codes(&asks.reaches));
    fact(
        body,
        "Loads when a conversation starts",
        &none_or(codes(&asks.loads)),
    );
    fact(body, "May reach hosts", &none_or(codes(&asks.hosts)));
    if !asks.requires.is_empty() {
        let requires: Vec<String> = asks
            .requires
            .iter()
            .map(|(skill, version)| format!("<code>{}</code> {}", text(skill), text(version)))
            .collect();
        fact(body, "Requires skills", &requires.join(", "));
    }
    body.push_str("</dl>\n");
    if asks.runs.is_empty() {
        body.push_str("<p>It runs no tool with nobody asking.</p>\n");
    } else {
        body.push_str("<table>\n<caption>Tools it runs with nobody asking</caption>\n<thead><tr><th scope=\"col\">Tool</th><th scope=\"col\">Effect</th><th scope=\"col\">Gated</th></tr></thead>\n<tbody>\n");
        for run in &asks.runs {
            let _ = writeln!(
                body,
                "<tr><th scope=\"row\"><code>{}</code></th><td>{}</td><td>{}</td></tr>",
                text(&run.tool),
                text(run.effect),
                if run.gated {
                    "yes: waits for approval"
                } else {
                    "no"
                }
            );
        }
        body.push_str("</tbody>\n</table>\n");
    }
    body.push_str("</section>\n");
}

fn contributor_article(body: &mut String, index: usize, added: &Added) {
    let _ = writeln!(
        body,
        "<article class=\"contributor\" aria-labelledby=\"c{index}\">\n<h3 id=\"c{index}\">{} <code>{}</code></h3>\n<dl class=\"facts\">",
        text(&added.kind),
        text(&added.id)
    );
    fact(body, "Placement", &text(&added.placement));
    fact(body, "Priority", &text(&added.priority));
    fact(body, "Reach", &text(&added.reach));
    fact(
        body,
        "Budget",
        &format!(
            "{} tokens (measured {})",
            added.budget, added.measured_tokens
        ),
    );
    if let Some(applies) = &added.applies {
        fact(body, "Applies", &text(applies));
    }
    if let Some(when) = &added.when {
        fact(body, "When", &text(when));
    }
    if let Some(heading) = &added.heading {
        fact(body, "Heading", &text(heading));
    }
    if !added.loads_tools.is_empty() {
        fact(body, "Loads tools", &codes(&added.loads_tools));
    }
    if let Some((skill, operations)) = &added.loads_skill {
        fact(
            body,
            "Loads skill",
            &format!("<code>{}</code>: {}", text(skill), codes(operations)),
        );
    }
    if let Some(chosen) = &added.chosen {
        fact(body, "Chosen", &text(chosen));
    }
    if let Some(call) = &added.calls {
        fact(
            body,
            "Calls",
            &format!(
                "<code>{}</code> <code>{}</code> ({})",
                text(&call.tool),
                text(&call.arguments),
                text(call.effect)
            ),
        );
    }
    if let Some((origin, source)) = &added.retrieved {
        fact(
            body,
            "Retrieved from",
            &format!("{} ({})", text(origin), text(source)),
        );
    }
    if !added.states.is_empty() {
        fact(body, "States", &codes(&added.states));
    }
    body.push_str("</dl>\n");
    if let Some(framing) = &added.framing {
        let _ = writeln!(body, "<p>Framed as:</p>\n<pre>{}</pre>", text(framing));
    }
    if let Some(words) = &added.text {
        let _ = writeln!(
            body,
            "<p>Adds exactly this text (variables shown as <code>{{name}}</code>):</p>\n<pre>{}</pre>",
            text(words)
        );
    }
    body.push_str("</article>\n");
}

fn waived_item(waived: &Waived) -> String {
    match waived {
        Waived::Allow {
            rule,
            scope,
            reason,
        } => {
            let scope = scope.as_ref().map_or_else(
                || "the whole file".to_string(),
                |id| format!("<code>{}</code>", text(id)),
            );
            format!(
                "<code>allow({})</code> on {scope}: “{}”",
                text(rule),
                text(reason)
            )
        }
        Waived::Lint { rule, level } => {
            format!("<code>[lints] {} = \"{}\"</code>", text(rule), text(level))
        }
    }
}

/// A section holding a list, left out when the list is empty.
fn list_section(body: &mut String, id: &str, heading: &str, items: impl Iterator<Item = String>) {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        return;
    }
    let _ = writeln!(
        body,
        "<section aria-labelledby=\"{id}\">\n<h2 id=\"{id}\">{}</h2>\n<ul>",
        text(heading)
    );
    for item in items {
        let _ = writeln!(body, "<li>{item}</li>");
    }
    body.push_str("</ul>\n</section>\n");
}

/// One `<dt>`/`<dd>` pair; `value` is markup.
fn fact(body: &mut String, name: &str, value: &str) {
    let _ = writeln!(body, "<dt>{}</dt><dd>{value}</dd>", text(name));
}

/// Names as code, comma-separated.
fn codes(names: &[String]) -> String {
    names
        .iter()
        .map(|name| format!("<code>{}</code>", text(name)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn none_or(markup: String) -> String {
    if markup.is_empty() {
        "none".to_string()
    } else {
        markup
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::diff::{CacheImpact, Change};
    use crate::ir::Owner;
    use crate::pages::tests::{assert_only_our_markup, HOSTILE};
    use crate::trust::screen::{Budget, Call, Install, Relaxation, Run};

    /// A screen with hostile text in every field that holds text.
    fn hostile_screen() -> Screen {
        let h = |n: usize| HOSTILE[n % HOSTILE.len()].to_string();
        Screen {
            id: h(0),
            requested_owner: Owner::Person,
            summary: Some(h(1)),
            digest: Some(h(2)),
            install: Some(Install {
                catalog: h(3),
                granted: Owner::Person,
                installer: Owner::Person,
            }),
            asks: Asks {
                budgets: vec![Budget {
                    placement: h(4),
                    tokens: 7,
                    shared_by: "x",
                }],
                highest_priority: h(5),
                reaches: vec![h(6)],
                loads: vec![h(7)],
                runs: vec![Run {
                    tool: h(8),
                    effect: "read",
                    gated: true,
                }],
                hosts: vec![h(9)],
                requires: vec![(h(10), h(11))],
            },
            contributors: vec![Added {
                kind: h(12),
                id: h(13),
                placement: h(14),
                priority: h(15),
                reach: h(16),
                budget: 1,
                measured_tokens: 1,
                framing: Some(h(17)),
                text: Some(HOSTILE.join("\n")),
                applies: Some(h(41)),
                when: Some(h(18)),
                heading: Some(h(42)),
                loads_tools: vec![h(19)],
                loads_skill: Some((h(20), vec![h(21)])),
                chosen: Some(h(40)),
                calls: Some(Call {
                    tool: h(22),
                    arguments: h(23),
                    effect: "read",
                }),
                retrieved: Some((h(24), h(25))),
                states: vec![h(26)],
            }],
            overstated: vec![h(27)],
            waivers: vec![
                Waived::Allow {
                    rule: h(28),
                    scope: Some(h(29)),
                    reason: h(30),
                },
                Waived::Lint {
                    rule: h(31),
                    level: "allow",
                },
            ],
            relaxed: vec![Relaxation {
                rule: h(32),
                contributor: h(33),
                by: h(34),
                reason: h(35),
            }],
            delta: Some(Delta {
                from: h(36),
                to: h(37),
                changes: vec![Change {
                    class: Class::NeedsApproval,
                    contributor: Some(h(38)),
                    message: h(39),
                    cache: CacheImpact::none("it changes no byte of a cached prefix"),
                }],
            }),
        }
    }

    #[test]
    fn hostile_text_in_every_field_stays_text() {
        let page = render(&hostile_screen());
        assert_only_our_markup(&page);
    }

    #[test]
    fn an_update_marks_what_needs_approval_first() {
        let mut screen = hostile_screen();
        screen.delta = Some(Delta {
            from: "acme/x@1.0.0".into(),
            to: "acme/x@1.1.0".into(),
            changes: vec![
                Change {
                    class: Class::Update,
                    contributor: None,
                    message: "text changed".into(),
                    cache: CacheImpact::none("it changes no byte of a cached prefix"),
                },
                Change {
                    class: Class::NeedsApproval,
                    contributor: Some("clock".into()),
                    message: "runs `fetch_url`".into(),
                    cache: CacheImpact::none("it changes no byte of a cached prefix"),
                },
            ],
        });
        let page = render(&screen);
        assert!(page.contains(
            "<span data-key=\"needs-approval\">1</span> of 2 changes needs your approval"
        ));
        let marked = page
            .find("needs approval</span> <code>clock</code>")
            .unwrap();
        let update = page.find("update</span> text changed").unwrap();
        assert!(marked < update, "what needs approval comes first");
    }
}

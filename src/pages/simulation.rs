//! A simulation's report as a page: what each layout did to the provider
//! cache over the simulated week, how much of each agent's shared prefix
//! was read from an entry another conversation wrote, what each layout
//! cost under each profile, and how often each changed the system prompt.
//!
//! Built from [`Report`] alone: the layouts are the report's own list
//! ([`Report::layouts`]), so a layout added to the simulator appears here
//! with nothing to change. Key numbers carry `data-key` attributes so a
//! test can read them back from a browser and compare them with
//! `contrib simulate --format json`.

use std::fmt::Write;

use super::html::text;
use super::page;
use super::svg::{self, Labels, Series};
use crate::runtime::simulate::{Interval, LayoutReport, Report};

/// The cache's three kinds of input token, as charted.
const TOKENS: [Series; 3] = [
    Series {
        name: "cache reads",
        fill: svg::BLUE,
    },
    Series {
        name: "cache writes",
        fill: svg::ORANGE,
    },
    Series {
        name: "uncached",
        fill: svg::PURPLE,
    },
];

/// One series per layout of `report`, in its order, each its own colour.
fn layout_series(report: &Report) -> Vec<Series> {
    report
        .layouts
        .iter()
        .zip(
            [
                svg::BLUE,
                svg::ORANGE,
                svg::GREEN,
                svg::PURPLE,
                svg::VERMILLION,
                svg::GREY,
            ]
            .iter()
            .cycle(),
        )
        .map(|(layout, fill)| Series {
            name: layout.name,
            fill,
        })
        .collect()
}

/// A grouped bar chart's numbers in words, for its description: each
/// group, then each series' value to three places.
/// A bar chart in a figure, captioned with its own title.
fn bar_figure(
    body: &mut String,
    labels: Labels,
    series: &[Series],
    groups: &[(String, Vec<f64>)],
    format: impl Fn(f64) -> String,
) {
    let caption = format!(
        "<figcaption>{}.</figcaption>\n</figure>\n",
        text(labels.title)
    );
    body.push_str("<figure>\n");
    body.push_str(&svg::grouped_bars(labels, series, groups, format));
    body.push_str(&caption);
}

fn in_words(series: &[Series], groups: &[(String, Vec<f64>)]) -> String {
    groups
        .iter()
        .map(|(group, values)| {
            let values: Vec<String> = series
                .iter()
                .zip(values)
                .map(|(one, value)| format!("{} {value:.3}", one.name))
                .collect();
            format!("{group}: {}", values.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The page for `reports`: the first is the run asked for, the others the
/// same run under other cache profiles (for the cost comparison).
pub fn render(reports: &[Report]) -> String {
    let Some(report) = reports.first() else {
        return page(
            "Simulation",
            "<h1>Simulation</h1>\n<p>No simulation was run.</p>\n",
        );
    };
    let options = &report.options;
    let title = format!("Simulated prompt caching under `{}`", report.profile);
    let mut body = format!("<h1>{}</h1>\n", text(&title));
    let _ = writeln!(
        body,
        "<p>{} agents × {} persons × {} conversations = <strong data-key=\"conversations\">{}</strong> conversations of {} to {} turns, <strong data-key=\"turns\">{}</strong> turns in all (seed {}, model {}, compaction past {} tokens). \
         The hand-placed layout, what a careful engineer builds without contrib, costs <strong data-key=\"fair-ratio\">{:.2}</strong>× contrib's in input tokens.</p>",
        options.agents,
        options.persons,
        options.conversations,
        report.conversations,
        options.min_turns,
        options.turns,
        report.turns,
        options.seed,
        text(&options.model),
        options.compact_after_tokens,
        report.fair_ratio
    );
    let _ = writeln!(body, "<p>Cost counts {}.</p>", text(report.cost_includes));
    figures_table(&mut body, report);
    sharing_section(&mut body, report);
    timeline_section(&mut body, report);
    cost_section(&mut body, reports);
    changes_section(&mut body, report);
    assumptions_section(&mut body, report);
    if !report.short_prefixes.is_empty() {
        body.push_str(
            "<section aria-labelledby=\"warnings\">\n<h2 id=\"warnings\">Warnings</h2>\n<ul>\n",
        );
        for short in &report.short_prefixes {
            let _ = writeln!(body, "<li>{}</li>", text(&short.describe(report.turns)));
        }
        body.push_str("</ul>\n</section>\n");
    }
    page(&title, &body)
}

/// One row of the totals: its `data-key` suffix, its label, its figure.
type Row = (&'static str, &'static str, fn(&LayoutReport) -> String);

/// The totals per layout, as numbers.
fn figures_table(body: &mut String, report: &Report) {
    body.push_str("<section aria-labelledby=\"totals\">\n<h2 id=\"totals\">Totals</h2>\n<table>\n<thead><tr><th scope=\"col\">Figure</th>");
    for layout in &report.layouts {
        let _ = write!(
            body,
            "<th scope=\"col\" class=\"number\" title=\"{}\">{}</th>",
            text(layout.title),
            layout.name
        );
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    let rows: [Row; 13] = [
        ("input-tokens", "input tokens", |l| {
            l.input_tokens.to_string()
        }),
        ("read-tokens", "cache reads (tokens)", |l| {
            l.read_tokens.to_string()
        }),
        ("written-tokens", "cache writes (tokens)", |l| {
            l.written_tokens.to_string()
        }),
        ("uncached-tokens", "uncached (tokens)", |l| {
            l.uncached_tokens.to_string()
        }),
        ("output-tokens", "output tokens", |l| {
            l.output_tokens.to_string()
        }),
        (
            "input-cost",
            "input cost (uncached-input-token units)",
            |l| format!("{:.1}", l.input_cost),
        ),
        ("relative-cost", "cost against no caching", |l| {
            format!("{:.3}", l.relative_cost)
        }),
        ("usd", "cost in dollars, input and output", |l| {
            l.usd
                .map_or_else(|| "—".to_string(), |usd| format!("{:.4}", usd.total))
        }),
        (
            "agent-shared",
            "agent prefix read from another conversation's entry",
            |l| format!("{:.3}", l.agent_shared_from_other_conversations),
        ),
        (
            "system-prompt-changes",
            "system prompt changes per conversation",
            |l| format!("{:.2}", l.system_prompt_changes_per_conversation),
        ),
        ("recompositions", "recompositions per conversation", |l| {
            l.recompositions_per_conversation
                .map_or_else(|| "—".to_string(), |n| format!("{n:.2}"))
        }),
        ("rounds", "rounds spent fetching", |l| l.rounds.to_string()),
        ("request-tokens", "mean request (tokens)", |l| {
            format!("{:.0}", l.mean_request_tokens)
        }),
    ];
    for (key, label, value) in rows {
        let _ = write!(body, "<tr><th scope=\"row\">{label}</th>");
        for layout in &report.layouts {
            let _ = write!(
                body,
                "<td class=\"number\" data-key=\"{}-{key}\">{}</td>",
                layout.name,
                value(layout)
            );
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</tbody>\n</table>\n</section>\n");
}

/// The sharing metric per agent: one group of bars per agent, a bar per
/// layout, then the same as a table.
fn sharing_section(body: &mut String, report: &Report) {
    body.push_str(
        "<section aria-labelledby=\"sharing\">\n<h2 id=\"sharing\">Sharing, per agent</h2>\n",
    );
    body.push_str("<p>The share of each agent's prefix (tools, platform and agent text, the eager loads) read from a cache entry another conversation wrote: what placements exist for. 1 is all of it.</p>\n");
    let series = layout_series(report);
    let agents: Vec<&str> = report
        .layouts
        .first()
        .map(|layout| {
            layout
                .by_agent
                .iter()
                .map(|agent| agent.agent.as_str())
                .collect()
        })
        .unwrap_or_default();
    let share = |layout: &LayoutReport, agent: &str| {
        layout
            .by_agent
            .iter()
            .find(|one| one.agent == agent)
            .map_or(0.0, |one| one.from_other_conversations)
    };
    let groups: Vec<(String, Vec<f64>)> = agents
        .iter()
        .map(|&agent| {
            (
                agent.to_string(),
                report
                    .layouts
                    .iter()
                    .map(|layout| share(layout, agent))
                    .collect(),
            )
        })
        .collect();
    let description = in_words(&series, &groups);
    bar_figure(
        body,
        Labels {
            id: "sharing-chart",
            title: "Agent prefix read from another conversation's entry, per agent and layout",
            description: &description,
        },
        &series,
        &groups,
        |value| format!("{value:.3}"),
    );
    body.push_str("<table>\n<thead><tr><th scope=\"col\">Agent</th>");
    for one in &series {
        let _ = write!(body, "<th scope=\"col\" class=\"number\">{}</th>", one.name);
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    for (index, (agent, shares)) in groups.iter().enumerate() {
        let _ = write!(body, "<tr><th scope=\"row\">{}</th>", text(agent));
        for (one, value) in series.iter().zip(shares) {
            let _ = write!(
                body,
                "<td class=\"number\" data-key=\"{}-agent-{index}-shared\">{value:.3}</td>",
                one.name
            );
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</tbody>\n</table>\n</section>\n");
}

/// Reads, writes and uncached tokens hour by hour, one chart per layout on
/// one scale, then the same by day as a table.
fn timeline_section(body: &mut String, report: &Report) {
    body.push_str("<section aria-labelledby=\"timeline\">\n<h2 id=\"timeline\">The cache over the simulated time</h2>\n");
    body.push_str("<p>Input tokens per simulated hour, by what the provider's cache did with them: read from the cache (cheapest), written to it, or sent uncached. The charts share one scale.</p>\n");
    let y_max = report
        .layouts
        .iter()
        .flat_map(|layout| layout.timeline.iter())
        .map(|interval| {
            (interval.read_tokens + interval.write_tokens + interval.uncached_tokens) as f64
        })
        .fold(0.0, f64::max);
    for layout in &report.layouts {
        let columns: Vec<Vec<f64>> = layout
            .timeline
            .iter()
            .map(|interval| {
                vec![
                    interval.read_tokens as f64,
                    interval.write_tokens as f64,
                    interval.uncached_tokens as f64,
                ]
            })
            .collect();
        let id = format!("timeline-{}", layout.name);
        let title = format!("{}: tokens per hour", layout.title);
        let description = format!(
            "Stacked columns, one per simulated hour over {} hours: {} tokens read from the cache, {} written, {} uncached in all.",
            layout.timeline.len(),
            layout.read_tokens,
            layout.written_tokens,
            layout.uncached_tokens
        );
        let _ = writeln!(body, "<figure>");
        body.push_str(&svg::stacked_columns(
            Labels {
                id: &id,
                title: &title,
                description: &description,
            },
            &TOKENS,
            &columns,
            y_max,
            24,
            |hour| format!("day {}", hour / 24 + 1),
        ));
        let _ = writeln!(body, "<figcaption>{}</figcaption>\n</figure>", text(&title));
    }
    by_day_table(body, &report.layouts);
    body.push_str("</section>\n");
}

/// The timeline summed by day: the charts' numbers for a reader who
/// cannot see them.
fn by_day_table(body: &mut String, layouts: &[LayoutReport]) {
    body.push_str("<details>\n<summary>The same, by day, as numbers</summary>\n<table>\n<thead><tr><th scope=\"col\">Day</th>");
    for layout in layouts {
        for series in &TOKENS {
            let _ = write!(
                body,
                "<th scope=\"col\" class=\"number\">{}: {}</th>",
                layout.name, series.name
            );
        }
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    let days: Vec<Vec<Interval>> = layouts
        .iter()
        .map(|layout| by_day(&layout.timeline))
        .collect();
    let count = days.iter().map(Vec::len).max().unwrap_or(0);
    for day in 0..count {
        let _ = write!(body, "<tr><th scope=\"row\">day {}</th>", day + 1);
        for layout in &days {
            let interval = layout.get(day).copied().unwrap_or_default();
            let _ = write!(
                body,
                "<td class=\"number\">{}</td><td class=\"number\">{}</td><td class=\"number\">{}</td>",
                interval.read_tokens, interval.write_tokens, interval.uncached_tokens
            );
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</tbody>\n</table>\n</details>\n");
}

/// Hours summed into days.
fn by_day(timeline: &[Interval]) -> Vec<Interval> {
    timeline
        .chunks(24)
        .enumerate()
        .map(|(day, hours)| {
            hours.iter().fold(
                Interval {
                    offset_seconds: day as i64 * 86_400,
                    ..Interval::default()
                },
                |mut sum, hour| {
                    sum.requests += hour.requests;
                    sum.read_tokens += hour.read_tokens;
                    sum.write_tokens += hour.write_tokens;
                    sum.uncached_tokens += hour.uncached_tokens;
                    sum
                },
            )
        })
        .collect()
}

/// What each layout costs under each profile, against sending every
/// token uncached.
fn cost_section(body: &mut String, reports: &[Report]) {
    body.push_str(
        "<section aria-labelledby=\"cost\">\n<h2 id=\"cost\">Cost per layout and profile</h2>\n",
    );
    body.push_str("<p>What the input tokens cost as a share of sending them all uncached (lower is cheaper), under each provider's cache profile; each profile's run is on its own default model.</p>\n");
    let Some(first) = reports.first() else {
        return;
    };
    let series = layout_series(first);
    let groups: Vec<(String, Vec<f64>)> = reports
        .iter()
        .map(|report| {
            (
                report.profile.clone(),
                series
                    .iter()
                    .map(|one| {
                        report
                            .layout(one.name)
                            .map_or(0.0, |layout| layout.relative_cost)
                    })
                    .collect(),
            )
        })
        .collect();
    let description = in_words(&series, &groups);
    bar_figure(
        body,
        Labels {
            id: "cost-chart",
            title: "Cost against no caching, per layout and profile",
            description: &description,
        },
        &series,
        &groups,
        |value| format!("{value:.3}"),
    );
    body.push_str("<table>\n<thead><tr><th scope=\"col\">Profile</th>");
    for one in &series {
        let _ = write!(body, "<th scope=\"col\" class=\"number\">{}</th>", one.name);
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    for (profile, costs) in &groups {
        let _ = write!(body, "<tr><th scope=\"row\">{}</th>", text(profile));
        for cost in costs {
            let _ = write!(body, "<td class=\"number\">{cost:.3}</td>");
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</tbody>\n</table>\n</section>\n");
}

/// How often each layout's system prompt changed within a conversation,
/// measured byte for byte.
fn changes_section(body: &mut String, report: &Report) {
    body.push_str(
        "<section aria-labelledby=\"changes\">\n<h2 id=\"changes\">System prompt changes</h2>\n",
    );
    body.push_str("<p>Requests whose system prompt differs from the conversation's previous one, per conversation: contrib's changes only at a compaction or a change of model; the naive layout's on every turn something in it changes.</p>\n");
    let series: Vec<Series> = vec![Series {
        name: "per conversation",
        fill: svg::GREY,
    }];
    let groups: Vec<(String, Vec<f64>)> = report
        .layouts
        .iter()
        .map(|layout| {
            (
                layout.name.to_string(),
                vec![layout.system_prompt_changes_per_conversation],
            )
        })
        .collect();
    let description = groups
        .iter()
        .map(|(name, values)| format!("{name}: {:.2}", values.first().copied().unwrap_or(0.0)))
        .collect::<Vec<_>>()
        .join("; ");
    bar_figure(
        body,
        Labels {
            id: "changes-chart",
            title: "System prompt changes per conversation, per layout",
            description: &description,
        },
        &series,
        &groups,
        |value| format!("{value:.2}"),
    );
    body.push_str("</section>\n");
}

/// What each layout assumes, as the report states it.
fn assumptions_section(body: &mut String, report: &Report) {
    body.push_str("<section aria-labelledby=\"assumptions\">\n<h2 id=\"assumptions\">What each layout assumes</h2>\n<dl>\n");
    for layout in &report.layouts {
        let _ = writeln!(body, "<dt>{}</dt>", text(layout.title));
        for assumption in layout.assumptions {
            let _ = writeln!(body, "<dd>{}</dd>", text(assumption));
        }
    }
    body.push_str("</dl>\n</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pages::tests::assert_only_our_markup;
    use crate::runtime::simulate::{simulate, Options};
    use crate::runtime::Profiles;

    fn report(profile: &str) -> Report {
        let profiles = Profiles::builtin();
        let options = Options {
            agents: 2,
            persons: 2,
            conversations: 1,
            turns: 4,
            ..Options::default()
        };
        simulate(&[], profiles.get(profile).unwrap(), &options, None)
    }

    #[test]
    fn the_page_shows_the_reports_numbers() {
        let report = report("anthropic");
        let page = render(&[report.clone(), super::tests::report("none")]);
        assert_only_our_markup(&page);
        for layout in &report.layouts {
            assert!(page.contains(&format!(
                "data-key=\"{}-read-tokens\">{}<",
                layout.name, layout.read_tokens
            )));
            assert!(page.contains(&format!(
                "data-key=\"{}-agent-shared\">{:.3}<",
                layout.name, layout.agent_shared_from_other_conversations
            )));
            for (index, agent) in layout.by_agent.iter().enumerate() {
                assert!(page.contains(&format!(
                    "data-key=\"{}-agent-{index}-shared\">{:.3}<",
                    layout.name, agent.from_other_conversations
                )));
            }
        }
        assert!(page.contains(&format!("data-key=\"turns\">{}<", report.turns)));
        assert!(page.contains(&format!(
            "data-key=\"fair-ratio\">{:.2}<",
            report.fair_ratio
        )));
        assert_eq!(
            page.matches("<svg ").count(),
            report.layouts.len() + 3,
            "a timeline per layout, sharing, cost, system prompt changes"
        );
        assert!(page.contains("<th scope=\"row\">none</th>"));
    }

    #[test]
    fn every_layouts_timeline_adds_up_to_its_totals() {
        let report = report("anthropic");
        assert!(report.layouts.len() >= 5);
        for layout in &report.layouts {
            let sum = |field: fn(&Interval) -> u64| layout.timeline.iter().map(field).sum::<u64>();
            assert_eq!(
                sum(|i| i.read_tokens),
                layout.read_tokens,
                "{}",
                layout.name
            );
            assert_eq!(
                sum(|i| i.write_tokens),
                layout.written_tokens,
                "{}",
                layout.name
            );
            assert_eq!(
                sum(|i| i.uncached_tokens),
                layout.uncached_tokens,
                "{}",
                layout.name
            );
            assert_eq!(sum(|i| i.requests), layout.requests, "{}", layout.name);
        }
    }
}

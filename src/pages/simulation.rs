//! A simulation's report as a page: what each layout did to the provider
//! cache over the simulated week, what it cost under each profile, and
//! how often each recomposed the system prompt.
//!
//! Built from [`Report`] alone: the layouts compared are listed once, in
//! [`layouts`], so a layout added to the report is one line here. Key
//! numbers carry `data-key` attributes so a test can read them back from a
//! browser and compare them with `contrib simulate --format json`.

use std::fmt::Write;

use super::html::text;
use super::page;
use super::svg::{self, Labels, Series};
use crate::runtime::simulate::{Figures, Interval, Report};

/// The layouts a report compares, by name.
pub fn layouts(report: &Report) -> Vec<(&'static str, &Figures)> {
    vec![("composed", &report.composed), ("naive", &report.naive)]
}

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
        "<p>{} agents × {} persons × {} conversations × {} turns = <strong data-key=\"requests\">{}</strong> requests (seed {}, compaction past {} tokens). \
         The naive layout costs <strong data-key=\"naive-cost-ratio\">{:.2}</strong>× the composed one.</p>",
        options.agents,
        options.persons,
        options.conversations,
        options.turns,
        report.requests,
        options.seed,
        options.compact_after_tokens,
        report.naive_cost_ratio()
    );
    figures_table(&mut body, report);
    timeline_section(&mut body, report);
    cost_section(&mut body, reports);
    recomposition_section(&mut body, report);
    if !report.short_prefixes.is_empty() {
        body.push_str(
            "<section aria-labelledby=\"warnings\">\n<h2 id=\"warnings\">Warnings</h2>\n<ul>\n",
        );
        for short in &report.short_prefixes {
            let _ = writeln!(body, "<li>{}</li>", text(&short.describe(report.requests)));
        }
        body.push_str("</ul>\n</section>\n");
    }
    page(&title, &body)
}

/// The totals per layout, as numbers.
fn figures_table(body: &mut String, report: &Report) {
    let layouts = layouts(report);
    body.push_str("<section aria-labelledby=\"totals\">\n<h2 id=\"totals\">Totals</h2>\n<table>\n<thead><tr><th scope=\"col\">Figure</th>");
    for (name, _) in &layouts {
        let _ = write!(body, "<th scope=\"col\" class=\"number\">{name}</th>");
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    type Row = fn(&Figures) -> String;
    let rows: [(&str, &str, Row); 10] = [
        ("input-tokens", "input tokens", |f| {
            f.cache.input_tokens.to_string()
        }),
        ("read-tokens", "cache reads (tokens)", |f| {
            f.cache.read_tokens.to_string()
        }),
        ("write-tokens", "cache writes (tokens)", |f| {
            f.cache.write_tokens.to_string()
        }),
        ("uncached-tokens", "uncached (tokens)", |f| {
            f.cache.uncached_tokens.to_string()
        }),
        ("cost", "cost (uncached-input-token units)", |f| {
            format!("{:.1}", f.cache.cost)
        }),
        ("relative-cost", "cost against no caching", |f| {
            format!("{:.3}", f.relative_cost)
        }),
        ("recompositions", "recompositions per conversation", |f| {
            format!("{:.2}", f.recompositions_per_conversation)
        }),
        (
            "agent-shared-tokens",
            "system prompt identical for an agent (tokens)",
            |f| format!("{:.0}", f.agent_shared_tokens),
        ),
        (
            "person-shared-tokens",
            "system prompt identical for a person (tokens)",
            |f| format!("{:.0}", f.person_shared_tokens),
        ),
        ("request-tokens", "mean request (tokens)", |f| {
            format!("{:.0}", f.request_tokens)
        }),
    ];
    for (key, label, value) in rows {
        let _ = write!(body, "<tr><th scope=\"row\">{label}</th>");
        for (name, figures) in &layouts {
            let _ = write!(
                body,
                "<td class=\"number\" data-key=\"{name}-{key}\">{}</td>",
                value(figures)
            );
        }
        body.push_str("</tr>\n");
    }
    body.push_str("</tbody>\n</table>\n</section>\n");
}

/// Reads, writes and uncached tokens hour by hour, one chart per layout on
/// one scale, then the same by day as a table.
fn timeline_section(body: &mut String, report: &Report) {
    let layouts = layouts(report);
    body.push_str("<section aria-labelledby=\"timeline\">\n<h2 id=\"timeline\">The cache over the simulated time</h2>\n");
    body.push_str("<p>Input tokens per simulated hour, by what the provider's cache did with them: read from the cache (cheapest), written to it, or sent uncached. Both charts share one scale.</p>\n");
    let y_max = layouts
        .iter()
        .flat_map(|(_, figures)| figures.timeline.iter())
        .map(|interval| {
            (interval.read_tokens + interval.write_tokens + interval.uncached_tokens) as f64
        })
        .fold(0.0, f64::max);
    for (name, figures) in &layouts {
        let columns: Vec<Vec<f64>> = figures
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
        let id = format!("timeline-{name}");
        let title = format!("The {name} layout: tokens per hour");
        let description = format!(
            "Stacked columns, one per simulated hour over {} hours: {} tokens read from the cache, {} written, {} uncached in all.",
            figures.timeline.len(),
            figures.cache.read_tokens,
            figures.cache.write_tokens,
            figures.cache.uncached_tokens
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
    by_day_table(body, &layouts);
    body.push_str("</section>\n");
}

/// The timeline summed by day: the charts' numbers for a reader who
/// cannot see them.
fn by_day_table(body: &mut String, layouts: &[(&'static str, &Figures)]) {
    body.push_str("<details>\n<summary>The same, by day, as numbers</summary>\n<table>\n<thead><tr><th scope=\"col\">Day</th>");
    for (name, _) in layouts {
        for series in &TOKENS {
            let _ = write!(
                body,
                "<th scope=\"col\" class=\"number\">{name}: {}</th>",
                series.name
            );
        }
    }
    body.push_str("</tr></thead>\n<tbody>\n");
    let days: Vec<Vec<Interval>> = layouts
        .iter()
        .map(|(_, figures)| by_day(&figures.timeline))
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
    body.push_str("<p>What the input tokens cost as a share of sending them all uncached (lower is cheaper), under each provider's cache profile.</p>\n");
    let Some(first) = reports.first() else {
        return;
    };
    let series: Vec<Series> = layouts(first)
        .iter()
        .zip(
            [svg::BLUE, svg::ORANGE, svg::GREEN, svg::PURPLE, svg::GREY]
                .iter()
                .cycle(),
        )
        .map(|((name, _), fill)| Series { name, fill })
        .collect();
    let groups: Vec<(String, Vec<f64>)> = reports
        .iter()
        .map(|report| {
            (
                report.profile.clone(),
                layouts(report)
                    .iter()
                    .map(|(_, figures)| figures.relative_cost)
                    .collect(),
            )
        })
        .collect();
    let description = groups
        .iter()
        .map(|(profile, costs)| {
            let costs: Vec<String> = series
                .iter()
                .zip(costs)
                .map(|(one, cost)| format!("{} {:.3}", one.name, cost))
                .collect();
            format!("{profile}: {}", costs.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ");
    body.push_str("<figure>\n");
    body.push_str(&svg::grouped_bars(
        Labels {
            id: "cost-chart",
            title: "Cost against no caching, per layout and profile",
            description: &description,
        },
        &series,
        &groups,
        |value| format!("{value:.3}"),
    ));
    body.push_str(
        "<figcaption>Cost against no caching, per layout and profile.</figcaption>\n</figure>\n",
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

/// How often each layout's system prompt was composed again.
fn recomposition_section(body: &mut String, report: &Report) {
    let layouts = layouts(report);
    body.push_str("<section aria-labelledby=\"recompositions\">\n<h2 id=\"recompositions\">Recompositions</h2>\n");
    body.push_str("<p>Compositions of the system prompt after the first, per conversation: the composed layout recomposes only at compaction or a change of model; the naive one every turn.</p>\n");
    let series: Vec<Series> = vec![Series {
        name: "per conversation",
        fill: svg::GREY,
    }];
    let groups: Vec<(String, Vec<f64>)> = layouts
        .iter()
        .map(|(name, figures)| {
            (
                (*name).to_string(),
                vec![figures.recompositions_per_conversation],
            )
        })
        .collect();
    let description = groups
        .iter()
        .map(|(name, values)| format!("{name}: {:.2}", values.first().copied().unwrap_or(0.0)))
        .collect::<Vec<_>>()
        .join("; ");
    body.push_str("<figure>\n");
    body.push_str(&svg::grouped_bars(
        Labels {
            id: "recompositions-chart",
            title: "Recompositions per conversation, per layout",
            description: &description,
        },
        &series,
        &groups,
        |value| format!("{value:.2}"),
    ));
    body.push_str("<figcaption>Recompositions per conversation, per layout.</figcaption>\n</figure>\n</section>\n");
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
            agents: 1,
            persons: 2,
            conversations: 1,
            turns: 4,
            ..Options::default()
        };
        simulate(&[], profiles.get(profile).unwrap(), &options)
    }

    #[test]
    fn the_page_shows_the_reports_numbers() {
        let report = report("anthropic");
        let page = render(&[report.clone(), super::tests::report("none")]);
        assert_only_our_markup(&page);
        assert!(page.contains(&format!(
            "data-key=\"composed-read-tokens\">{}<",
            report.composed.cache.read_tokens
        )));
        assert!(page.contains(&format!("data-key=\"requests\">{}<", report.requests)));
        assert_eq!(
            page.matches("<svg ").count(),
            4,
            "two timelines, cost, recompositions"
        );
        assert!(page.contains("<th scope=\"row\">none</th>"));
    }

    #[test]
    fn the_timeline_adds_up_to_the_totals() {
        let report = report("anthropic");
        for (_, figures) in layouts(&report) {
            let read: u64 = figures.timeline.iter().map(|i| i.read_tokens).sum();
            let requests: u64 = figures.timeline.iter().map(|i| i.requests).sum();
            assert_eq!(read, figures.cache.read_tokens);
            assert_eq!(requests, report.requests);
        }
    }
}

//! Charts as inline SVG, drawn here: two kinds are enough (stacked columns
//! over time, grouped bars), and drawing them takes less code than keeping
//! a vendored script library and its licence, with nothing to run.
//!
//! Every chart is an `<svg role="img">` with a `<title>` and a `<desc>`
//! saying what it shows in words, and is followed on the page by a table of
//! the same numbers; colour is never the only key, since every legend entry
//! and bar carries its name. Only presentation attributes are used (no
//! `style`), which the page's Content-Security-Policy allows.

use std::fmt::Write;

use super::html::text;

/// One coloured series: a name for the legend and its fill.
#[derive(Debug, Clone, Copy)]
pub struct Series {
    pub name: &'static str,
    pub fill: &'static str,
}

/// What a chart is called: its element id (for `aria-labelledby`), its
/// title and a description in words.
#[derive(Debug, Clone, Copy)]
pub struct Labels<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub description: &'a str,
}

/// Colours told apart with the common colour-vision deficiencies
/// (Okabe and Ito).
pub const BLUE: &str = "#0072B2";
pub const ORANGE: &str = "#E69F00";
pub const PURPLE: &str = "#CC79A7";
pub const GREEN: &str = "#009E73";
pub const GREY: &str = "#595959";
pub const VERMILLION: &str = "#D55E00";

const WIDTH: f64 = 720.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 28.0;

/// Stacked columns, one per step of `columns` (each as many values as
/// `series`), on a y axis up to `y_max` (so charts side by side share a
/// scale). `x_label(i)` labels every `label_every`-th column.
pub fn stacked_columns(
    labels: Labels,
    series: &[Series],
    columns: &[Vec<f64>],
    y_max: f64,
    label_every: usize,
    x_label: impl Fn(usize) -> String,
) -> String {
    let height = 260.0;
    let bottom = 40.0;
    let plot_height = height - TOP - bottom;
    let plot_width = WIDTH - LEFT - RIGHT;
    let y_max = nice_ceiling(y_max);
    let mut svg = open(labels, height);
    legend(&mut svg, series);
    axis(&mut svg, y_max, plot_height, plot_width);
    let step = plot_width / columns.len().max(1) as f64;
    let bar = (step * 0.85).max(0.5);
    for (index, column) in columns.iter().enumerate() {
        let x = LEFT + index as f64 * step;
        let mut y = TOP + plot_height;
        for (value, one) in column.iter().zip(series) {
            let h = if y_max > 0.0 {
                value / y_max * plot_height
            } else {
                0.0
            };
            if h > 0.0 {
                y -= h;
                let _ = write!(
                    svg,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{h:.1}\" fill=\"{}\"/>",
                    one.fill
                );
            }
        }
        if label_every > 0 && index % label_every == 0 {
            let _ = write!(
                svg,
                "<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"{GREY}\">{}</text>",
                TOP + plot_height + 16.0,
                text(&x_label(index))
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// Horizontal bars in groups: `groups` of `(label, values)`, each value
/// one bar coloured as its series, labelled with `format(value)`.
pub fn grouped_bars(
    labels: Labels,
    series: &[Series],
    groups: &[(String, Vec<f64>)],
    format: impl Fn(f64) -> String,
) -> String {
    let bar = 18.0;
    let gap = 14.0;
    let label_width = 150.0;
    let group_height = bar * series.len() as f64 + gap;
    let height = TOP + group_height * groups.len() as f64 + 8.0;
    let plot_width = WIDTH - label_width - RIGHT - 170.0;
    let max = groups
        .iter()
        .flat_map(|(_, values)| values.iter().copied())
        .fold(0.0_f64, f64::max);
    let mut svg = open(labels, height);
    legend(&mut svg, series);
    for (g, (label, values)) in groups.iter().enumerate() {
        let top = TOP + g as f64 * group_height;
        let _ = write!(
            svg,
            "<text x=\"0\" y=\"{:.1}\" font-size=\"13\" fill=\"#1a1a1a\">{}</text>",
            top + bar * series.len() as f64 / 2.0 + 4.0,
            text(label)
        );
        for (index, (value, one)) in values.iter().zip(series).enumerate() {
            let y = top + index as f64 * bar;
            let w = if max > 0.0 {
                value / max * plot_width
            } else {
                0.0
            };
            let _ = write!(
                svg,
                "<rect x=\"{label_width}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}: {}</title></rect>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" fill=\"#1a1a1a\">{} {}</text>",
                bar - 3.0,
                one.fill,
                text(one.name),
                text(&format(*value)),
                label_width + w + 6.0,
                y + bar - 7.0,
                text(&format(*value)),
                text(one.name),
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

fn open(labels: Labels, height: f64) -> String {
    let id = labels.id;
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height:.0}\" width=\"{WIDTH}\" height=\"{height:.0}\" role=\"img\" aria-labelledby=\"{id}-title {id}-desc\">\
         <title id=\"{id}-title\">{}</title><desc id=\"{id}-desc\">{}</desc>",
        text(labels.title),
        text(labels.description)
    )
}

fn legend(svg: &mut String, series: &[Series]) {
    let mut x = LEFT;
    for one in series {
        let _ = write!(
            svg,
            "<rect x=\"{x:.1}\" y=\"4\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{:.1}\" y=\"15\" font-size=\"12\" fill=\"#1a1a1a\">{}</text>",
            one.fill,
            x + 16.0,
            text(one.name)
        );
        x += 24.0 + 7.0 * one.name.len() as f64;
    }
}

/// The y axis: four gridlines with their values.
fn axis(svg: &mut String, y_max: f64, plot_height: f64, plot_width: f64) {
    for step in 0..=4 {
        let value = y_max * f64::from(step) / 4.0;
        let y = TOP + plot_height - plot_height * f64::from(step) / 4.0;
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#d0d0d0\" stroke-width=\"1\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"{GREY}\" text-anchor=\"end\">{}</text>",
            LEFT + plot_width,
            LEFT - 6.0,
            y + 4.0,
            short_number(value)
        );
    }
}

/// The smallest of 1, 2, 2.5 or 5 times a power of ten at or above
/// `value`, so gridlines fall on round numbers.
pub fn nice_ceiling(value: f64) -> f64 {
    if value <= 0.0 || !value.is_finite() {
        return 1.0;
    }
    let power = 10f64.powf(value.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|factor| factor * power)
        .find(|candidate| *candidate >= value)
        .unwrap_or(10.0 * power)
}

/// `12k`, `1.5M`: an axis label.
pub fn short_number(value: f64) -> String {
    let (scaled, suffix) = if value >= 1e6 {
        (value / 1e6, "M")
    } else if value >= 1e3 {
        (value / 1e3, "k")
    } else {
        (value, "")
    };
    if scaled.fract() == 0.0 {
        format!("{scaled:.0}{suffix}")
    } else {
        format!("{scaled:.1}{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_end_on_round_numbers() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(7.0), 10.0);
        assert_eq!(nice_ceiling(180.0), 200.0);
        assert_eq!(nice_ceiling(2100.0), 2500.0);
        assert_eq!(nice_ceiling(5000.0), 5000.0);
        assert_eq!(short_number(12_000.0), "12k");
        assert_eq!(short_number(1_500_000.0), "1.5M");
        assert_eq!(short_number(625.0), "625");
    }

    #[test]
    fn columns_stack_to_their_total() {
        let series = [
            Series {
                name: "a",
                fill: BLUE,
            },
            Series {
                name: "b",
                fill: ORANGE,
            },
        ];
        let svg = stacked_columns(
            Labels {
                id: "t",
                title: "<t>",
                description: "d",
            },
            &series,
            &[vec![50.0, 50.0]],
            100.0,
            1,
            |_| "h0".into(),
        );
        // A plot 192 high: two halves of 96.
        assert_eq!(svg.matches("height=\"96.0\"").count(), 2);
        assert!(svg.contains("<title id=\"t-title\">&lt;t&gt;</title>"));
    }
}

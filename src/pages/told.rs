//! What the model is told, for a manifest being written: the system prompt
//! by placement with its cache breakpoints, the conversation's opening, and
//! the notes of a few turns, composed by the runtime for one session. The
//! editors' live preview (`contrib/preview` in the language server) shows
//! it, as text (Neovim) or as a page (VS Code).

use std::fmt::Write;

use super::html::text;
use super::page;
use crate::bundle::Bundle;
use crate::runtime::{Boundary, CliGate, Composer, Profile, Session, TurnInput};

/// When the preview's turns come, in seconds after the conversation
/// starts: a reply a minute in, another ten minutes later, then one after
/// a long pause (so notes about idle time and crossed dates show).
const TURN_TIMES: [i64; 4] = [60, 11 * 60, 4 * 3600, 26 * 3600];

/// The preview: sections of labelled texts and cache markers.
#[derive(Debug, Clone, PartialEq)]
pub struct Told {
    pub title: String,
    pub sections: Vec<Section>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub heading: String,
    pub blocks: Vec<Block>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Text the model is given, and whose it is.
    Text { label: String, text: String },
    /// Where a shared prefix ends (and a cache breakpoint, when placed).
    Marker(String),
}

impl Told {
    /// Composes `bundle` for `session` under `profile`, for `turns` turns
    /// (at most four).
    pub fn compose(bundle: &Bundle, session: Session, profile: &Profile, turns: usize) -> Told {
        let started = session.started_at;
        let bundles = std::slice::from_ref(bundle);
        let mut conversation = Composer::start(bundles, session, CliGate, profile);
        let marker = |boundary: Boundary| {
            let placed = conversation
                .breakpoints()
                .iter()
                .enumerate()
                .find(|(_, breakpoint)| breakpoint.after == boundary);
            Block::Marker(match placed {
                Some((index, breakpoint)) => format!(
                    "cache breakpoint {}: {} ends here ({} tokens, lifetime {})",
                    index + 1,
                    boundary.describe(),
                    breakpoint.tokens,
                    breakpoint.lifetime
                ),
                None => format!("{} ends here", boundary.describe()),
            })
        };
        let mut system = Vec::new();
        let mut marked = false;
        for contribution in &conversation.system_prompt().contributions {
            if contribution.placement == crate::ir::Placement::Person && !marked {
                system.push(marker(Boundary::Agent));
                marked = true;
            }
            system.push(Block::Text {
                label: format!("{} [{}]", contribution.contributor, contribution.placement),
                text: contribution.text.clone(),
            });
        }
        if !marked {
            system.push(marker(Boundary::Agent));
        }
        system.push(marker(Boundary::Person));
        let mut opening: Vec<Block> = conversation
            .opening()
            .iter()
            .map(|item| Block::Text {
                label: format!(
                    "{} [{}]",
                    item.contributor,
                    serde_json::to_value(item.kind)
                        .ok()
                        .and_then(|kind| kind.as_str().map(str::to_string))
                        .unwrap_or_default()
                ),
                text: item.text.clone(),
            })
            .collect();
        opening.push(marker(Boundary::Opening));
        let mut sections = vec![
            Section {
                heading: format!("System prompt (cache profile `{}`)", profile.name),
                blocks: system,
            },
            Section {
                heading: "Composer opening".to_string(),
                blocks: opening,
            },
        ];
        for seconds in TURN_TIMES.iter().take(turns) {
            let turn = conversation.turn(TurnInput::reply_at(started.plus_seconds(*seconds)));
            let mut blocks: Vec<Block> = turn
                .recomposed
                .iter()
                .map(|why| Block::Marker(format!("system prompt composed again: {why}")))
                .collect();
            blocks.extend(turn.notes.iter().map(|note| Block::Text {
                label: format!("{} [note]", note.contributor),
                text: note.text.clone(),
            }));
            if blocks.is_empty() {
                blocks.push(Block::Marker("no notes".to_string()));
            }
            sections.push(Section {
                heading: format!("Turn {} at {}", turn.number, turn.at),
                blocks,
            });
        }
        Told {
            title: format!("What the model is told: {}", bundle.id()),
            sections,
            warnings: conversation.warnings().to_vec(),
        }
    }

    /// As plain text, for an editor's split.
    pub fn text(&self) -> String {
        let mut out = format!("# {}\n", self.title);
        for section in &self.sections {
            let _ = writeln!(out, "\n== {}", section.heading);
            for block in &section.blocks {
                match block {
                    Block::Text { label, text } => {
                        let _ = writeln!(out, "-- {label}\n{text}");
                    }
                    Block::Marker(what) => {
                        let _ = writeln!(out, "~~~~ {what}");
                    }
                }
            }
        }
        for warning in &self.warnings {
            let _ = writeln!(out, "\nwarning: {warning}");
        }
        out
    }

    /// As a page, for a webview.
    pub fn html(&self) -> String {
        let mut body = format!("<h1>{}</h1>\n", text(&self.title));
        for section in &self.sections {
            let _ = writeln!(body, "<section>\n<h2>{}</h2>", text(&section.heading));
            for block in &section.blocks {
                match block {
                    Block::Text { label, text: words } => {
                        let _ =
                            writeln!(body, "<h3>{}</h3>\n<pre>{}</pre>", text(label), text(words));
                    }
                    Block::Marker(what) => {
                        let _ = writeln!(body, "<p class=\"muted\">┈┈ {} ┈┈</p>", text(what));
                    }
                }
            }
            body.push_str("</section>\n");
        }
        if !self.warnings.is_empty() {
            body.push_str("<section>\n<h2>Warnings</h2>\n<ul>\n");
            for warning in &self.warnings {
                let _ = writeln!(body, "<li>{}</li>", text(warning));
            }
            body.push_str("</ul>\n</section>\n");
        }
        page(&self.title, &body)
    }
}

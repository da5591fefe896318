//! The naive baseline a layout is measured against: everything in the
//! system prompt, every turn.

use contrib_core::vocabulary::Kind;

use super::opening::call_text;
use super::{count, Composer};
use crate::facts;
use crate::gate::Gate;
use crate::record::{Named, Turn};
use crate::render::{render, Values};

impl<'a, G: Gate> Composer<'a, G> {
    /// Every contribution as a layout that ignores placement would put it in
    /// the system prompt at this turn: texts with their current values, loads,
    /// eager runs run again now, this turn's notes, and facts in full. The
    /// simulator's naive baseline, and any evaluation's: what placement
    /// saves is measured against it.
    pub fn everything_now(&mut self, turn: &Turn) -> Vec<(String, u64)> {
        let at = turn.at;
        let mut pieces = Vec::new();
        for (index, entry) in self.versions.entries.clone().into_iter().enumerate() {
            let name = entry.name();
            let piece = match entry.kind() {
                Kind::Text => render(
                    entry.bundle,
                    entry.contributor,
                    &Values::at(&self.session, at),
                )
                .ok()
                .map(|rendered| rendered.text),
                Kind::EagerLoad => {
                    let items: Vec<_> = self
                        .prompt
                        .preloaded
                        .iter()
                        .filter(|item| item.contributor == name)
                        .collect();
                    if !items.is_empty() {
                        let text: Vec<&str> = items.iter().map(|item| item.text.as_str()).collect();
                        pieces.push((text.join("\n"), items.iter().map(|item| item.tokens).sum()));
                    }
                    None
                }
                Kind::EagerRun => entry.contributor.call.as_ref().and_then(|call| {
                    self.run(entry, call, at, "the result")
                        .ok()
                        .map(|output| format!("{} → {output}", call_text(call)))
                }),
                Kind::Fact => {
                    let told: Vec<String> = self
                        .prompt
                        .sections
                        .iter()
                        .filter(|section| section.teller == index)
                        .map(|section| {
                            facts::full(section, &facts::state(&section.says, &self.session, at))
                        })
                        .collect();
                    (!told.is_empty()).then(|| told.join("\n"))
                }
                Kind::SystemMessage | Kind::Preface => turn
                    .notes
                    .iter()
                    .find(|note| note.contributor == name)
                    .map(|note| note.text.clone()),
            };
            pieces.extend(piece.map(|text| {
                let tokens = count(&text);
                (text, tokens)
            }));
        }
        pieces
    }
}

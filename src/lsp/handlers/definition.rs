//! `textDocument/definition`: from a tool or skill name to its table in
//! the workspace's `contrib.toml`.
//!
//! Names are recognised where the language puts them: `tools a, b`,
//! `call TOOL`, `skill NAME operations …`, `requires skill NAME`,
//! `when skill-updated NAME`. The platform's own tools are declared
//! nowhere a client could open, so they have no definition.

use lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location, Position};

use crate::lsp::context::Cursor;
use crate::lsp::convert;
use crate::lsp::state::Snapshot;
use crate::lsp::world::World;

/// The route's handler: the definition under the cursor.
pub fn request(world: &mut World, params: GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let at = params.text_document_position_params;
    let snapshot = world.state.snapshot(&at.text_document.uri)?;
    definition(&snapshot, at.position)
}

pub fn definition(snapshot: &Snapshot<'_>, position: Position) -> Option<GotoDefinitionResponse> {
    let offset = convert::offset(snapshot.source, position);
    let cursor = Cursor::new(&snapshot.source.text, snapshot.syntax.tree(), offset);
    if cursor.comment.is_some()
        || cursor.string.is_some()
        || cursor.block().is_some_and(|head| head.keyword == "call")
    {
        return None;
    }
    let (_, span) = cursor.word()?;
    let word = cursor.slice(span);
    let words = cursor.words();
    let index = cursor.words_before().len();
    let config = &snapshot.config;
    let declared = match (*words.first()?, index) {
        ("tools", 1..) | ("call", 1) => config.tools.get(word)?.declared,
        ("skill", 1) | ("requires", 2) => config.skills.get(word)?.declared,
        ("when", 2) if words.get(1) == Some(&"skill-updated") => config.skills.get(word)?.declared,
        _ => None,
    }?;
    let source = config.source.as_ref()?;
    let uri = snapshot.config_uri.clone()?;
    Some(GotoDefinitionResponse::Scalar(Location::new(
        uri,
        convert::range(source, declared),
    )))
}

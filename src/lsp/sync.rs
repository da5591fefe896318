//! Document sync: the client opening, changing, saving and closing
//! documents, and `contrib.toml` files changing on disk. Each marks what
//! it touched dirty; the loop republishes diagnostics once it is idle.

use lsp_types::{
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, TextDocumentContentChangeEvent,
};
use serde::de::IgnoredAny;

use super::notification_error::NotificationError;
use super::world::World;
use super::{convert, state};

/// `textDocument/didOpen`: the text as the client has it.
pub fn did_open(
    world: &mut World,
    params: DidOpenTextDocumentParams,
) -> Result<(), NotificationError> {
    let document = params.text_document;
    world.state.refresh_from_disk();
    world
        .state
        .set_text(document.uri, document.version, document.text);
    Ok(())
}

/// `textDocument/didChange`: the changes applied to the text held, when
/// they are newer than it.
pub fn did_change(
    world: &mut World,
    params: DidChangeTextDocumentParams,
) -> Result<(), NotificationError> {
    let uri = params.text_document.uri;
    let Some(document) = world.state.document(&uri) else {
        return Err(NotificationError::NeverOpened {
            uri: uri.as_str().to_string(),
        });
    };
    // Versions only increase: an edit not newer than the text held was
    // made to another text, and applying it would corrupt this one.
    let version = params.text_document.version;
    if version <= document.version {
        return Err(NotificationError::NotNewer {
            uri: uri.as_str().to_string(),
            version,
            held: document.version,
        });
    }
    let mut text = document.source.text.to_string();
    for change in params.content_changes {
        apply_change(&mut text, change);
    }
    world.state.set_text(uri, version, text);
    Ok(())
}

/// `textDocument/didClose`.
pub fn did_close(
    world: &mut World,
    params: DidCloseTextDocumentParams,
) -> Result<(), NotificationError> {
    world.state.close(&params.text_document.uri);
    Ok(())
}

/// `textDocument/didSave`: a saved manifest may be what a `contrib.toml`
/// elsewhere refers to, so what is on disk is read again, whatever the
/// params say.
pub fn did_save(world: &mut World, _params: IgnoredAny) -> Result<(), NotificationError> {
    world.state.refresh_from_disk();
    Ok(())
}

/// `workspace/didChangeWatchedFiles`: the `contrib.toml` files among the
/// changes are read again.
pub fn did_change_watched_files(
    world: &mut World,
    params: DidChangeWatchedFilesParams,
) -> Result<(), NotificationError> {
    for change in params.changes {
        if let Some(path) = convert::path_of(&change.uri).filter(|path| state::is_config_file(path))
        {
            world.state.config_file_changed(&path);
        }
    }
    Ok(())
}

/// Applies one change of `textDocument/didChange`: the whole text, or a
/// range (for clients that send ranges although the server asked for full
/// documents).
fn apply_change(text: &mut String, change: TextDocumentContentChangeEvent) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let source = crate::source::SourceFile::new("", text.as_str());
            let span = convert::span(&source, range);
            text.replace_range(span.range(), &change.text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranged_changes_apply_too() {
        let mut text = "placement agnet\n".to_string();
        apply_change(
            &mut text,
            TextDocumentContentChangeEvent {
                range: Some(lsp_types::Range::new(
                    lsp_types::Position::new(0, 10),
                    lsp_types::Position::new(0, 15),
                )),
                range_length: None,
                text: "agent".to_string(),
            },
        );
        assert_eq!(text, "placement agent\n");
    }
}

//! The handshake: `initialize` (what the client can do, where its
//! workspace is, the initialization options) and, once the client says it
//! is `initialized`, the file watching the server asks for.

use std::path::PathBuf;

use lsp_types::notification::{DidChangeWatchedFiles, Notification as _};
use lsp_types::{
    DidChangeWatchedFilesRegistrationOptions, FileSystemWatcher, GlobPattern, InitializeParams,
    InitializeResult, Registration, RegistrationParams, ServerInfo,
};
use serde_json::Value;

use super::capabilities::capabilities_of_server;
use super::convert;
use super::rule_docs::RuleDocs;
use super::world::{ClientFlags, World};

/// Takes in what the client said (`ruleDocsUrl`, its roots and abilities)
/// and answers with the server's capabilities.
pub fn initialize(world: &mut World, params: InitializeParams) -> InitializeResult {
    let template = params
        .initialization_options
        .as_ref()
        .and_then(|options| options.get("ruleDocsUrl"))
        .and_then(Value::as_str)
        .map(str::to_string);
    world.docs = RuleDocs::new(template);
    world.state.set_roots(roots(&params));
    world.client = client_flags(&params);
    InitializeResult {
        capabilities: capabilities_of_server(),
        server_info: Some(ServerInfo {
            name: "contrib".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    }
}

fn client_flags(params: &InitializeParams) -> ClientFlags {
    let capabilities = &params.capabilities;
    ClientFlags {
        snippets: capabilities
            .text_document
            .as_ref()
            .and_then(|text| text.completion.as_ref())
            .and_then(|completion| completion.completion_item.as_ref())
            .and_then(|item| item.snippet_support)
            .unwrap_or(false),
        watches_files: capabilities
            .workspace
            .as_ref()
            .and_then(|workspace| workspace.did_change_watched_files.as_ref())
            .and_then(|watched| watched.dynamic_registration)
            .unwrap_or(false),
    }
}

/// The workspace folders, or the deprecated root, as local paths.
fn roots(params: &InitializeParams) -> Vec<PathBuf> {
    let folders = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|folder| convert::path_of(&folder.uri));
    #[allow(deprecated)] // older clients send only `rootUri`
    let root = params.root_uri.as_ref().and_then(convert::path_of);
    folders.chain(root).collect()
}

/// The registration asking the client to report changes to `contrib.toml`
/// files, when it takes dynamic registration (VS Code's client reports
/// them anyway); `None` when it does not.
pub fn watch_config_files(client: ClientFlags) -> Option<RegistrationParams> {
    if !client.watches_files {
        return None;
    }
    let options = DidChangeWatchedFilesRegistrationOptions {
        watchers: vec![FileSystemWatcher {
            glob_pattern: GlobPattern::String(format!("**/{}", crate::config::FILE_NAME)),
            kind: None,
        }],
    };
    Some(RegistrationParams {
        registrations: vec![Registration {
            id: "contrib-config-watcher".to_string(),
            method: DidChangeWatchedFiles::METHOD.to_string(),
            register_options: serde_json::to_value(options).ok(),
        }],
    })
}

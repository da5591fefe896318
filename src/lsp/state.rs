//! What the server knows between requests: the open documents, the
//! workspace configurations they use, and which diagnostics are stale.
//!
//! Analysis is lazy. An edit only stores the new text and marks the
//! document dirty; the run loop republishes diagnostics once it has no
//! more messages waiting, so a burst of keystrokes costs one analysis, and
//! a request in between (a hover) analyses the version it is asked about,
//! once, and the publication reuses that.
//!
//! Configurations are keyed by the path of their `contrib.toml`. One that
//! is open in the editor is read from the editor's text, so its effect and
//! its own diagnostics follow every keystroke; otherwise it is read from
//! disk, and read again when the client reports it changed
//! (`workspace/didChangeWatchedFiles`) or, for clients that watch nothing,
//! when its modification time differs at the next open or save.

use std::cell::OnceCell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use lsp_types::{MessageType, SemanticToken, Uri};

use super::convert;
use super::version::{Checked, Syntax};
use crate::config::{self, Config};
use crate::diagnostic::Diagnostic;
use crate::limits::MAX_FILE_BYTES;
use crate::source::SourceFile;
use crate::Analysis;

/// An open document.
pub struct Document {
    pub uri: Uri,
    pub version: i32,
    pub source: SourceFile,
    pub role: Role,
    /// The tree of this version, read once.
    syntax: OnceCell<Syntax>,
    /// Its analysis against the configuration, made once per version and
    /// configuration.
    checked: OnceCell<Checked>,
}

impl Document {
    /// The tree of this version, read on first use.
    pub fn syntax(&self) -> &Syntax {
        self.syntax
            .get_or_init(|| Syntax::new(self.source.text.clone()))
    }
}

/// What an open document is to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// A manifest, checked against the configuration at `config` (the
    /// platform's alone when `None`).
    Manifest { config: Option<PathBuf> },
    /// A workspace's `contrib.toml`.
    Config { path: PathBuf },
    /// A file of another tool's format (`SKILL.md`, `plugin.json`,
    /// `mcp.json`, `hooks.json`, …), checked in place as `contrib check`
    /// checks the folder of the plugin it belongs to.
    Source { path: PathBuf },
}

/// A loaded configuration and what was wrong with its file.
struct LoadedConfig {
    config: Arc<Config>,
    diagnostics: Vec<Diagnostic>,
    /// The file's modification time when read from disk; `None` when read
    /// from the editor or when the file could not be read.
    modified: Option<SystemTime>,
}

/// What a handler needs to answer about one manifest.
pub struct Snapshot<'a> {
    pub uri: &'a Uri,
    pub source: &'a SourceFile,
    /// The tree, read once for this version.
    pub syntax: &'a Syntax,
    /// The analysis and what derives from it, made once for this version.
    pub checked: &'a Checked,
    pub analysis: &'a Analysis,
    pub config: Arc<Config>,
    /// The URI of the workspace's `contrib.toml`, for go-to-definition.
    pub config_uri: Option<Uri>,
}

#[derive(Default)]
pub struct State {
    documents: HashMap<Uri, Document>,
    configs: HashMap<PathBuf, LoadedConfig>,
    platform: OnceCell<Arc<Config>>,
    /// Folders to look for a `contrib.toml` in for documents that have no
    /// folder of their own (`untitled:` buffers).
    roots: Vec<PathBuf>,
    /// Manifests whose published diagnostics are stale.
    dirty: BTreeSet<Uri>,
    /// Configuration files whose published diagnostics are stale.
    dirty_configs: BTreeSet<PathBuf>,
    /// Configuration files with diagnostics showing in the client, so they
    /// can be cleared when no open document uses them any more.
    showing_configs: BTreeSet<PathBuf>,
    /// Messages for the client's log.
    log: Vec<(MessageType, String)>,
    /// The semantic tokens last sent for each document, with their result
    /// id, for delta requests.
    sent_tokens: HashMap<Uri, (String, Vec<SemanticToken>)>,
    /// Result ids handed out so far.
    results: u64,
}

impl State {
    pub fn set_roots(&mut self, roots: Vec<PathBuf>) {
        self.roots = roots;
    }

    pub fn document(&self, uri: &Uri) -> Option<&Document> {
        self.documents.get(uri)
    }

    /// An open manifest, for requests that need its text and tree only.
    pub fn manifest(&self, uri: &Uri) -> Option<&Document> {
        self.documents
            .get(uri)
            .filter(|document| matches!(document.role, Role::Manifest { .. }))
    }

    /// Opens a document, or replaces the text of an open one (full sync).
    pub fn set_text(&mut self, uri: Uri, version: i32, text: String) {
        let path = convert::path_of(&uri);
        let role = match (&path, self.documents.get(&uri)) {
            (Some(path), _) if is_config_file(path) => Role::Config { path: path.clone() },
            (Some(path), _) if is_source_file(path) => Role::Source { path: path.clone() },
            // An edit keeps the configuration found at open: walking up
            // the folders on every keystroke would find the same one, and
            // `config_file_changed` finds them again when files come or go.
            (_, Some(open)) => open.role.clone(),
            _ => Role::Manifest {
                config: self.discover(path.as_deref()),
            },
        };
        let name = path.map_or_else(
            || uri.as_str().to_string(),
            |path| path.to_string_lossy().into_owned(),
        );
        let document = Document {
            uri: uri.clone(),
            version,
            source: SourceFile::new(name, text),
            role: role.clone(),
            syntax: OnceCell::new(),
            checked: OnceCell::new(),
        };
        self.documents.insert(uri.clone(), document);
        match role {
            Role::Config { path } => self.reload_config(&path),
            Role::Manifest { config } => {
                if let Some(path) = config {
                    self.ensure_config(&path);
                }
                self.dirty.insert(uri);
            }
            // A source's text can change what another open source of its
            // plugin is told (a manifest's name, a link's target): each is
            // checked again.
            Role::Source { .. } => self.sources_dirty(),
        }
    }

    /// Marks every open source file stale.
    fn sources_dirty(&mut self) {
        let sources: Vec<Uri> = self
            .documents
            .values()
            .filter(|document| matches!(document.role, Role::Source { .. }))
            .map(|document| document.uri.clone())
            .collect();
        self.dirty.extend(sources);
    }

    /// An open source file's diagnostics: those `contrib check` gives its
    /// plugin's folder for it, with every open source's text (the editor's,
    /// not the disk's). `None` when `uri` is not an open source file.
    pub fn source_diagnostics(&mut self, uri: &Uri) -> Option<(&Document, Vec<Diagnostic>)> {
        let Role::Source { path } = &self.documents.get(uri)?.role else {
            return None;
        };
        let open: Vec<(PathBuf, String)> = self
            .documents
            .values()
            .filter_map(|document| match &document.role {
                Role::Source { path } => Some((path.clone(), document.source.text.to_string())),
                _ => None,
            })
            .collect();
        let diagnostics = match crate::import::check_file_in_place(path, &open) {
            Ok(found) => found.unwrap_or_default(),
            Err(error) => {
                self.log.push((MessageType::WARNING, error.to_string()));
                Vec::new()
            }
        };
        Some((self.documents.get(uri)?, diagnostics))
    }

    /// Keeps the tokens about to be sent for `uri`; their result id.
    pub fn remember_tokens(&mut self, uri: &Uri, tokens: Vec<SemanticToken>) -> String {
        self.results += 1;
        let id = self.results.to_string();
        self.sent_tokens.insert(uri.clone(), (id.clone(), tokens));
        id
    }

    /// The tokens last sent for `uri`, when they are the result `id`.
    pub fn sent_tokens(&self, uri: &Uri, id: &str) -> Option<&[SemanticToken]> {
        self.sent_tokens
            .get(uri)
            .filter(|(sent, _)| sent == id)
            .map(|(_, tokens)| tokens.as_slice())
    }

    /// Closes a document. A closed manifest's diagnostics are cleared; a
    /// closed `contrib.toml` applies as saved on disk again.
    pub fn close(&mut self, uri: &Uri) {
        self.sent_tokens.remove(uri);
        let Some(document) = self.documents.remove(uri) else {
            return;
        };
        match document.role {
            Role::Manifest { .. } => {
                self.dirty.insert(uri.clone());
            }
            Role::Config { path } => self.reload_config(&path),
            // Cleared, and the others checked against the file on disk.
            Role::Source { .. } => {
                self.dirty.insert(uri.clone());
                self.sources_dirty();
            }
        }
    }

    /// Re-reads configurations from disk whose file changed since they
    /// were read, for clients that do not report watched files.
    pub fn refresh_from_disk(&mut self) {
        let stale: Vec<PathBuf> = self
            .configs
            .iter()
            .filter(|(path, loaded)| {
                !self.is_open_config(path) && loaded.modified != modified(path)
            })
            .map(|(path, _)| path.clone())
            .collect();
        for path in stale {
            self.reload_config(&path);
        }
    }

    /// A `contrib.toml` was created, changed or deleted on disk: finds
    /// every manifest's configuration again (a new file may now be nearer)
    /// and re-reads the file unless the editor has it open.
    pub fn config_file_changed(&mut self, path: &Path) {
        if !self.is_open_config(path) {
            self.configs.remove(path);
        }
        self.dirty_configs.insert(path.to_path_buf());
        let manifests: Vec<Uri> = self.documents.keys().cloned().collect();
        for uri in manifests {
            let file = convert::path_of(&uri);
            let found = self.discover(file.as_deref());
            if let Some(Document {
                role: Role::Manifest { config },
                checked,
                ..
            }) = self.documents.get_mut(&uri)
            {
                *config = found;
                *checked = OnceCell::new();
                self.dirty.insert(uri);
            }
        }
        let used: Vec<PathBuf> = self.used_configs().into_iter().collect();
        for path in used {
            self.ensure_config(&path);
        }
    }

    /// The manifest's analysis against its configuration, computed at most
    /// once per version.
    pub fn snapshot(&self, uri: &Uri) -> Option<Snapshot<'_>> {
        let document = self.documents.get(uri)?;
        let Role::Manifest { config: path } = &document.role else {
            return None;
        };
        let config = self.config(path.as_deref());
        let syntax = document.syntax();
        let checked = document
            .checked
            .get_or_init(|| Checked::new(analyze_syntax(&document.source, syntax, &config)));
        Some(Snapshot {
            uri: &document.uri,
            source: &document.source,
            syntax,
            checked,
            analysis: &checked.analysis,
            config,
            config_uri: path
                .as_deref()
                .and_then(|path| self.config_uri(path))
                .map(|(uri, _)| uri),
        })
    }

    /// Manifests whose diagnostics must be published again; the caller
    /// publishes an empty list for those no longer open.
    pub fn take_dirty(&mut self) -> Vec<Uri> {
        std::mem::take(&mut self.dirty).into_iter().collect()
    }

    /// Configuration files whose diagnostics must be published again, with
    /// their source and diagnostics (empty for one that is no longer used,
    /// to clear what the client shows).
    pub fn take_dirty_configs(
        &mut self,
    ) -> Vec<(PathBuf, Option<Arc<SourceFile>>, Vec<Diagnostic>)> {
        let used = self.used_configs();
        let mut paths: BTreeSet<PathBuf> = std::mem::take(&mut self.dirty_configs)
            .into_iter()
            .filter(|path| used.contains(path) || self.showing_configs.contains(path))
            .collect();
        paths.extend(self.showing_configs.difference(&used).cloned());
        let mut out = Vec::new();
        for path in paths {
            let loaded = self.configs.get(&path).filter(|_| used.contains(&path));
            let (source, diagnostics) = match loaded {
                Some(loaded) => (loaded.config.source.clone(), loaded.diagnostics.clone()),
                None => (None, Vec::new()),
            };
            if diagnostics.is_empty() {
                self.showing_configs.remove(&path);
            } else {
                self.showing_configs.insert(path.clone());
            }
            out.push((path, source, diagnostics));
        }
        out
    }

    pub fn take_log(&mut self) -> Vec<(MessageType, String)> {
        std::mem::take(&mut self.log)
    }

    /// Records a failure for the client's log.
    pub fn log_error(&mut self, message: String) {
        self.log.push((MessageType::ERROR, message));
    }

    /// The URI a configuration file is known by: the editor's, when it is
    /// open there (with its version), else its `file:` URI.
    pub fn config_uri(&self, path: &Path) -> Option<(Uri, Option<i32>)> {
        let open = self
            .documents
            .values()
            .find(|document| matches!(&document.role, Role::Config { path: open } if open == path));
        match open {
            Some(document) => Some((document.uri.clone(), Some(document.version))),
            None => convert::uri_of(path).map(|uri| (uri, None)),
        }
    }

    /// The configuration at `path`, or the platform's.
    pub fn config(&self, path: Option<&Path>) -> Arc<Config> {
        match path.and_then(|path| self.configs.get(path)) {
            Some(loaded) => loaded.config.clone(),
            None => self.platform(),
        }
    }

    fn platform(&self) -> Arc<Config> {
        self.platform
            .get_or_init(|| Arc::new(Config::platform()))
            .clone()
    }

    fn discover(&self, file: Option<&Path>) -> Option<PathBuf> {
        match file.and_then(Path::parent) {
            Some(folder) => config::discover(folder),
            None => self.roots.iter().find_map(|root| config::discover(root)),
        }
    }

    fn is_open_config(&self, path: &Path) -> bool {
        self.documents
            .values()
            .any(|document| matches!(&document.role, Role::Config { path: open } if open == path))
    }

    /// Every configuration file in use: those open, and those that open
    /// manifests are checked against.
    fn used_configs(&self) -> BTreeSet<PathBuf> {
        self.documents
            .values()
            .filter_map(|document| match &document.role {
                Role::Config { path } => Some(path.clone()),
                Role::Manifest { config } => config.clone(),
                Role::Source { .. } => None,
            })
            .collect()
    }

    fn ensure_config(&mut self, path: &Path) {
        if !self.configs.contains_key(path) {
            self.reload_config(path);
        }
    }

    /// Reads the configuration at `path` again, from the editor when it is
    /// open there, and invalidates every manifest checked against it.
    fn reload_config(&mut self, path: &Path) {
        let open = self
            .documents
            .values()
            .find_map(|document| match &document.role {
                Role::Config { path: open } if open == path => Some(document.source.clone()),
                _ => None,
            });
        let loaded = match open {
            Some(source) => {
                let (config, diagnostics) = Config::from_source(source);
                LoadedConfig {
                    config: Arc::new(config),
                    diagnostics,
                    modified: None,
                }
            }
            None => match Config::load(path) {
                Ok((config, diagnostics)) => LoadedConfig {
                    config: Arc::new(config),
                    diagnostics,
                    modified: modified(path),
                },
                Err(message) => {
                    // A file that vanished or cannot be read: check against
                    // the platform's configuration until it is back.
                    self.log.push((MessageType::WARNING, message.to_string()));
                    LoadedConfig {
                        config: self.platform(),
                        diagnostics: Vec::new(),
                        modified: None,
                    }
                }
            },
        };
        self.configs.insert(path.to_path_buf(), loaded);
        self.dirty_configs.insert(path.to_path_buf());
        for document in self.documents.values_mut() {
            if matches!(&document.role, Role::Manifest { config: Some(used) } if used == path) {
                document.checked = OnceCell::new();
                self.dirty.insert(document.uri.clone());
            }
        }
    }
}

/// Whether a file is a workspace configuration.
pub fn is_config_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name == config::FILE_NAME)
}

/// Whether a file may be in another tool's format that `contrib check`
/// checks in place: Markdown (`SKILL.md`, agents, commands, rules,
/// instruction files), Cursor's `.mdc`, and JSON (plugin manifests,
/// `mcp.json`, `hooks.json`). Which format, if any, is decided when it is
/// checked.
pub fn is_source_file(path: &Path) -> bool {
    path.extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| {
            ["md", "mdc", "json"]
                .iter()
                .any(|wanted| extension.eq_ignore_ascii_case(wanted))
        })
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path)
        .and_then(|meta| meta.modified())
        .ok()
}

/// Analyses an editor's text as `contrib check` analyses a file's bytes:
/// text over the size limit or holding NUL gets the same diagnostic.
pub fn analyze(source: &SourceFile, config: &Config) -> Analysis {
    analyze_syntax(source, &Syntax::new(source.text.clone()), config)
}

/// [`analyze`] from a tree already read.
pub fn analyze_syntax(source: &SourceFile, syntax: &Syntax, config: &Config) -> Analysis {
    let text: &str = &source.text;
    // Checked here first so that the common case does not copy the text.
    if text.len() > MAX_FILE_BYTES || text.contains('\0') {
        if let Err((_, diagnostic)) = crate::decode_bytes(&source.name, text.as_bytes()) {
            return Analysis {
                plugin: None,
                diagnostics: vec![diagnostic],
                waived: Vec::new(),
            };
        }
    }
    crate::analyze_parsed(source, syntax.parsed(), config)
}

//! The check cache: what `contrib check` found, keyed by content.
//!
//! As ruff does, results are keyed by a hash of the manifest's bytes, of
//! the workspace configuration that applied, and of this tool's version, so
//! re-checking an unchanged catalog costs reading and hashing. The key is
//! BLAKE3 (cryptographic, so no one can craft a manifest that collides with
//! a clean one, and faster than SHA-256). The index is one file, written
//! atomically; an index that cannot be read, or an entry that names a rule
//! this build does not know, is ignored and rewritten, never trusted.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Label, Severity};
use crate::source::Span;

/// Where the cache lives unless told otherwise.
pub const DEFAULT_FOLDER: &str = ".contrib-cache";

/// Bumped when the index's shape changes.
const INDEX_FILE: &str = "index-v1.json";

/// Most entries kept, so a cache shared by many catalogs stays bounded.
const MAX_ENTRIES: usize = 200_000;

pub type Key = [u8; 32];

/// The key of one manifest checked under one configuration.
pub fn key(bytes: &[u8], config_fingerprint: &[u8; 32]) -> Key {
    let mut hasher = blake3::Hasher::new();
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    hasher.update(&[0]);
    hasher.update(config_fingerprint);
    hasher.update(bytes);
    *hasher.finalize().as_bytes()
}

/// A fingerprint of a configuration's text.
pub fn fingerprint(text: &str) -> [u8; 32] {
    *blake3::hash(text.as_bytes()).as_bytes()
}

pub struct Cache {
    folder: PathBuf,
    entries: HashMap<Key, Vec<Stored>>,
    changed: bool,
}

impl Cache {
    /// Opens the cache in `folder`, starting empty when there is none or it
    /// cannot be read.
    pub fn open(folder: &Path) -> Cache {
        let entries = std::fs::read(folder.join(INDEX_FILE))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Index>(&bytes).ok())
            .filter(|index| index.version == env!("CARGO_PKG_VERSION"))
            .map(|index| {
                index
                    .entries
                    .into_iter()
                    .filter_map(|(hex, stored)| Some((parse_key(&hex)?, stored)))
                    .collect()
            })
            .unwrap_or_default();
        Cache {
            folder: folder.to_path_buf(),
            entries,
            changed: false,
        }
    }

    /// The diagnostics stored for `key`, if every one of them still names a
    /// rule this build has.
    pub fn get(&self, key: &Key) -> Option<Vec<Diagnostic>> {
        self.entries.get(key)?.iter().map(Stored::restore).collect()
    }

    pub fn insert(&mut self, key: Key, diagnostics: &[Diagnostic]) {
        self.entries
            .insert(key, diagnostics.iter().map(Stored::from).collect());
        self.changed = true;
    }

    /// Writes the index back when anything changed.
    pub fn save(&self) -> Result<(), String> {
        if !self.changed {
            return Ok(());
        }
        std::fs::create_dir_all(&self.folder).map_err(|error| {
            format!(
                "cannot create the cache `{}`: {error}",
                self.folder.display()
            )
        })?;
        let index = Index {
            version: env!("CARGO_PKG_VERSION").to_string(),
            entries: self
                .entries
                .iter()
                .take(MAX_ENTRIES)
                .map(|(key, stored)| (hex(key), stored.clone()))
                .collect(),
        };
        let bytes = serde_json::to_vec(&index).map_err(|error| error.to_string())?;
        let gitignore = self.folder.join(".gitignore");
        if !gitignore.exists() {
            let _ = std::fs::write(gitignore, "# Made by `contrib check`; safe to delete.\n*\n");
        }
        crate::cli::files::write_atomically(&self.folder.join(INDEX_FILE), &bytes)
    }
}

#[derive(Serialize, Deserialize)]
struct Index {
    version: String,
    entries: HashMap<String, Vec<Stored>>,
}

/// A stored fix: its title, whether it is safe, and its edits as
/// `(start, end, replacement)`.
type StoredFix = (String, bool, Vec<(usize, usize, String)>);

/// A diagnostic as stored: its rule by code.
#[derive(Clone, Serialize, Deserialize)]
struct Stored {
    code: String,
    error: bool,
    message: String,
    labels: Vec<(usize, usize, String, bool)>,
    help: Option<String>,
    fixes: Vec<StoredFix>,
}

impl From<&Diagnostic> for Stored {
    fn from(diagnostic: &Diagnostic) -> Self {
        Stored {
            code: diagnostic.rule.code.to_string(),
            error: diagnostic.is_error(),
            message: diagnostic.message.clone(),
            labels: diagnostic
                .labels
                .iter()
                .map(|label| {
                    (
                        label.span.start,
                        label.span.end,
                        label.message.clone(),
                        label.primary,
                    )
                })
                .collect(),
            help: diagnostic.help.clone(),
            fixes: diagnostic
                .fixes
                .iter()
                .map(|fix| {
                    (
                        fix.title.clone(),
                        fix.applicability == Applicability::Safe,
                        fix.edits
                            .iter()
                            .map(|edit| (edit.span.start, edit.span.end, edit.replacement.clone()))
                            .collect(),
                    )
                })
                .collect(),
        }
    }
}

impl Stored {
    fn restore(&self) -> Option<Diagnostic> {
        let rule = crate::rules::find(&self.code)?;
        Some(Diagnostic {
            rule,
            severity: if self.error {
                Severity::Error
            } else {
                Severity::Warning
            },
            message: self.message.clone(),
            labels: self
                .labels
                .iter()
                .map(|(start, end, message, primary)| Label {
                    span: Span::new(*start, *end),
                    message: message.clone(),
                    primary: *primary,
                })
                .collect(),
            help: self.help.clone(),
            fixes: self
                .fixes
                .iter()
                .map(|(title, safe, edits)| Fix {
                    title: title.clone(),
                    applicability: if *safe {
                        Applicability::Safe
                    } else {
                        Applicability::Unsafe
                    },
                    edits: edits
                        .iter()
                        .map(|(start, end, replacement)| Edit {
                            span: Span::new(*start, *end),
                            replacement: replacement.clone(),
                        })
                        .collect(),
                })
                .collect(),
        })
    }
}

fn hex(key: &Key) -> String {
    key.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn parse_key(hex: &str) -> Option<Key> {
    if hex.len() != 64 {
        return None;
    }
    let mut key = [0u8; 32];
    for (index, slot) in key.iter_mut().enumerate() {
        *slot = u8::from_str_radix(hex.get(index * 2..index * 2 + 2)?, 16).ok()?;
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::UNKNOWN_FIELD;

    #[test]
    fn round_trips_diagnostics_and_ignores_corrupt_indexes() {
        let folder = tempfile::tempdir().unwrap();
        let diagnostic = Diagnostic::new(&UNKNOWN_FIELD, "unknown field `x`")
            .primary(Span::new(1, 2), "here")
            .help("remove it")
            .fix(Fix::replace(
                "Remove",
                Applicability::Safe,
                Span::new(1, 2),
                "",
            ));
        let key = key(b"manifest", &fingerprint("config"));
        let mut cache = Cache::open(folder.path());
        assert!(cache.get(&key).is_none());
        cache.insert(key, std::slice::from_ref(&diagnostic));
        cache.save().unwrap();
        assert_eq!(Cache::open(folder.path()).get(&key), Some(vec![diagnostic]));

        std::fs::write(folder.path().join(INDEX_FILE), b"{ not json").unwrap();
        assert!(Cache::open(folder.path()).get(&key).is_none());
    }

    #[test]
    fn keys_change_with_content_and_config() {
        let config = fingerprint("a");
        assert_ne!(key(b"x", &config), key(b"y", &config));
        assert_ne!(key(b"x", &config), key(b"x", &fingerprint("b")));
    }
}

//! The check cache: what `contrib check` found, keyed by content.
//!
//! As ruff does, results are keyed by a hash of the manifest's bytes, of
//! the workspace configuration that applied, and of this build, so
//! re-checking an unchanged catalog costs reading and hashing. The key is
//! BLAKE3 (cryptographic, so no one can craft a manifest that collides with
//! a clean one, and faster than SHA-256). The build is the hash of the
//! sources it was compiled from (`build.rs`), not the version number, so a
//! new build never answers from an entry an older one wrote.
//!
//! ## What it defends against
//!
//! A checkout is untrusted: in CI it is a pull request's content. If the
//! cache lived in the working tree and were believed, a pull request could
//! commit entries that mark a broken manifest clean, and `contrib check`
//! would print "no problems". Two things stop that:
//!
//! - **Where it lives.** By default the cache is in the user's cache folder
//!   ([`user_cache_root`]: `$CONTRIB_CACHE_DIR`, else `$XDG_CACHE_HOME/contrib`,
//!   `~/.cache/contrib`, `~/Library/Caches/contrib` or
//!   `%LOCALAPPDATA%\contrib`), never the working folder.
//! - **Who wrote it.** The index is authenticated with a keyed BLAKE3 MAC
//!   whose 32-byte key is made at random on first use and kept in the
//!   user's cache root (`key`, readable by the owner only), never in the
//!   `--cache-dir` folder. An index written by anyone without the key,
//!   edited, truncated, or written by another build, fails the check and
//!   is ignored (and rewritten), never trusted. So even `--cache-dir
//!   .contrib-cache` pointing into a checkout, or a cache folder restored
//!   from elsewhere, cannot make a check pass: in a fresh clone the key is
//!   new and nothing committed verifies.
//!
//! What it does not defend against: someone who can write the user's
//! cache root (they hold the key), and a CI workflow that a pull request
//! can itself change. `--no-cache` checks everything afresh.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Label, Severity};
use crate::fs::{self, Mode};
use crate::limits::files::{CACHE_INDEX, KEY};
use crate::source::Span;

/// The environment variable that names the cache root, overriding the
/// user's cache folder (tests give each run its own).
pub const ROOT_VARIABLE: &str = "CONTRIB_CACHE_DIR";

/// Bumped when the index's shape changes.
const INDEX_FILE: &str = "index-v2";

/// The file in the cache root holding the MAC key.
const KEY_FILE: &str = "key";

/// The folder, under the root, of the check cache's index by default.
const CHECK_FOLDER: &str = "check";

/// Most entries kept, so a cache shared by many catalogs stays bounded.
const MAX_ENTRIES: usize = 200_000;

/// This build's identity (see `build.rs`).
pub const BUILD: &str = env!("CONTRIB_BUILD_ID");

pub type Key = [u8; 32];

/// The key of one manifest checked under one configuration by this build.
pub fn key(bytes: &[u8], config_fingerprint: &[u8; 32]) -> Key {
    key_in(BUILD, bytes, config_fingerprint)
}

/// The key of one manifest checked under one configuration by `build`.
fn key_in(build: &str, bytes: &[u8], config_fingerprint: &[u8; 32]) -> Key {
    let mut hasher = blake3::Hasher::new();
    hasher.update(build.as_bytes());
    hasher.update(&[0]);
    hasher.update(config_fingerprint);
    hasher.update(bytes);
    *hasher.finalize().as_bytes()
}

pub use contrib_core::fingerprint::of as fingerprint;

/// The user's cache root for `contrib`: `$CONTRIB_CACHE_DIR`, else the
/// platform's cache folder; `None` when neither is known (no home).
pub fn user_cache_root() -> Option<PathBuf> {
    let set = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if let Some(root) = set(ROOT_VARIABLE) {
        return Some(root);
    }
    let platform = if cfg!(windows) {
        set("LOCALAPPDATA")
    } else if cfg!(target_os = "macos") {
        set("HOME").map(|home| home.join("Library").join("Caches"))
    } else {
        set("XDG_CACHE_HOME")
            .filter(|path| path.is_absolute())
            .or_else(|| set("HOME").map(|home| home.join(".cache")))
    };
    platform.map(|folder| folder.join("contrib"))
}

/// Where the cache is: its index's folder, and the key's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub folder: PathBuf,
    key_file: PathBuf,
}

impl Location {
    /// The cache in `explicit` (`--cache-dir`), or in the user's cache
    /// root; the key is always in the root. `None` when there is no root,
    /// and so nowhere outside the checkout to keep a key.
    pub fn resolve(explicit: Option<&Path>) -> Option<Location> {
        let root = user_cache_root()?;
        Some(Location {
            folder: explicit.map_or_else(|| root.join(CHECK_FOLDER), Path::to_path_buf),
            key_file: root.join(KEY_FILE),
        })
    }
}

/// Why the cache cannot be opened or saved.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The system gave no randomness for a new key; `why` says what it
    /// said.
    NoRandomness(String),
    /// The key or the index could not be read or written.
    Fs(fs::Error),
    /// The index has no JSON form.
    NotSaved(serde_json::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NoRandomness(why) => write!(f, "cannot make a key for the cache: {why}"),
            Error::Fs(error) => error.fmt(f),
            Error::NotSaved(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::NoRandomness(_) => None,
            Error::Fs(error) => Some(error),
            Error::NotSaved(error) => Some(error),
        }
    }
}

impl From<fs::Error> for Error {
    fn from(error: fs::Error) -> Error {
        Error::Fs(error)
    }
}

into_text!(Error);

pub struct Cache {
    folder: PathBuf,
    mac_key: [u8; 32],
    entries: HashMap<Key, Vec<Stored>>,
    changed: bool,
}

impl Cache {
    /// Opens the cache at `location`, starting empty when there is none,
    /// it cannot be read, or it does not verify. `Err` when the key can
    /// neither be read nor made: then nothing can be trusted or written.
    pub fn open(location: &Location) -> Result<Cache, Error> {
        let mac_key = mac_key(&location.key_file)?;
        let entries = fs::read_limited(&location.folder.join(INDEX_FILE), CACHE_INDEX)
            .ok()
            .and_then(|bytes| {
                let json = verified(&mac_key, &bytes)?;
                serde_json::from_slice::<Index>(json).ok()
            })
            .filter(|index| index.build == BUILD)
            .map(|index| {
                index
                    .entries
                    .into_iter()
                    .filter_map(|(hex, stored)| Some((parse_key(&hex)?, stored)))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Cache {
            folder: location.folder.clone(),
            mac_key,
            entries,
            changed: false,
        })
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

    /// Writes the index back, authenticated, when anything changed.
    pub fn save(&self) -> Result<(), Error> {
        if !self.changed {
            return Ok(());
        }
        fs::create_folder(&self.folder)?;
        let index = Index {
            build: BUILD.to_string(),
            entries: self
                .entries
                .iter()
                .take(MAX_ENTRIES)
                .map(|(key, stored)| (hex(key), stored.clone()))
                .collect(),
        };
        let json = serde_json::to_vec(&index).map_err(Error::NotSaved)?;
        let mut bytes = blake3::keyed_hash(&self.mac_key, &json)
            .to_hex()
            .as_bytes()
            .to_vec();
        bytes.push(b'\n');
        bytes.extend_from_slice(&json);
        let gitignore = self.folder.join(".gitignore");
        if !gitignore.exists() {
            let _ = fs::write_new(
                &gitignore,
                b"# Made by `contrib check`; safe to delete.\n*\n",
                Mode::Shared,
            );
        }
        Ok(fs::write_atomically(&self.folder.join(INDEX_FILE), &bytes)?)
    }
}

/// The JSON of an index whose MAC verifies under `key`.
fn verified<'a>(key: &[u8; 32], bytes: &'a [u8]) -> Option<&'a [u8]> {
    let newline = bytes.iter().position(|&byte| byte == b'\n')?;
    let (mac, json) = (&bytes[..newline], &bytes[newline + 1..]);
    let mac = blake3::Hash::from_hex(mac).ok()?;
    // `blake3::Hash` compares in constant time.
    (blake3::keyed_hash(key, json) == mac).then_some(json)
}

/// The MAC key in `path`, made at random (readable by the owner only)
/// the first time.
fn mac_key(path: &Path) -> Result<[u8; 32], Error> {
    if let Some(key) = read_key(path) {
        return Ok(key);
    }
    let mut key = [0u8; 32];
    getrandom::fill(&mut key)
        .map_err(|error| Error::NoRandomness(fs::without_os_error(&error.to_string())))?;
    if let Some(folder) = path.parent() {
        fs::create_folder(folder)?;
    }
    match fs::write_new(path, hex(&key).as_bytes(), Mode::Private) {
        Ok(()) => Ok(key),
        // Another process made it first: use theirs.
        Err(error) => read_key(path).ok_or(Error::Fs(error)),
    }
}

fn read_key(path: &Path) -> Option<[u8; 32]> {
    let text = fs::read_text(path, KEY).ok()?;
    parse_key(text.trim())
}

#[derive(Serialize, Deserialize)]
struct Index {
    build: String,
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
        let rule = crate::codes::find(&self.code)?;
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
    use crate::codes::UNKNOWN_FIELD;

    fn location(root: &Path) -> Location {
        Location {
            folder: root.join("check"),
            key_file: root.join("key"),
        }
    }

    fn diagnostic() -> Diagnostic {
        Diagnostic::new(&UNKNOWN_FIELD, "unknown field `x`")
            .primary(Span::new(1, 2), "here")
            .help("remove it")
            .fix(Fix::replace(
                "Remove",
                Applicability::Safe,
                Span::new(1, 2),
                "",
            ))
    }

    #[test]
    fn round_trips_diagnostics_and_ignores_corrupt_indexes() {
        let folder = tempfile::tempdir().unwrap();
        let at = location(folder.path());
        let key = key(b"manifest", &fingerprint("config"));
        let mut cache = Cache::open(&at).unwrap();
        assert!(cache.get(&key).is_none());
        cache.insert(key, &[diagnostic()]);
        cache.save().unwrap();
        assert_eq!(
            Cache::open(&at).unwrap().get(&key),
            Some(vec![diagnostic()])
        );

        std::fs::write(at.folder.join(INDEX_FILE), b"{ not json").unwrap();
        assert!(Cache::open(&at).unwrap().get(&key).is_none());
    }

    /// A cache at `at` holding one entry for `key`, saved.
    fn saved(at: &Location, key: Key) -> Cache {
        let mut cache = Cache::open(at).unwrap();
        cache.insert(key, &[diagnostic()]);
        cache.save().unwrap();
        cache
    }

    /// Rewrites the index at `at` with `edit` applied to its JSON, under a
    /// MAC made with `mac_key` (the old MAC kept when `None`).
    fn rewrite(
        at: &Location,
        mac_key: Option<&[u8; 32]>,
        edit: impl FnOnce(&mut serde_json::Value),
    ) {
        let index = at.folder.join(INDEX_FILE);
        let written = std::fs::read_to_string(&index).unwrap();
        let (mac, json) = written.split_once('\n').unwrap();
        let mut document: serde_json::Value = serde_json::from_str(json).unwrap();
        edit(&mut document);
        let json = document.to_string();
        let mac = mac_key.map_or(mac.to_string(), |key| {
            blake3::keyed_hash(key, json.as_bytes())
                .to_hex()
                .to_string()
        });
        std::fs::write(&index, format!("{mac}\n{json}")).unwrap();
    }

    #[test]
    fn an_index_that_does_not_verify_is_ignored() {
        let folder = tempfile::tempdir().unwrap();
        let at = location(folder.path());
        let key = key(b"manifest", &fingerprint("config"));
        saved(&at, key);
        // An edited entry: "no problems" for the broken manifest.
        let clear = |document: &mut serde_json::Value| {
            document["entries"][hex(&key)] = serde_json::json!([]);
        };
        rewrite(&at, None, clear);
        assert!(Cache::open(&at).unwrap().get(&key).is_none());
        // A whole index forged under another key (a committed cache).
        rewrite(&at, Some(&[7; 32]), clear);
        assert!(Cache::open(&at).unwrap().get(&key).is_none());
        // The key is the owner's alone.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(folder.path().join("key"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn keys_change_with_content_config_and_build() {
        let config = fingerprint("a");
        assert_ne!(key(b"x", &config), key(b"y", &config));
        assert_ne!(key(b"x", &config), key(b"x", &fingerprint("b")));
        // Two builds of one version: the build id is the version and a
        // hash of the sources.
        let version = env!("CARGO_PKG_VERSION");
        assert!(BUILD.starts_with(version));
        assert!(BUILD.len() > version.len() + 8, "{BUILD}");
        assert_ne!(
            key_in(&format!("{version}-0000000000000001"), b"x", &config),
            key_in(&format!("{version}-0000000000000002"), b"x", &config)
        );
    }

    #[test]
    fn an_index_another_build_wrote_is_not_read() {
        let folder = tempfile::tempdir().unwrap();
        let at = location(folder.path());
        let key = key(b"manifest", &fingerprint("config"));
        let cache = saved(&at, key);
        // Rewritten, and authenticated, as another build of this version
        // would write it.
        rewrite(&at, Some(&cache.mac_key), |document| {
            document["build"] = format!("{}-ffffffffffffffff", env!("CARGO_PKG_VERSION")).into();
        });
        assert!(Cache::open(&at).unwrap().get(&key).is_none());
        // Under this build's id, the same rewrite is read: the build is
        // what kept it out.
        rewrite(&at, Some(&cache.mac_key), |document| {
            document["build"] = BUILD.into();
        });
        assert_eq!(
            Cache::open(&at).unwrap().get(&key),
            Some(vec![diagnostic()])
        );
    }
}

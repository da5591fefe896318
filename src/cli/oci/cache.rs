//! The events of one catalog's index already read on this machine, kept
//! in the user's cache so each is fetched once
//! (`$XDG_CACHE_HOME/contrib/registries/HOST_PORT/NAMESPACE/events.json`,
//! else `~/.cache/…`), and sealed.
//!
//! A cache is a place others write too: a CI cache restored from another
//! branch's run, a shared home, a tool that cleans up. An event edited
//! there would be believed without a request, so the file carries a MAC
//! (HMAC-SHA256) over the catalog's name and the events, under a key of
//! this user's kept outside the cache (`$XDG_STATE_HOME/contrib/cache.key`,
//! else `~/.local/state/contrib/cache.key`, readable by the owner only).
//! A cache that does not verify is set aside whole and its events read
//! again; one that cannot be kept is no cache.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::bundle::oci::{OciCatalog, Stored};

/// One event as the cache keeps it.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Kept {
    digest: String,
    annotations: BTreeMap<String, String>,
}

/// The file: the events by tag, and their MAC.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sealed {
    mac: String,
    events: BTreeMap<String, Kept>,
}

/// The events of one catalog's index read on this machine.
pub(super) struct EventCache {
    file: Option<PathBuf>,
    key: Option<[u8; 32]>,
    /// What the MAC covers besides the events: the catalog's name, so a
    /// cache is not moved from one catalog to another.
    name: String,
    events: BTreeMap<String, Kept>,
    changed: bool,
}

impl EventCache {
    /// The cache of `catalog`'s events; empty when there is none, when it
    /// does not verify (said on standard error) or when no key can be
    /// kept.
    pub(super) fn open(catalog: &OciCatalog) -> EventCache {
        let file = cache_folder().map(|folder| {
            folder
                .join("registries")
                .join(catalog.registry.replace(':', "_"))
                .join(&catalog.namespace)
                .join("events.json")
        });
        let key = key();
        let name = catalog.to_string();
        let mut cache = EventCache {
            file,
            key,
            name,
            events: BTreeMap::new(),
            changed: false,
        };
        let read = cache
            .file
            .as_ref()
            .and_then(|file| crate::fs::read_limited(file, crate::limits::files::LOCK).ok());
        if let (Some(bytes), Some(key)) = (read, cache.key) {
            match serde_json::from_slice::<Sealed>(&bytes) {
                Ok(sealed) if verifies(&key, &cache.name, &sealed) => cache.events = sealed.events,
                _ => super::super::output::status(format_args!(
                    "note: the cache of `{catalog}`'s index was not written by contrib on this machine (or not under this user's key), so its events are read again"
                )),
            }
        }
        cache
    }

    /// The event under `tag`, if it was read before.
    pub(super) fn get(&self, tag: &str) -> Option<Stored> {
        self.events.get(tag).map(|kept| Stored {
            digest: kept.digest.clone(),
            annotations: kept.annotations.clone(),
        })
    }

    /// Keeps the event read under `tag`.
    pub(super) fn insert(&mut self, tag: &str, stored: &Stored) {
        self.events.insert(
            tag.to_string(),
            Kept {
                digest: stored.digest.clone(),
                annotations: stored.annotations.clone(),
            },
        );
        self.changed = true;
    }

    /// Writes the cache back, sealed, if it changed; a cache that cannot be
    /// written only costs requests.
    pub(super) fn save(&self) {
        let (Some(file), Some(key), true) = (&self.file, &self.key, self.changed) else {
            return;
        };
        let sealed = Sealed {
            mac: mac(key, &self.name, &self.events),
            events: self.events.clone(),
        };
        let Ok(bytes) = serde_json::to_vec(&sealed) else {
            return;
        };
        if let Some(parent) = file.parent() {
            let _ = crate::fs::create_folder(parent);
        }
        let _ = crate::fs::write_atomically(file, &bytes);
    }
}

fn verifies(key: &[u8; 32], name: &str, sealed: &Sealed) -> bool {
    let expected = mac(key, name, &sealed.events);
    // Compared in constant time, as MACs are.
    expected.len() == sealed.mac.len()
        && expected
            .bytes()
            .zip(sealed.mac.bytes())
            .fold(0u8, |differ, (a, b)| differ | (a ^ b))
            == 0
}

/// The MAC of `events` of the catalog `name`, in hex.
fn mac(key: &[u8; 32], name: &str, events: &BTreeMap<String, Kept>) -> String {
    let mut message = name.as_bytes().to_vec();
    message.push(b'\n');
    message.extend(serde_json::to_vec(events).unwrap_or_default());
    hex(&hmac_sha256(key, &message))
}

/// HMAC-SHA256 (RFC 2104) of `message` under `key` (at most one block).
fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut block = [0u8; 64];
    block[..key.len().min(64)].copy_from_slice(&key[..key.len().min(64)]);
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// This user's cache key, made the first time it is needed (readable by
/// the owner only); `None` when it can be neither read nor made.
fn key() -> Option<[u8; 32]> {
    let file = state_folder()?.join("cache.key");
    let parse = |text: &str| -> Option<[u8; 32]> {
        let text = text.trim();
        let mut key = [0u8; 32];
        for (at, byte) in key.iter_mut().enumerate() {
            *byte = u8::from_str_radix(text.get(at * 2..at * 2 + 2)?, 16).ok()?;
        }
        (text.len() == 64).then_some(key)
    };
    if let Ok(text) = std::fs::read_to_string(&file) {
        return parse(&text);
    }
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).ok()?;
    crate::fs::create_folder(file.parent()?).ok()?;
    // Two processes making it at once: one wins, both read the winner's.
    let _ = crate::fs::write_new(&file, hex(&fresh).as_bytes(), crate::fs::Mode::Private);
    parse(&std::fs::read_to_string(&file).ok()?)
}

/// `$XDG_STATE_HOME/contrib`, else `~/.local/state/contrib`.
fn state_folder() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/state"))
        })?;
    Some(base.join("contrib"))
}

/// The user's cache folder for contrib.
pub(super) fn cache_folder() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(base.join("contrib"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_sha256_is_rfc_4231s() {
        // RFC 4231, test case 2.
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_cache_verifies_only_as_sealed_for_its_catalog() {
        let key = [7u8; 32];
        let mut events = BTreeMap::new();
        events.insert(
            "e1".to_string(),
            Kept {
                digest: "sha256:aa".into(),
                annotations: BTreeMap::new(),
            },
        );
        let sealed = Sealed {
            mac: mac(&key, "oci://a/b", &events),
            events,
        };
        assert!(verifies(&key, "oci://a/b", &sealed));
        assert!(!verifies(&key, "oci://a/c", &sealed));
        assert!(!verifies(&[8u8; 32], "oci://a/b", &sealed));
        let mut edited = Sealed {
            mac: sealed.mac.clone(),
            events: sealed.events.clone(),
        };
        if let Some(kept) = edited.events.get_mut("e1") {
            kept.digest = "sha256:bb".into();
        }
        assert!(!verifies(&key, "oci://a/b", &edited));
    }
}

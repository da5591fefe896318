//! The catalog's index: an append-only log of immutable events, one tag
//! each, folded by every reader into the same `catalog.lock`
//! ([`super`] describes the scheme; `docs/catalogs.md` the format).

use std::collections::BTreeMap;

use super::{
    annotation, empty_descriptor, is_digest, EventError, ManifestError, EVENT_ARTIFACT_TYPE,
    MANIFEST_TYPE,
};
use crate::catalog::consistency::Facts;
use crate::catalog::{Lock, LockEntry};
use crate::Permissions;

/// What an index event does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Publish,
    Yank,
    Restore,
    /// A signature of a published version, stored as a referrer of its
    /// manifest ([`super::referrer`]); the event is what makes it impossible to
    /// lose when signers race.
    Sign,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Publish => "publish",
            EventKind::Yank => "yank",
            EventKind::Restore => "restore",
            EventKind::Sign => "sign",
        }
    }

    fn parse(text: &str) -> Option<EventKind> {
        [
            EventKind::Publish,
            EventKind::Yank,
            EventKind::Restore,
            EventKind::Sign,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == text)
    }
}

/// An event of the index, as its manifest's annotations hold it.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub kind: EventKind,
    pub sequence: u64,
    pub plugin: String,
    pub version: semver::Version,
    /// For a publish: the bundle's digest, its manifest's digest and what
    /// it asks for. For a signature: the bundle digest it signs and the
    /// digest of the signature's manifest.
    pub bundle_digest: Option<String>,
    pub manifest: Option<String>,
    pub permissions: Option<Permissions>,
    /// For a publish: what the catalog-wide rules read of the version
    /// (absent from events written before it was recorded).
    pub facts: Option<Facts>,
}

impl Event {
    /// The annotations that carry it.
    pub fn annotations(&self) -> Result<BTreeMap<String, String>, EventError> {
        let mut out = BTreeMap::new();
        out.insert(annotation::EVENT.into(), self.kind.as_str().into());
        out.insert(annotation::SEQUENCE.into(), self.sequence.to_string());
        out.insert(annotation::PLUGIN.into(), self.plugin.clone());
        out.insert(annotation::VERSION.into(), self.version.to_string());
        if let Some(digest) = &self.bundle_digest {
            out.insert(annotation::BUNDLE_DIGEST.into(), digest.clone());
        }
        if let Some(manifest) = &self.manifest {
            out.insert(annotation::MANIFEST.into(), manifest.clone());
        }
        if let Some(permissions) = &self.permissions {
            let text = serde_json::to_string(permissions).map_err(|error| EventError::Write {
                what: "the permissions",
                why: error.to_string(),
            })?;
            out.insert(annotation::PERMISSIONS.into(), text);
        }
        if let Some(facts) = &self.facts {
            let text = serde_json::to_string(facts).map_err(|error| EventError::Write {
                what: "the catalog facts",
                why: error.to_string(),
            })?;
            out.insert(annotation::FACTS.into(), text);
        }
        Ok(out)
    }

    /// The event in `annotations`, or why it is not one.
    pub fn from_annotations(annotations: &BTreeMap<String, String>) -> Result<Event, EventError> {
        let get = |key: &'static str| annotations.get(key).ok_or(EventError::Missing { key });
        let kind = EventKind::parse(get(annotation::EVENT)?).ok_or(EventError::UnknownKind)?;
        let sequence = get(annotation::SEQUENCE)?
            .parse()
            .map_err(|_| EventError::Sequence)?;
        let plugin = get(annotation::PLUGIN)?.clone();
        if !crate::is_plugin_name(&plugin) {
            return Err(EventError::Plugin);
        }
        let version =
            semver::Version::parse(get(annotation::VERSION)?).map_err(|_| EventError::Version)?;
        let facts = match (kind, annotations.get(annotation::FACTS)) {
            (EventKind::Publish, Some(text)) => {
                Some(serde_json::from_str(text).map_err(|_| EventError::Facts)?)
            }
            _ => None,
        };
        let (bundle_digest, manifest, permissions) = match kind {
            EventKind::Publish => {
                let permissions = serde_json::from_str(get(annotation::PERMISSIONS)?)
                    .map_err(|_| EventError::Permissions)?;
                let (digest, manifest) = digests(annotations)?;
                (Some(digest), Some(manifest), Some(permissions))
            }
            EventKind::Sign => {
                let (digest, manifest) = digests(annotations)?;
                (Some(digest), Some(manifest), None)
            }
            EventKind::Yank | EventKind::Restore => (None, None, None),
        };
        Ok(Event {
            kind,
            sequence,
            plugin,
            version,
            bundle_digest,
            manifest,
            permissions,
            facts,
        })
    }
}

/// An event's bundle digest and manifest digest, both required.
fn digests(annotations: &BTreeMap<String, String>) -> Result<(String, String), EventError> {
    let get = |key: &'static str| {
        annotations
            .get(key)
            .cloned()
            .ok_or(EventError::Missing { key })
    };
    let (digest, manifest) = (get(annotation::BUNDLE_DIGEST)?, get(annotation::MANIFEST)?);
    if !is_digest(&digest) || !is_digest(&manifest) {
        return Err(EventError::Digests);
    }
    Ok((digest, manifest))
}

/// The tag of an event: its sequence, zero-padded so tags sort as the
/// fold orders them, then what makes it the writer's own (the time and a
/// random number), so that two writers never write the same tag.
pub fn event_tag(sequence: u64, millis: u64, random: u64) -> String {
    format!("e{sequence:012}.{millis:013}.{random:016x}")
}

/// Whether `tag` is an event's tag.
pub fn is_event_tag(tag: &str) -> bool {
    let mut parts = tag.strip_prefix('e').unwrap_or_default().split('.');
    let sizes: Vec<usize> = parts.by_ref().map(str::len).collect();
    sizes == [12, 13, 16] && tag[1..].bytes().all(|b| b == b'.' || b.is_ascii_hexdigit())
}

/// The index as a catalog: the lock every reader agrees on, and where each
/// version's manifest is.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Index {
    pub lock: Lock,
    /// `plugin@version` → the digest of its manifest.
    pub manifests: BTreeMap<String, String>,
    /// Publishes set aside: a version published first with other content.
    pub conflicts: Vec<Conflict>,
    /// `plugin@version` → what the catalog-wide rules read of it, for the
    /// versions whose publish event records it.
    pub facts: BTreeMap<String, Facts>,
    /// `plugin@version` → the digests of its signatures' manifests, in
    /// the order they were signed.
    pub signatures: BTreeMap<String, Vec<String>>,
    /// Events that could not be read, with why.
    pub unreadable: Vec<(String, String)>,
    /// The highest sequence seen: the next event's is one more.
    pub sequence: u64,
}

/// A publish of a version already published with other content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub tag: String,
    pub plugin: String,
    pub version: semver::Version,
    pub published: String,
    pub set_aside: String,
}

impl Index {
    /// The manifest digest of `plugin@version`.
    pub fn manifest(&self, plugin: &str, version: &semver::Version) -> Option<&String> {
        self.manifests.get(&format!("{plugin}@{version}"))
    }

    /// The manifest digests of `plugin@version`'s signatures.
    pub fn signatures(&self, plugin: &str, version: &semver::Version) -> &[String] {
        self.signatures
            .get(&format!("{plugin}@{version}"))
            .map_or(&[], Vec::as_slice)
    }
}

/// An event as read from the registry: its tag, and its annotations or
/// why they could not be read.
pub type ReadEvent = (String, Result<BTreeMap<String, String>, String>);

/// Folds the index's events — `(tag, annotations)`, or why one could
/// not be read — in their order: by sequence, then by tag. Every reader of
/// the same events gets the same index.
pub fn fold(mut events: Vec<ReadEvent>) -> Index {
    let mut index = Index::default();
    let mut read: Vec<(String, Event)> = Vec::new();
    events.sort_by(|a, b| a.0.cmp(&b.0));
    for (tag, annotations) in events {
        let event = annotations.and_then(|annotations| {
            Event::from_annotations(&annotations).map_err(|why| why.to_string())
        });
        match event {
            Ok(event) => read.push((tag, event)),
            Err(why) => index.unreadable.push((tag, why)),
        }
    }
    read.sort_by(|a, b| (a.1.sequence, &a.0).cmp(&(b.1.sequence, &b.0)));
    for (tag, event) in read {
        index.sequence = index.sequence.max(event.sequence);
        apply(&mut index, tag, event);
    }
    index
}

fn apply(index: &mut Index, tag: String, event: Event) {
    if event.kind == EventKind::Sign {
        let signed = index
            .signatures
            .entry(format!("{}@{}", event.plugin, event.version))
            .or_default();
        if let Some(manifest) = event.manifest.filter(|digest| !signed.contains(digest)) {
            signed.push(manifest);
        }
        return;
    }
    let existing = index.lock.published.iter_mut().find(|entry| {
        entry.plugin == event.plugin && entry.version.cmp_precedence(&event.version).is_eq()
    });
    match (event.kind, existing) {
        (EventKind::Publish, Some(entry)) => {
            let digest = event.bundle_digest.unwrap_or_default();
            if entry.digest != digest {
                index.conflicts.push(Conflict {
                    tag,
                    plugin: event.plugin,
                    version: event.version,
                    published: entry.digest.clone(),
                    set_aside: digest,
                });
            }
        }
        (EventKind::Publish, None) => {
            let (Some(digest), Some(manifest), Some(permissions)) =
                (event.bundle_digest, event.manifest, event.permissions)
            else {
                return;
            };
            let id = format!("{}@{}", event.plugin, event.version);
            if let Some(facts) = event.facts {
                index.facts.insert(id.clone(), facts);
            }
            index.manifests.insert(id, manifest);
            index.lock.published.push(LockEntry {
                plugin: event.plugin,
                version: event.version,
                digest,
                yanked: false,
                permissions,
            });
        }
        (EventKind::Yank, Some(entry)) => entry.yanked = true,
        (EventKind::Restore, Some(entry)) => entry.yanked = false,
        (EventKind::Yank | EventKind::Restore, None) | (EventKind::Sign, _) => {}
    }
}

/// An index event's manifest: the empty config and layer, the event in
/// its annotations.
pub fn event_manifest(event: &Event) -> Result<serde_json::Value, EventError> {
    Ok(serde_json::json!({
        "schemaVersion": 2,
        "mediaType": MANIFEST_TYPE,
        "artifactType": EVENT_ARTIFACT_TYPE,
        "config": empty_descriptor(),
        "layers": [empty_descriptor()],
        "annotations": event.annotations()?,
    }))
}

/// The annotations of a manifest's bytes.
pub fn manifest_annotations(manifest: &[u8]) -> Result<BTreeMap<String, String>, ManifestError> {
    let value: serde_json::Value =
        serde_json::from_slice(manifest).map_err(|_| ManifestError::NotJson)?;
    if value["artifactType"] != EVENT_ARTIFACT_TYPE {
        return Err(ManifestError::NotAnEvent);
    }
    serde_json::from_value(value["annotations"].clone())
        .map_err(|_| ManifestError::AnnotationsNotText)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn permissions() -> Permissions {
        serde_json::from_str(
            r#"{"placements":["agent"],"budgets":{"agent":30},"tools_loaded":[],"tools_run":[],"egress_hosts":[],"highest_priority":"workspace","reaches":["every-turn"]}"#,
        )
        .expect("permissions")
    }

    fn publish(sequence: u64, version: &str, digest: char) -> Event {
        Event {
            kind: EventKind::Publish,
            sequence,
            plugin: "acme/clock".into(),
            version: semver::Version::parse(version).expect("a version"),
            bundle_digest: Some(format!("sha256:{}", digest.to_string().repeat(64))),
            manifest: Some(format!("sha256:{}", "f".repeat(64))),
            permissions: Some(permissions()),
            facts: Some(Facts {
                owner: "workspace".into(),
                share: 30,
                requested: vec!["started-at".into()],
            }),
        }
    }

    fn logged(events: &[(&str, Event)]) -> Vec<ReadEvent> {
        events
            .iter()
            .map(|(tag, event)| {
                let annotations = event.annotations().map_err(|why| why.to_string());
                (tag.to_string(), annotations)
            })
            .collect()
    }

    #[test]
    fn events_round_trip_through_annotations() {
        let event = publish(3, "1.0.0", 'a');
        let back = Event::from_annotations(&event.annotations().expect("annotations"));
        assert_eq!(back, Ok(event));
        let tag = event_tag(3, 1_700_000_000_000, 0xabc);
        assert!(is_event_tag(&tag), "{tag}");
        assert!(!is_event_tag("1.0.0"));
    }

    #[test]
    fn the_first_publish_of_a_version_wins_whatever_order_the_tags_are_read_in() {
        let events = [
            ("e000000000002.b", publish(2, "1.0.0", 'b')),
            ("e000000000001.a", publish(1, "1.0.0", 'a')),
            ("e000000000002.a", publish(2, "1.1.0", 'c')),
        ];
        let index = fold(logged(&events));
        assert_eq!(index.lock.published.len(), 2);
        assert!(index.lock.published[0].digest.ends_with('a'));
        assert_eq!(index.conflicts.len(), 1);
        assert!(index.conflicts[0].set_aside.ends_with('b'));
        assert_eq!(index.sequence, 2);
        let mut reversed = logged(&events);
        reversed.reverse();
        assert_eq!(fold(reversed), index);
    }

    #[test]
    fn signatures_and_catalog_facts_fold_by_version_and_old_publishes_have_no_facts() {
        let mut sign = publish(2, "1.0.0", 'a');
        sign.kind = EventKind::Sign;
        sign.permissions = None;
        sign.facts = None;
        let mut old = publish(1, "2.0.0", 'b');
        old.facts = None;
        let mut again = sign.clone();
        again.sequence = 3;
        let index = fold(logged(&[
            ("e1", publish(1, "1.0.0", 'a')),
            ("e2", sign.clone()),
            ("e3", again),
            ("e4", old),
        ]));
        let version = semver::Version::new(1, 0, 0);
        assert_eq!(
            index.signatures("acme/clock", &version),
            [sign.manifest.clone().expect("a digest")]
        );
        assert!(index
            .signatures("acme/clock", &semver::Version::new(2, 0, 0))
            .is_empty());
        assert_eq!(index.facts.len(), 1);
        assert_eq!(index.facts["acme/clock@1.0.0"].share, 30);
        assert_eq!(index.lock.published.len(), 2);
        let back = Event::from_annotations(&sign.annotations().expect("annotations"));
        assert_eq!(back, Ok(sign));
    }

    #[test]
    fn yanks_and_restores_apply_in_order_and_unreadable_events_are_reported() {
        let mut yank = publish(2, "1.0.0", 'a');
        yank.kind = EventKind::Yank;
        let mut restore = yank.clone();
        restore.kind = EventKind::Restore;
        restore.sequence = 3;
        let mut events = logged(&[
            ("e3", restore),
            ("e1", publish(1, "1.0.0", 'a')),
            ("e2", yank.clone()),
        ]);
        assert!(!fold(events.clone()).lock.published[0].yanked);
        events.push((
            "e4".into(),
            Event {
                sequence: 4,
                ..yank
            }
            .annotations()
            .map_err(|why| why.to_string()),
        ));
        events.push(("e5".into(), Err("not JSON".into())));
        let index = fold(events);
        assert!(index.lock.published[0].yanked);
        assert_eq!(
            index.unreadable,
            vec![("e5".to_string(), "not JSON".to_string())]
        );
    }
}

//! Catalogs in OCI registries: the artifact format and the catalog's
//! index, with no network in sight (the client is the command line's,
//! `cli::oci`). A workspace keeps what it last read of a registry's index
//! as a folder catalog (its mirror, [`mirror_folder`]), which is what
//! loading reads, so a host that embeds the runtime needs no network.
//!
//! `oci://HOST[:PORT]/NAMESPACE` names a catalog. Each plugin is one
//! repository, `NAMESPACE/SCOPE/NAME`, each version one tag (`1.4.0`)
//! on an OCI image manifest whose `artifactType` is
//! [`BUNDLE_ARTIFACT_TYPE`], whose config is the empty descriptor and
//! whose one layer is the bundle's bytes ([`BUNDLE_LAYER_TYPE`]).
//!
//! The index is an append-only log of immutable events in the repository
//! `NAMESPACE/contrib.index`, one tag each ([`event_tag`]): a publish, a
//! yank or a restore, written in the manifest's annotations. The registry
//! has no transactions and no conditional writes, so nothing is ever
//! rewritten: each writer adds a tag of its own, which no other writer's
//! tag can replace, and every reader folds the same events in the same
//! order ([`fold`]) into the same `catalog.lock`. The order is a Lamport
//! clock: an event's sequence is one more than the highest it saw, so an
//! event follows every event its writer could read; concurrent events
//! are ordered by their tags. A version stays frozen in the fold: the
//! first publish of a version wins, a later one with other content is
//! set aside as a conflict, which its publisher sees when it reads the
//! index back after writing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::catalog::consistency::Facts;
use super::catalog::{Lock, LockEntry};
use super::Permissions;

pub mod referrer;

/// What names a catalog in a registry.
pub const SCHEME: &str = "oci://";

/// The bundle manifest's `artifactType` (version 1 of this format).
pub const BUNDLE_ARTIFACT_TYPE: &str = "application/vnd.contrib.bundle.v1";
/// The media type of the bundle's one layer: its canonical JSON.
pub const BUNDLE_LAYER_TYPE: &str = "application/vnd.contrib.bundle.v1+json";
/// An index event's `artifactType`.
pub const EVENT_ARTIFACT_TYPE: &str = "application/vnd.contrib.catalog.event.v1";
/// A manifest's media type.
pub const MANIFEST_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// The empty descriptor's media type, its content (`{}`) and digest.
pub const EMPTY_TYPE: &str = "application/vnd.oci.empty.v1+json";
pub const EMPTY_CONTENT: &[u8] = b"{}";
pub const EMPTY_DIGEST: &str =
    "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";

/// The repository, under the namespace, holding the index's events. A
/// dot cannot appear in a scope, so no plugin's repository is this one.
pub const INDEX_REPOSITORY: &str = "contrib.index";

/// Annotation keys. The `org.opencontainers.image.*` ones are what a
/// registry's interface shows.
pub mod annotation {
    pub const TITLE: &str = "org.opencontainers.image.title";
    pub const VERSION: &str = "org.opencontainers.image.version";
    pub const DESCRIPTION: &str = "org.opencontainers.image.description";
    pub const CREATED: &str = "org.opencontainers.image.created";
    pub const PLUGIN: &str = "dev.contrib.plugin";
    pub const BUNDLE_DIGEST: &str = "dev.contrib.bundle.digest";
    pub const EVENT: &str = "dev.contrib.event";
    pub const SEQUENCE: &str = "dev.contrib.event.sequence";
    pub const MANIFEST: &str = "dev.contrib.manifest";
    pub const PERMISSIONS: &str = "dev.contrib.permissions";
    pub const FACTS: &str = "dev.contrib.facts";
}

/// A catalog in a registry: `oci://HOST[:PORT]/NAMESPACE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciCatalog {
    /// `HOST[:PORT]`, as the distribution API's references write it.
    pub registry: String,
    pub namespace: String,
}

impl OciCatalog {
    /// `Some` when `text` names a registry catalog (starts with `oci://`),
    /// with the reason when it is not a valid one.
    pub fn parse(text: &str) -> Option<Result<OciCatalog, String>> {
        let rest = text.strip_prefix(SCHEME)?;
        Some(Self::parse_rest(rest).ok_or_else(|| {
            format!(
                "`{}` is not a registry catalog: write `oci://HOST[:PORT]/NAMESPACE`, the namespace in lowercase (`a-z`, `0-9`, `.`, `_`, `-`, `/`)",
                crate::report::terminal::visible(text)
            )
        }))
    }

    fn parse_rest(rest: &str) -> Option<OciCatalog> {
        let (registry, namespace) = rest.trim_end_matches('/').split_once('/')?;
        let (host, port) = match registry.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (registry, None),
        };
        let host_ok = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
        let port_ok = port.is_none_or(|port| port.parse::<u16>().is_ok());
        let namespace_ok = namespace.split('/').all(is_path_component);
        (host_ok && port_ok && namespace_ok).then(|| OciCatalog {
            registry: registry.to_string(),
            namespace: namespace.to_string(),
        })
    }

    /// The host without its port.
    pub fn host(&self) -> &str {
        self.registry
            .rsplit_once(':')
            .map_or(self.registry.as_str(), |(host, _)| host)
    }

    /// Whether the registry is on this machine, the only place plain HTTP
    /// is used without being asked for.
    pub fn is_loopback(&self) -> bool {
        let host = self.host();
        host == "localhost"
            || host
                .parse::<std::net::Ipv4Addr>()
                .is_ok_and(|ip| ip.is_loopback())
    }

    /// The repository of `plugin` (`scope/name`).
    pub fn repository(&self, plugin: &str) -> String {
        format!("{}/{plugin}", self.namespace)
    }

    /// The repository of the index.
    pub fn index_repository(&self) -> String {
        format!("{}/{INDEX_REPOSITORY}", self.namespace)
    }
}

impl std::fmt::Display for OciCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{SCHEME}{}/{}", self.registry, self.namespace)
    }
}

/// One component of a repository name, as the distribution specification
/// allows it: lowercase alphanumerics, separated by `.`, `_`, `__` or
/// dashes.
fn is_path_component(part: &str) -> bool {
    let bytes = part.as_bytes();
    let edge = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    edge(bytes.first())
        && edge(bytes.last())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(b))
        && !part.contains("..")
}

/// The folder, inside the workspace at `workspace`, holding its mirror of
/// `catalog`: a folder catalog (`catalog.lock`, the bundles it pulled).
pub fn mirror_folder(workspace: &Path, catalog: &OciCatalog) -> PathBuf {
    workspace
        .join(".contrib")
        .join("registries")
        .join(catalog.registry.replace(':', "_"))
        .join(&catalog.namespace)
}

/// What an index event does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Publish,
    Yank,
    Restore,
    /// A signature of a published version, stored as a referrer of its
    /// manifest ([`referrer`]); the event is what makes it impossible to
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
    pub fn annotations(&self) -> Result<BTreeMap<String, String>, String> {
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
            let text = serde_json::to_string(permissions)
                .map_err(|error| format!("cannot write the permissions: {error}"))?;
            out.insert(annotation::PERMISSIONS.into(), text);
        }
        if let Some(facts) = &self.facts {
            let text = serde_json::to_string(facts)
                .map_err(|error| format!("cannot write the catalog facts: {error}"))?;
            out.insert(annotation::FACTS.into(), text);
        }
        Ok(out)
    }

    /// The event in `annotations`, or why it is not one.
    pub fn from_annotations(annotations: &BTreeMap<String, String>) -> Result<Event, String> {
        let get = |key: &str| {
            annotations
                .get(key)
                .ok_or_else(|| format!("it has no `{key}` annotation"))
        };
        let kind = EventKind::parse(get(annotation::EVENT)?)
            .ok_or_else(|| "its event is none of publish, yank, restore, sign".to_string())?;
        let sequence = get(annotation::SEQUENCE)?
            .parse()
            .map_err(|_| "its sequence is not a number".to_string())?;
        let plugin = get(annotation::PLUGIN)?.clone();
        if !super::is_plugin_name(&plugin) {
            return Err("its plugin is not `scope/name`".to_string());
        }
        let version = semver::Version::parse(get(annotation::VERSION)?)
            .map_err(|_| "its version is not a semantic version".to_string())?;
        let facts = match (kind, annotations.get(annotation::FACTS)) {
            (EventKind::Publish, Some(text)) => Some(
                serde_json::from_str(text)
                    .map_err(|_| "its catalog facts are malformed".to_string())?,
            ),
            _ => None,
        };
        let (bundle_digest, manifest, permissions) = match kind {
            EventKind::Publish => {
                let permissions = serde_json::from_str(get(annotation::PERMISSIONS)?)
                    .map_err(|_| "its permissions are malformed".to_string())?;
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
fn digests(annotations: &BTreeMap<String, String>) -> Result<(String, String), String> {
    let get = |key: &str| {
        annotations
            .get(key)
            .cloned()
            .ok_or_else(|| format!("it has no `{key}` annotation"))
    };
    let (digest, manifest) = (get(annotation::BUNDLE_DIGEST)?, get(annotation::MANIFEST)?);
    if !is_digest(&digest) || !is_digest(&manifest) {
        return Err("its digests are not `sha256:` and 64 hex digits".to_string());
    }
    Ok((digest, manifest))
}

/// Whether `text` is `sha256:` and 64 lowercase hex digits.
pub fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
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
        match annotations.and_then(|annotations| Event::from_annotations(&annotations)) {
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

/// The bundle manifest of a version: its `artifactType`, the empty config,
/// the bundle as its one layer, and the annotations a registry shows.
pub fn bundle_manifest(
    bundle: &super::Bundle,
    layer_digest: &str,
    layer_size: usize,
    created: &str,
) -> serde_json::Value {
    let mut annotations = serde_json::Map::new();
    let mut put = |key: &str, value: &str| {
        annotations.insert(key.to_string(), serde_json::Value::from(value));
    };
    put(annotation::TITLE, &bundle.id());
    put(annotation::PLUGIN, &bundle.plugin);
    put(annotation::VERSION, &bundle.version.to_string());
    put(annotation::CREATED, created);
    put(
        annotation::BUNDLE_DIGEST,
        bundle.digest.as_deref().unwrap_or_default(),
    );
    if let Some(summary) = &bundle.summary {
        put(annotation::DESCRIPTION, summary);
    }
    serde_json::json!({
        "schemaVersion": 2,
        "mediaType": MANIFEST_TYPE,
        "artifactType": BUNDLE_ARTIFACT_TYPE,
        "config": empty_descriptor(),
        "layers": [{
            "mediaType": BUNDLE_LAYER_TYPE,
            "digest": layer_digest,
            "size": layer_size,
            "annotations": { annotation::TITLE: format!("{}.bundle.json", bundle.version) },
        }],
        "annotations": annotations,
    })
}

/// An index event's manifest: the empty config and layer, the event in
/// its annotations.
pub fn event_manifest(event: &Event) -> Result<serde_json::Value, String> {
    Ok(serde_json::json!({
        "schemaVersion": 2,
        "mediaType": MANIFEST_TYPE,
        "artifactType": EVENT_ARTIFACT_TYPE,
        "config": empty_descriptor(),
        "layers": [empty_descriptor()],
        "annotations": event.annotations()?,
    }))
}

pub(crate) fn empty_descriptor() -> serde_json::Value {
    serde_json::json!({ "mediaType": EMPTY_TYPE, "digest": EMPTY_DIGEST, "size": EMPTY_CONTENT.len() })
}

/// The bundle layer of a manifest's bytes, checked to be this format's:
/// its digest and size.
pub fn bundle_layer(manifest: &[u8]) -> Result<(String, u64), String> {
    let value: serde_json::Value =
        serde_json::from_slice(manifest).map_err(|_| "its manifest is not JSON".to_string())?;
    if value["artifactType"] != BUNDLE_ARTIFACT_TYPE {
        return Err(format!(
            "its manifest is not a contrib bundle (`artifactType` is not `{BUNDLE_ARTIFACT_TYPE}`)"
        ));
    }
    one_layer(&value, BUNDLE_LAYER_TYPE)
}

/// The one layer of a manifest, checked to be of `media_type`: its digest
/// and size.
pub(crate) fn one_layer(manifest: &serde_json::Value, media_type: &str) -> Result<(String, u64), String> {
    let layers = manifest["layers"].as_array().cloned().unwrap_or_default();
    let [layer] = layers.as_slice() else {
        return Err("its manifest has not exactly one layer".to_string());
    };
    let digest = layer["digest"].as_str().unwrap_or_default();
    let size = layer["size"].as_u64();
    match (layer["mediaType"] == media_type, is_digest(digest), size) {
        (true, true, Some(size)) => Ok((digest.to_string(), size)),
        _ => Err(format!(
            "its layer is not a `{media_type}` with a `sha256:` digest and a size"
        )),
    }
}

/// The annotations of a manifest's bytes.
pub fn manifest_annotations(manifest: &[u8]) -> Result<BTreeMap<String, String>, String> {
    let value: serde_json::Value =
        serde_json::from_slice(manifest).map_err(|_| "its manifest is not JSON".to_string())?;
    if value["artifactType"] != EVENT_ARTIFACT_TYPE {
        return Err(format!("it is not a `{EVENT_ARTIFACT_TYPE}`"));
    }
    serde_json::from_value(value["annotations"].clone())
        .map_err(|_| "its annotations are not text".to_string())
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
            .map(|(tag, event)| (tag.to_string(), event.annotations()))
            .collect()
    }

    #[test]
    fn a_catalog_is_named_by_registry_and_namespace() {
        let catalog = OciCatalog::parse("oci://127.0.0.1:5000/acme/plugins")
            .expect("a registry catalog")
            .expect("valid");
        assert_eq!(catalog.registry, "127.0.0.1:5000");
        assert_eq!(catalog.repository("acme/clock"), "acme/plugins/acme/clock");
        assert!(catalog.is_loopback());
        assert_eq!(catalog.to_string(), "oci://127.0.0.1:5000/acme/plugins");
        assert!(OciCatalog::parse("catalog").is_none());
        for bad in [
            "oci://host",
            "oci://host/Acme",
            "oci://host/a/../b",
            "oci://h:99999/a",
        ] {
            assert!(OciCatalog::parse(bad).expect("oci").is_err(), "{bad}");
        }
        let remote = OciCatalog::parse("oci://registry.example/acme").expect("oci");
        assert!(!remote.expect("valid").is_loopback());
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
        assert_eq!(index.signatures("acme/clock", &version), [sign.manifest.clone().expect("a digest")]);
        assert!(index.signatures("acme/clock", &semver::Version::new(2, 0, 0)).is_empty());
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
            .annotations(),
        ));
        events.push(("e5".into(), Err("not JSON".into())));
        let index = fold(events);
        assert!(index.lock.published[0].yanked);
        assert_eq!(
            index.unreadable,
            vec![("e5".to_string(), "not JSON".to_string())]
        );
    }

    #[test]
    fn a_bundle_manifest_names_its_one_layer() {
        let manifest = serde_json::json!({
            "artifactType": BUNDLE_ARTIFACT_TYPE,
            "layers": [{"mediaType": BUNDLE_LAYER_TYPE, "digest": format!("sha256:{}", "0".repeat(64)), "size": 7}],
        });
        let bytes = serde_json::to_vec(&manifest).expect("json");
        assert_eq!(
            bundle_layer(&bytes),
            Ok((format!("sha256:{}", "0".repeat(64)), 7))
        );
        assert!(bundle_layer(b"{\"artifactType\":\"other\"}").is_err());
    }
}

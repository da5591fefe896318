//! The catalog's index: an append-only log of immutable events, one tag
//! each, folded by every reader into the same `catalog.lock`
//! ([`super`] describes the scheme; `docs/catalogs.md` the format).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

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
    /// The digests of the events its writer had read that no other event
    /// it read names: its predecessors ([`MAX_PREDECESSORS`] at most).
    /// Empty for the first event of an index, and for events written
    /// before events named their predecessors.
    pub after: Vec<String>,
}

/// The most predecessors an event names. Concurrent writers leave a few
/// heads, and each event names them all; an index whose events named none
/// (written before they did) has as many heads as events, which the
/// events written after it name this many at a time, newest first.
pub const MAX_PREDECESSORS: usize = 64;

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
        if !self.after.is_empty() {
            out.insert(annotation::AFTER.into(), self.after.join(","));
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
        let after = match annotations.get(annotation::AFTER) {
            Some(text) => text.split(',').map(str::to_string).collect(),
            None => Vec::new(),
        };
        if after.len() > MAX_PREDECESSORS || !after.iter().all(|digest| is_digest(digest)) {
            return Err(EventError::Predecessors);
        }
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
            after,
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
    /// Publishes set aside: a version published again with other content
    /// by a writer who had read its first publication.
    pub conflicts: Vec<Conflict>,
    /// Versions published with other content by writers neither of whom
    /// had read the other's event: no reader can tell which came first,
    /// so none is installed ([`Dispute`]).
    pub disputes: Vec<Dispute>,
    /// `plugin@version` → what the catalog-wide rules read of it, for the
    /// versions whose publish event records it.
    pub facts: BTreeMap<String, Facts>,
    /// `plugin@version` → the tag of the publish event that published it.
    pub published_by: BTreeMap<String, String>,
    /// `plugin@version` → the digests of its signatures' manifests, in
    /// the order they were signed.
    pub signatures: BTreeMap<String, Vec<String>>,
    /// Events that could not be read, with why.
    pub unreadable: Vec<(String, String)>,
    /// Events naming a predecessor the index does not hold (an event
    /// removed, rewritten, or withheld): the tag and the digest named.
    pub missing_predecessors: Vec<(String, String)>,
    /// The events no other event names as its predecessor, newest first:
    /// what the next event names ([`MAX_PREDECESSORS`] of them at most).
    pub heads: Vec<String>,
    /// Every event read, in the order they were folded: tag, manifest
    /// digest, event.
    pub events: Vec<(String, String, Event)>,
    /// The highest sequence seen: the next event's is one more.
    pub sequence: u64,
}

/// A publish of a version already published with other content, by a
/// writer who had read that publication (it is among its predecessors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub tag: String,
    pub plugin: String,
    pub version: semver::Version,
    pub published: String,
    pub set_aside: String,
}

/// A version two or more publish events claim with other content, none of
/// them written after reading the others: a backdated event, or two
/// publishers racing with different bundles. Order among them is the
/// writers' to claim, so none wins; the version is not listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispute {
    pub plugin: String,
    pub version: semver::Version,
    /// Each claim: the tag of its event and the bundle digest it names.
    pub claims: Vec<(String, String)>,
    /// Whether the version's last yank or restore left it yanked.
    pub yanked: bool,
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

    /// The sequence of the next event written: one more than the highest
    /// seen, which a writer chose and may have made the largest there is.
    pub fn next_sequence(&self) -> u64 {
        self.sequence.saturating_add(1)
    }

    /// The dispute over `plugin@version`, if it is disputed.
    pub fn dispute(&self, plugin: &str, version: &semver::Version) -> Option<&Dispute> {
        self.disputes.iter().find(|dispute| {
            dispute.plugin == plugin && dispute.version.cmp_precedence(version).is_eq()
        })
    }
}

/// An event's manifest as read from the registry: its digest (of the
/// bytes read) and its annotations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub digest: String,
    pub annotations: BTreeMap<String, String>,
}

/// An event as read from the registry: its tag, and its manifest or why
/// it could not be read.
pub type ReadEvent = (String, Result<Stored, String>);

/// Folds the index's events — `(tag, manifest)`, or why one could not be
/// read — into the catalog every reader of the same events agrees on.
///
/// Events are folded in an order that follows their predecessors: an
/// event comes after every event it names, directly or through others.
/// That is the only order a writer cannot choose, since naming an event
/// takes its digest, which exists only once the event does; events that
/// do not follow each other are ordered by their sequence and tag, which
/// their writers chose, so nothing that matters rests on that part: the
/// first publication of a version wins only over publishes written after
/// it, and publishes of a version with other content none of which
/// follows the others are a [`Dispute`].
pub fn fold(mut events: Vec<ReadEvent>) -> Index {
    let mut index = Index::default();
    events.sort_by(|a, b| a.0.cmp(&b.0));
    let mut nodes: Vec<(String, String, Event)> = Vec::new();
    let mut by_digest: HashMap<String, usize> = HashMap::new();
    for (tag, stored) in events {
        let event = stored.and_then(|stored| {
            let event =
                Event::from_annotations(&stored.annotations).map_err(|why| why.to_string())?;
            Ok((stored.digest, event))
        });
        match event {
            // The same event under a second tag is the same event.
            Ok((digest, _)) if by_digest.contains_key(&digest) => {}
            Ok((digest, event)) => {
                by_digest.insert(digest.clone(), nodes.len());
                nodes.push((tag, digest, event));
            }
            Err(why) => index.unreadable.push((tag, why)),
        }
    }
    let parents: Vec<Vec<usize>> = nodes
        .iter()
        .map(|(tag, _, event)| {
            let mut found = Vec::new();
            for digest in &event.after {
                match by_digest.get(digest) {
                    Some(&parent) => found.push(parent),
                    None => index
                        .missing_predecessors
                        .push((tag.clone(), digest.clone())),
                }
            }
            found
        })
        .collect();
    let order = causal_order(&nodes, &parents);
    let mut named = vec![false; nodes.len()];
    for &parent in parents.iter().flatten() {
        named[parent] = true;
    }
    let mut folding = Folding {
        nodes: &nodes,
        parents: &parents,
        versions: HashMap::new(),
    };
    for &node in &order {
        let (tag, digest, event) = &nodes[node];
        index.sequence = index.sequence.max(event.sequence);
        folding.apply(&mut index, node);
        index
            .events
            .push((tag.clone(), digest.clone(), event.clone()));
    }
    let mut folded = vec![false; nodes.len()];
    for &node in &order {
        folded[node] = true;
    }
    for (node, (tag, _, _)) in nodes.iter().enumerate() {
        if !folded[node] {
            index.unreadable.push((
                tag.clone(),
                "its predecessors lead back to itself".to_string(),
            ));
        }
    }
    index.heads = order
        .iter()
        .rev()
        .filter(|&&node| !named[node])
        .map(|&node| nodes[node].1.clone())
        .take(MAX_PREDECESSORS)
        .collect();
    folding.finish(&mut index);
    index
}

/// The nodes in an order where each follows its parents, ties broken by
/// sequence and tag (Kahn's algorithm with a priority queue). A node in a
/// cycle, which content addressing makes impossible to write, is left out.
fn causal_order(nodes: &[(String, String, Event)], parents: &[Vec<usize>]) -> Vec<usize> {
    let mut waiting: Vec<usize> = parents.iter().map(Vec::len).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (child, of) in parents.iter().enumerate() {
        for &parent in of {
            children[parent].push(child);
        }
    }
    let key = |node: usize| Reverse((nodes[node].2.sequence, nodes[node].0.clone(), node));
    let mut ready: BinaryHeap<_> = (0..nodes.len())
        .filter(|&node| waiting[node] == 0)
        .map(key)
        .collect();
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(Reverse((_, _, node))) = ready.pop() {
        order.push(node);
        for &child in &children[node] {
            waiting[child] -= 1;
            if waiting[child] == 0 {
                ready.push(key(child));
            }
        }
    }
    order
}

/// What the fold knows of each version so far.
enum Claim {
    /// Published by the event at this node.
    Published(usize),
    /// Claimed with other content by these events, none after the others.
    Disputed(Vec<usize>, bool),
}

struct Folding<'a> {
    nodes: &'a [(String, String, Event)],
    parents: &'a [Vec<usize>],
    versions: HashMap<(String, String), Claim>,
}

impl Folding<'_> {
    /// Whether `ancestor` is among the predecessors of `node`, directly or
    /// through others.
    fn follows(&self, node: usize, ancestor: usize) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = self.parents[node].clone();
        while let Some(next) = stack.pop() {
            if next == ancestor {
                return true;
            }
            if !std::mem::replace(&mut seen[next], true) {
                stack.extend(&self.parents[next]);
            }
        }
        false
    }

    fn apply(&mut self, index: &mut Index, node: usize) {
        let (tag, _, event) = &self.nodes[node];
        let id = format!("{}@{}", event.plugin, event.version);
        if event.kind == EventKind::Sign {
            let signed = index.signatures.entry(id).or_default();
            if let Some(manifest) = event
                .manifest
                .clone()
                .filter(|digest| !signed.contains(digest))
            {
                signed.push(manifest);
            }
            return;
        }
        // Build metadata does not make another version.
        let key = (event.plugin.clone(), precedence_key(&event.version));
        let digest_of = |node: usize| self.nodes[node].2.bundle_digest.clone().unwrap_or_default();
        match (event.kind, self.versions.get_mut(&key)) {
            (EventKind::Publish, None) => {
                if event.bundle_digest.is_some() && event.permissions.is_some() {
                    self.versions.insert(key, Claim::Published(node));
                }
            }
            (EventKind::Publish, Some(Claim::Published(first))) => {
                let first = *first;
                if digest_of(first) == digest_of(node) {
                    return;
                }
                if self.follows(node, first) {
                    index.conflicts.push(Conflict {
                        tag: tag.clone(),
                        plugin: event.plugin.clone(),
                        version: event.version.clone(),
                        published: digest_of(first),
                        set_aside: digest_of(node),
                    });
                } else {
                    let yanked = index
                        .lock
                        .entry(&event.plugin, &event.version)
                        .is_some_and(|entry| entry.yanked);
                    self.versions
                        .insert(key, Claim::Disputed(vec![first, node], yanked));
                }
            }
            (EventKind::Publish, Some(Claim::Disputed(claims, _))) => {
                if !claims
                    .iter()
                    .any(|&claim| digest_of(claim) == digest_of(node))
                {
                    claims.push(node);
                }
            }
            (EventKind::Yank | EventKind::Restore, Some(Claim::Disputed(_, yanked))) => {
                *yanked = event.kind == EventKind::Yank;
            }
            (EventKind::Yank | EventKind::Restore, _) | (EventKind::Sign, _) => {}
        }
        self.write(index, node);
    }

    /// Brings the lock up to date with the event at `node`: a new
    /// publication listed, a yank or restore applied, a version now
    /// disputed taken out.
    fn write(&self, index: &mut Index, node: usize) {
        let (tag, _, event) = &self.nodes[node];
        let key = (event.plugin.clone(), precedence_key(&event.version));
        let at = index.lock.published.iter().position(|entry| {
            entry.plugin == event.plugin && entry.version.cmp_precedence(&event.version).is_eq()
        });
        match (self.versions.get(&key), at) {
            (Some(Claim::Published(first)), None) if *first == node => {
                let (Some(digest), Some(manifest), Some(permissions)) = (
                    event.bundle_digest.clone(),
                    event.manifest.clone(),
                    event.permissions.clone(),
                ) else {
                    return;
                };
                let id = format!("{}@{}", event.plugin, event.version);
                if let Some(facts) = event.facts.clone() {
                    index.facts.insert(id.clone(), facts);
                }
                index.published_by.insert(id.clone(), tag.clone());
                index.manifests.insert(id, manifest);
                index.lock.published.push(LockEntry {
                    plugin: event.plugin.clone(),
                    version: event.version.clone(),
                    digest,
                    yanked: false,
                    permissions,
                });
            }
            (Some(Claim::Published(_)), Some(at)) => match event.kind {
                EventKind::Yank => index.lock.published[at].yanked = true,
                EventKind::Restore => index.lock.published[at].yanked = false,
                EventKind::Publish | EventKind::Sign => {}
            },
            (Some(Claim::Disputed(..)), Some(at)) => {
                let entry = index.lock.published.remove(at);
                let id = format!("{}@{}", entry.plugin, entry.version);
                index.facts.remove(&id);
                index.manifests.remove(&id);
                index.published_by.remove(&id);
            }
            _ => {}
        }
    }

    /// Records every dispute, its claims in the order they were folded.
    fn finish(self, index: &mut Index) {
        for claim in self.versions.values() {
            let Claim::Disputed(claims, yanked) = claim else {
                continue;
            };
            let Some(&first) = claims.first() else {
                continue;
            };
            let event = &self.nodes[first].2;
            index.disputes.push(Dispute {
                plugin: event.plugin.clone(),
                version: event.version.clone(),
                claims: claims
                    .iter()
                    .map(|&claim| {
                        let (tag, _, event) = &self.nodes[claim];
                        (tag.clone(), event.bundle_digest.clone().unwrap_or_default())
                    })
                    .collect(),
                yanked: *yanked,
            });
        }
        index
            .disputes
            .sort_by(|a, b| (&a.plugin, &a.version).cmp(&(&b.plugin, &b.version)));
    }
}

/// A version as SemVer precedence sees it: without its build metadata.
fn precedence_key(version: &semver::Version) -> String {
    let mut bare = version.clone();
    bare.build = semver::BuildMetadata::EMPTY;
    bare.to_string()
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

    fn digest(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    fn publish(sequence: u64, version: &str, bundle: char) -> Event {
        Event {
            kind: EventKind::Publish,
            sequence,
            plugin: "acme/clock".into(),
            version: semver::Version::parse(version).expect("a version"),
            bundle_digest: Some(digest(bundle)),
            manifest: Some(digest('f')),
            permissions: Some(permissions()),
            facts: Some(Facts {
                owner: "workspace".into(),
                share: 30,
                requested: vec!["started-at".into()],
            }),
            after: Vec::new(),
        }
    }

    /// The events as a registry would hold them: each under its tag, its
    /// manifest's digest `sha256:` and the tag's first letter repeated
    /// (`a…` for the tag `a1`), so events can name each other.
    fn logged(events: &[(&str, Event)]) -> Vec<ReadEvent> {
        events
            .iter()
            .map(|(tag, event)| {
                let stored = event
                    .annotations()
                    .map(|annotations| Stored {
                        digest: event_digest(tag),
                        annotations,
                    })
                    .map_err(|why| why.to_string());
                (tag.to_string(), stored)
            })
            .collect()
    }

    fn event_digest(tag: &str) -> String {
        digest(tag.chars().next().expect("a tag"))
    }

    fn after(mut event: Event, tags: &[&str]) -> Event {
        event.after = tags.iter().map(|tag| event_digest(tag)).collect();
        event
    }

    #[test]
    fn events_round_trip_through_annotations() {
        let event = after(publish(3, "1.0.0", 'a'), &["b1", "c1"]);
        let back = Event::from_annotations(&event.annotations().expect("annotations"));
        assert_eq!(back, Ok(event));
        let tag = event_tag(3, 1_700_000_000_000, 0xabc);
        assert!(is_event_tag(&tag), "{tag}");
        assert!(!is_event_tag("1.0.0"));
        let mut annotations = publish(1, "1.0.0", 'a').annotations().expect("annotations");
        annotations.insert(annotation::AFTER.into(), "sha256:short".into());
        assert_eq!(
            Event::from_annotations(&annotations),
            Err(EventError::Predecessors)
        );
    }

    #[test]
    fn a_publish_written_after_the_first_is_set_aside_whatever_its_sequence() {
        // `b` names `a`: its writer had read the first publication.
        let events = [
            ("a1", publish(5, "1.0.0", 'a')),
            ("b1", after(publish(0, "1.0.0", 'b'), &["a1"])),
            ("c1", after(publish(6, "1.1.0", 'c'), &["b1"])),
        ];
        let index = fold(logged(&events));
        assert_eq!(index.lock.published.len(), 2);
        assert_eq!(index.lock.published[0].digest, digest('a'));
        assert_eq!(index.conflicts.len(), 1);
        assert_eq!(index.conflicts[0].set_aside, digest('b'));
        assert_eq!(index.conflicts[0].tag, "b1");
        assert!(index.disputes.is_empty());
        assert_eq!(index.sequence, 6);
        assert_eq!(index.next_sequence(), 7);
        assert_eq!(index.heads, [event_digest("c1")]);
        let largest = fold(logged(&[("a1", publish(u64::MAX, "1.0.0", 'a'))]));
        assert_eq!(largest.next_sequence(), u64::MAX);
        let mut reversed = logged(&events);
        reversed.reverse();
        assert_eq!(fold(reversed), index);
    }

    #[test]
    fn a_backdated_publish_disputes_the_version_rather_than_replacing_it() {
        // `f1` claims 1.0.0 with the lowest sequence, naming nothing or an
        // event older than the publication: neither follows the other.
        for backdated in [
            publish(0, "1.0.0", 'd'),
            after(publish(1, "1.0.0", 'd'), &["a1"]),
        ] {
            let events = [
                ("a1", publish(1, "0.9.0", 'a')),
                ("b1", after(publish(2, "1.0.0", 'b'), &["a1"])),
                ("c1", after(publish(3, "1.1.0", 'c'), &["b1"])),
                ("f1", backdated),
            ];
            let index = fold(logged(&events));
            let listed: Vec<String> = index
                .lock
                .published
                .iter()
                .map(|entry| entry.version.to_string())
                .collect();
            assert_eq!(listed, ["0.9.0", "1.1.0"]);
            let version = semver::Version::new(1, 0, 0);
            assert!(index.manifest("acme/clock", &version).is_none());
            let dispute = index.dispute("acme/clock", &version).expect("a dispute");
            let mut claims = dispute.claims.clone();
            claims.sort();
            assert_eq!(
                claims,
                [
                    ("b1".to_string(), digest('b')),
                    ("f1".to_string(), digest('d'))
                ]
            );
            assert!(index.conflicts.is_empty());
            let mut heads = index.heads.clone();
            heads.sort();
            assert_eq!(heads, [event_digest("c1"), event_digest("f1")]);
        }
    }

    #[test]
    fn a_predecessor_the_index_does_not_hold_is_reported() {
        let events = [
            ("a1", publish(1, "1.0.0", 'a')),
            ("b1", after(publish(2, "1.1.0", 'b'), &["a1", "d9"])),
        ];
        let index = fold(logged(&events));
        assert_eq!(index.lock.published.len(), 2);
        assert_eq!(
            index.missing_predecessors,
            [("b1".to_string(), event_digest("d9"))]
        );
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
            ("a1", publish(1, "1.0.0", 'a')),
            ("b1", sign.clone()),
            ("c1", again),
            ("d1", old),
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
            ("c1", restore),
            ("a1", publish(1, "1.0.0", 'a')),
            ("b1", yank.clone()),
        ]);
        assert!(!fold(events.clone()).lock.published[0].yanked);
        events.extend(logged(&[(
            "d1",
            Event {
                sequence: 4,
                ..yank
            },
        )]));
        events.push(("e1".into(), Err("not JSON".into())));
        let index = fold(events);
        assert!(index.lock.published[0].yanked);
        assert_eq!(
            index.unreadable,
            vec![("e1".to_string(), "not JSON".to_string())]
        );
    }
}

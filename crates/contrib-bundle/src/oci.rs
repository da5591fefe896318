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
//! order ([`fold`]) into the same `catalog.lock`. Each event names the
//! digests of the events it was written after (its predecessors, the
//! index's heads when its writer read it), so the events form a hash
//! chain, branching where writers raced: an event can claim to follow
//! only events that exist, never to precede one. A version stays frozen
//! in the fold: a publish of it with other content by a writer who had
//! read its first publication is set aside as a conflict (which its
//! publisher sees when it reads the index back), and publishes of it
//! with other content neither of which follows the other — a backdated
//! event — leave it disputed, installed by nobody.

use std::path::{Path, PathBuf};

mod error;
mod index;
pub mod referrer;

pub use error::{EventError, ManifestError, NotACatalog};
pub use index::{
    event_manifest, event_tag, fold, is_event_tag, manifest_annotations, Conflict, Dispute, Event,
    EventKind, Index, ReadEvent, Stored, MAX_PREDECESSORS,
};

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
    /// The digests of the events an event's writer had read and no other
    /// of them names: its predecessors, comma-separated.
    pub const AFTER: &str = "dev.contrib.event.after";
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
    pub fn parse(text: &str) -> Option<Result<OciCatalog, NotACatalog>> {
        let rest = text.strip_prefix(SCHEME)?;
        Some(Self::parse_rest(rest).ok_or_else(|| NotACatalog {
            text: text.to_string(),
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
        is_loopback_host(self.host())
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

/// Whether `host` (a name or an address, without a port) is this machine:
/// `localhost`, 127.0.0.0/8 or `::1`.
pub fn is_loopback_host(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
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

/// Whether `text` is `sha256:` and 64 lowercase hex digits.
pub fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
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

pub fn empty_descriptor() -> serde_json::Value {
    serde_json::json!({ "mediaType": EMPTY_TYPE, "digest": EMPTY_DIGEST, "size": EMPTY_CONTENT.len() })
}

/// The bundle layer of a manifest's bytes, checked to be this format's:
/// its digest and size.
pub fn bundle_layer(manifest: &[u8]) -> Result<(String, u64), ManifestError> {
    let value: serde_json::Value =
        serde_json::from_slice(manifest).map_err(|_| ManifestError::NotJson)?;
    if value["artifactType"] != BUNDLE_ARTIFACT_TYPE {
        return Err(ManifestError::NotABundle);
    }
    one_layer(&value, BUNDLE_LAYER_TYPE)
}

/// The one layer of a manifest, checked to be of `media_type`: its digest
/// and size.
pub fn one_layer(
    manifest: &serde_json::Value,
    media_type: &str,
) -> Result<(String, u64), ManifestError> {
    let layers = manifest["layers"].as_array().cloned().unwrap_or_default();
    let [layer] = layers.as_slice() else {
        return Err(ManifestError::LayerCount);
    };
    let digest = layer["digest"].as_str().unwrap_or_default();
    let size = layer["size"].as_u64();
    match (layer["mediaType"] == media_type, is_digest(digest), size) {
        (true, true, Some(size)) => Ok((digest.to_string(), size)),
        _ => Err(ManifestError::Layer {
            media_type: media_type.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

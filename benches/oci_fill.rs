//! `oci-fill REGISTRY NAMESPACE PLUGINS VERSIONS TEMPLATE`: fills the
//! registry catalog `oci://REGISTRY/NAMESPACE` (plain HTTP, anonymous)
//! with PLUGINS × VERSIONS published versions (`bench/p1@1.0.1` …), each
//! the bundle TEMPLATE (a `.bundle.json` a `contrib publish` wrote)
//! renamed and given its own digest, pushed exactly as `contrib publish`
//! pushes it — the bundle blob, its manifest under the version's tag, a
//! publish event in the index with its catalog facts — but many at once
//! from one process, so that `benches/oci-check.sh` can measure `catalog
//! check` over 10,000 versions without 10,000 publishing processes.
//!
//! The events are those of one publisher writing them in turn: each
//! names the one before as its predecessor, with the next sequence, so
//! the index a reader folds is the one 10,000 publishes one after the
//! other would leave. They are built in that order here, then pushed many
//! at once. The catalog-wide rules are not judged here; the check that
//! follows judges them.

use std::process::ExitCode;

use contrib::bundle::catalog::consistency::Facts;
use contrib::bundle::oci::{self, Event, EventKind};
use contrib::bundle::{canonical_bytes, digest_of, Bundle};
use futures_util::stream::{self, StreamExt, TryStreamExt};
use sha2::{Digest, Sha256};

const USAGE: &str = "usage: oci-fill REGISTRY NAMESPACE PLUGINS VERSIONS TEMPLATE";

/// Pushes in flight at once.
const CONCURRENT: usize = 32;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| arg != "--bench")
        .collect();
    let [registry, namespace, plugins, versions, template] = args.as_slice() else {
        return Err(USAGE.into());
    };
    let count = |text: &str| text.parse::<u64>().map_err(|_| USAGE.to_string());
    let (plugins, versions) = (count(plugins)?, count(versions)?);
    let bytes = std::fs::read(template).map_err(|error| format!("{template}: {error}"))?;
    let template = Bundle::from_bytes(&bytes).map_err(|error| format!("{template}: {error}"))?;
    // reqwest is built without a default provider: ring, as contrib's own.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let fill = Fill {
        client: reqwest::Client::new(),
        registry: registry.clone(),
        namespace: namespace.clone(),
        template,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| error.to_string())?;
    runtime.block_on(fill.run(plugins, versions))
}

struct Fill {
    client: reqwest::Client,
    registry: String,
    namespace: String,
    template: Bundle,
}

/// One version as pushed: its repository, tag, bundle and manifest, and
/// its publish event's tag and manifest.
struct Version {
    repository: String,
    tag: String,
    bundle: Vec<u8>,
    manifest: serde_json::Value,
    event_tag: String,
    event: serde_json::Value,
}

impl Fill {
    async fn run(&self, plugins: u64, versions: u64) -> Result<(), String> {
        let index = format!("{}/{}", self.namespace, oci::INDEX_REPOSITORY);
        let repositories = (1..=plugins).map(|p| format!("{}/bench/p{p}", self.namespace));
        stream::iter(std::iter::once(index.clone()).chain(repositories))
            .map(|repository| async move { self.push_blob(&repository, oci::EMPTY_CONTENT).await })
            .buffer_unordered(CONCURRENT)
            .try_collect::<Vec<_>>()
            .await?;
        let mut before: Option<String> = None;
        let mut all = Vec::new();
        let numbered = (1..=versions).flat_map(|v| (1..=plugins).map(move |p| (p, v)));
        for (n, (p, v)) in numbered.enumerate() {
            let version = self.version(n as u64 + 1, p, v, before.take())?;
            let bytes = serde_json::to_vec(&version.event).map_err(|error| error.to_string())?;
            before = Some(sha256(&bytes));
            all.push(version);
        }
        stream::iter(all.iter())
            .map(|version| self.publish(&index, version))
            .buffer_unordered(CONCURRENT)
            .try_collect::<Vec<_>>()
            .await?;
        Ok(())
    }

    /// `bench/pP@1.0.V` and its publish event, of `sequence`, written
    /// after the event `before`.
    fn version(
        &self,
        sequence: u64,
        p: u64,
        v: u64,
        before: Option<String>,
    ) -> Result<Version, String> {
        let mut bundle = Bundle {
            plugin: format!("bench/p{p}"),
            version: semver::Version::new(1, 0, v),
            digest: None,
            ..self.template.clone()
        };
        bundle.digest = Some(digest_of(&bundle)?);
        let bytes = canonical_bytes(&bundle)?;
        let created = "2026-12-02T00:00:00Z";
        let manifest = oci::bundle_manifest(&bundle, &sha256(&bytes), bytes.len(), created);
        let manifest_bytes = serde_json::to_vec(&manifest).map_err(|error| error.to_string())?;
        let event = Event {
            kind: EventKind::Publish,
            sequence,
            plugin: bundle.plugin.clone(),
            version: bundle.version.clone(),
            bundle_digest: bundle.digest.clone(),
            manifest: Some(sha256(&manifest_bytes)),
            permissions: Some(bundle.permissions.clone()),
            facts: Some(Facts::of(&bundle)),
            after: before.into_iter().collect(),
        };
        Ok(Version {
            repository: format!("{}/{}", self.namespace, bundle.plugin),
            tag: bundle.version.to_string(),
            bundle: bytes,
            manifest,
            event_tag: oci::event_tag(sequence, 1_764_633_600_000 + sequence, sequence),
            event: oci::event_manifest(&event)?,
        })
    }

    /// Pushes a version: its bundle, its manifest under its tag, its event.
    async fn publish(&self, index: &str, version: &Version) -> Result<(), String> {
        self.push_blob(&version.repository, &version.bundle).await?;
        self.push_manifest(&version.repository, &version.tag, &version.manifest)
            .await?;
        self.push_manifest(index, &version.event_tag, &version.event)
            .await?;
        Ok(())
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}/v2/{path}", self.registry)
    }

    /// Pushes `bytes` as a blob of `repository`: an upload started, then
    /// its one chunk sent with the digest.
    async fn push_blob(&self, repository: &str, bytes: &[u8]) -> Result<String, String> {
        let digest = sha256(bytes);
        let failed = |error: reqwest::Error| format!("{repository}: {error}");
        let started = self
            .client
            .post(self.url(&format!("{repository}/blobs/uploads/")))
            .send()
            .await
            .map_err(failed)?;
        let location = started
            .headers()
            .get("Location")
            .and_then(|location| location.to_str().ok())
            .ok_or_else(|| {
                format!(
                    "{repository}: an upload without a location ({})",
                    started.status()
                )
            })?;
        let mut url = reqwest::Url::parse(&self.url(""))
            .and_then(|base| base.join(location))
            .map_err(|error| format!("{repository}: {error}"))?;
        url.query_pairs_mut().append_pair("digest", &digest);
        let answer = self
            .client
            .put(url)
            .header("Content-Type", "application/octet-stream")
            .body(bytes.to_vec())
            .send()
            .await
            .map_err(failed)?;
        if !answer.status().is_success() {
            return Err(format!(
                "{repository}: the blob push answered {}",
                answer.status()
            ));
        }
        Ok(digest)
    }

    async fn push_manifest(
        &self,
        repository: &str,
        tag: &str,
        manifest: &serde_json::Value,
    ) -> Result<String, String> {
        let bytes = serde_json::to_vec(manifest).map_err(|error| error.to_string())?;
        let digest = sha256(&bytes);
        let answer = self
            .client
            .put(self.url(&format!("{repository}/manifests/{tag}")))
            .header("Content-Type", oci::MANIFEST_TYPE)
            .body(bytes)
            .send()
            .await
            .map_err(|error| format!("{repository}:{tag}: {error}"))?;
        if !answer.status().is_success() {
            return Err(format!(
                "{repository}:{tag}: the manifest push answered {}",
                answer.status()
            ));
        }
        Ok(digest)
    }
}

fn sha256(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("sha256:{hex}")
}

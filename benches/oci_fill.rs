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
//! The events' sequences are those of one publisher writing them in
//! turn (1, 2, …): the index a reader folds is the one 10,000 publishes
//! one after the other would leave. The catalog-wide rules are not
//! judged here; the check that follows judges them.

use std::process::ExitCode;

use contrib::bundle::catalog::consistency::Facts;
use contrib::bundle::oci::{self, Event, EventKind};
use contrib::bundle::{canonical_bytes, digest_of, Bundle};
use futures_util::stream::{self, StreamExt, TryStreamExt};
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference, RegistryOperation};
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
        client: Client::new(ClientConfig {
            protocol: ClientProtocol::Http,
            use_monolithic_push: true,
            ..ClientConfig::default()
        }),
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
    client: Client,
    registry: String,
    namespace: String,
    template: Bundle,
}

impl Fill {
    async fn run(&self, plugins: u64, versions: u64) -> Result<(), String> {
        let index = format!("{}/{}", self.namespace, oci::INDEX_REPOSITORY);
        let repositories = (1..=plugins).map(|p| format!("{}/bench/p{p}", self.namespace));
        stream::iter(std::iter::once(index).chain(repositories))
            .map(|repository| async move {
                let reference = self.reference(&repository, oci::EMPTY_DIGEST);
                self.client
                    .auth(
                        &reference,
                        &RegistryAuth::Anonymous,
                        RegistryOperation::Push,
                    )
                    .await
                    .map_err(|error| error.to_string())?;
                self.push_blob(&repository, oci::EMPTY_CONTENT).await
            })
            .buffer_unordered(CONCURRENT)
            .try_collect::<Vec<_>>()
            .await?;
        let all = (1..=versions).flat_map(|v| (1..=plugins).map(move |p| (p, v)));
        stream::iter(all.enumerate())
            .map(|(n, (p, v))| self.publish(n as u64 + 1, p, v))
            .buffer_unordered(CONCURRENT)
            .try_collect::<Vec<_>>()
            .await?;
        Ok(())
    }

    /// Pushes `bench/pP@1.0.V` and its publish event, of `sequence`.
    async fn publish(&self, sequence: u64, p: u64, v: u64) -> Result<(), String> {
        let mut bundle = Bundle {
            plugin: format!("bench/p{p}"),
            version: semver::Version::new(1, 0, v),
            digest: None,
            ..self.template.clone()
        };
        bundle.digest = Some(digest_of(&bundle)?);
        let bytes = canonical_bytes(&bundle)?;
        let repository = format!("{}/{}", self.namespace, bundle.plugin);
        let layer = self.push_blob(&repository, &bytes).await?;
        let created = "2026-12-02T00:00:00Z";
        let manifest = oci::bundle_manifest(&bundle, &layer, bytes.len(), created);
        let tag = bundle.version.to_string();
        let manifest = self.push_manifest(&repository, &tag, &manifest).await?;
        let event = Event {
            kind: EventKind::Publish,
            sequence,
            plugin: bundle.plugin.clone(),
            version: bundle.version.clone(),
            bundle_digest: bundle.digest.clone(),
            manifest: Some(manifest),
            permissions: Some(bundle.permissions.clone()),
            facts: Some(Facts::of(&bundle)),
        };
        let index = format!("{}/{}", self.namespace, oci::INDEX_REPOSITORY);
        let tag = oci::event_tag(sequence, 1_764_633_600_000 + sequence, sequence);
        self.push_manifest(&index, &tag, &oci::event_manifest(&event)?)
            .await?;
        Ok(())
    }

    fn reference(&self, repository: &str, tag_or_digest: &str) -> Reference {
        let (registry, repository) = (self.registry.clone(), repository.to_string());
        if tag_or_digest.starts_with("sha256:") {
            Reference::with_digest(registry, repository, tag_or_digest.to_string())
        } else {
            Reference::with_tag(registry, repository, tag_or_digest.to_string())
        }
    }

    async fn push_blob(&self, repository: &str, bytes: &[u8]) -> Result<String, String> {
        let digest = sha256(bytes);
        let reference = self.reference(repository, &digest);
        self.client
            .push_blob(&reference, bytes.to_vec(), &digest)
            .await
            .map_err(|error| format!("{repository}: {error}"))?;
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
        let content_type = http::HeaderValue::from_static(oci::MANIFEST_TYPE);
        self.client
            .push_manifest_raw(&self.reference(repository, tag), bytes, content_type)
            .await
            .map_err(|error| format!("{repository}:{tag}: {error}"))?;
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

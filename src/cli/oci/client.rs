//! The distribution API, through `oci-client`, behind a blocking face: the
//! command line runs one registry operation at a time on a runtime of its
//! own. Every answer is checked against the digest it was asked by; what
//! the registry says is never trusted further than that.

use std::collections::BTreeMap;
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::errors::{OciDistributionError, OciErrorCode};
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference, RegistryOperation};
use sha2::{Digest, Sha256};

use crate::bundle::oci::{self, Index, OciCatalog};

/// How long a registry may stay silent before an operation fails; for
/// tests, `CONTRIB_REGISTRY_TIMEOUT` (seconds).
const TIMEOUT: Duration = Duration::from_secs(30);

/// Tags asked for per page of the index.
const PAGE: usize = 1000;

/// Reads of immutable things (events, a version's tag) in flight at once:
/// enough to hide a round trip's latency, few enough not to flood a
/// registry (`benches/oci-check.sh` measures it).
const CONCURRENT_READS: usize = 16;

/// A connection to the registry of one catalog.
pub(crate) struct Registry {
    pub catalog: OciCatalog,
    client: Client,
    auth: RegistryAuth,
    runtime: tokio::runtime::Runtime,
    /// The repositories (and whether for pushing) already authenticated:
    /// each authentication is a round trip or two, and a publish pushes
    /// several blobs and manifests into one repository.
    authenticated: std::sync::Mutex<std::collections::HashSet<(String, bool)>>,
}

impl Registry {
    /// Connects to `catalog`'s registry: HTTPS, unless the registry is on
    /// this machine or `plain_http` was asked for; credentials as
    /// [`super::credentials`] finds them.
    pub(crate) fn connect(catalog: &OciCatalog, plain_http: bool) -> Result<Registry, String> {
        // reqwest is built without a default provider: ring, chosen here.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let protocol = if plain_http || catalog.is_loopback() {
            ClientProtocol::HttpsExcept(vec![catalog.registry.clone()])
        } else {
            ClientProtocol::Https
        };
        let timeout = std::env::var("CONTRIB_REGISTRY_TIMEOUT")
            .ok()
            .and_then(|text| text.parse().ok())
            .map_or(TIMEOUT, Duration::from_secs);
        let config = ClientConfig {
            protocol,
            read_timeout: Some(timeout),
            connect_timeout: Some(timeout),
            user_agent: concat!("contrib/", env!("CARGO_PKG_VERSION")),
            ..ClientConfig::default()
        };
        let client = Client::try_from(config)
            .map_err(|error| format!("cannot reach `{catalog}`: {error}"))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| format!("cannot start the registry client: {error}"))?;
        let auth = super::credentials::find(catalog.host(), &catalog.registry)?;
        Ok(Registry {
            catalog: catalog.clone(),
            client,
            auth,
            runtime,
            authenticated: Default::default(),
        })
    }

    fn reference(&self, repository: &str, tag_or_digest: &str) -> Reference {
        if tag_or_digest.starts_with("sha256:") {
            Reference::with_digest(
                self.catalog.registry.clone(),
                repository.to_string(),
                tag_or_digest.to_string(),
            )
        } else {
            Reference::with_tag(
                self.catalog.registry.clone(),
                repository.to_string(),
                tag_or_digest.to_string(),
            )
        }
    }

    /// Authenticates for `operation` on `reference`'s repository.
    fn authenticate(
        &self,
        reference: &Reference,
        operation: RegistryOperation,
    ) -> Result<(), String> {
        let key = (
            reference.repository().to_string(),
            matches!(operation, RegistryOperation::Push),
        );
        if self
            .authenticated
            .lock()
            .is_ok_and(|set| set.contains(&key))
        {
            return Ok(());
        }
        self.runtime
            .block_on(self.client.auth(reference, &self.auth, operation))
            .map(|_| ())
            .map_err(|error| self.explain(&error))?;
        if let Ok(mut set) = self.authenticated.lock() {
            set.insert(key);
        }
        Ok(())
    }

    /// The registry's answer, in words; never a credential.
    fn explain(&self, error: &OciDistributionError) -> String {
        let what = match error {
            OciDistributionError::UnauthorizedError { .. }
            | OciDistributionError::AuthenticationFailure(_) => {
                "the registry refused the credentials (see `docs/catalogs.md`, credentials)"
                    .to_string()
            }
            OciDistributionError::RegistryError { envelope, .. }
                if envelope.errors.iter().any(|e| {
                    matches!(e.code, OciErrorCode::Unauthorized | OciErrorCode::Denied)
                }) =>
            {
                "the registry refused the credentials (see `docs/catalogs.md`, credentials)"
                    .to_string()
            }
            OciDistributionError::RequestError(error) if error.is_timeout() => {
                "the registry did not answer in time".to_string()
            }
            other => other.to_string(),
        };
        format!("registry `{}`: {what}", self.catalog)
    }

    /// The digest `tag` names in `repository`, or `None` when it names
    /// nothing.
    pub(crate) fn tag_digest(&self, repository: &str, tag: &str) -> Result<Option<String>, String> {
        self.runtime.block_on(self.digest_of_tag(repository, tag))
    }

    async fn digest_of_tag(&self, repository: &str, tag: &str) -> Result<Option<String>, String> {
        let reference = self.reference(repository, tag);
        match self
            .client
            .fetch_manifest_digest(&reference, &self.auth)
            .await
        {
            Ok(digest) => Ok(Some(digest)),
            Err(error) if is_not_found(&error) => Ok(None),
            Err(error) => Err(self.explain(&error)),
        }
    }

    /// The manifest `digest` names, checked to hash to it.
    pub(crate) fn manifest(&self, repository: &str, digest: &str) -> Result<Vec<u8>, String> {
        let reference = self.reference(repository, digest);
        let (bytes, _) = self
            .runtime
            .block_on(
                self.client
                    .pull_manifest_raw(&reference, &self.auth, &[oci::MANIFEST_TYPE]),
            )
            .map_err(|error| self.explain(&error))?;
        let got = sha256(&bytes);
        if got != digest {
            return Err(format!(
                "registry `{}`: the manifest asked for as {digest} hashes to {got}",
                self.catalog
            ));
        }
        Ok(bytes.to_vec())
    }

    /// The blob `digest` names, at most `limit` bytes, checked to hash to
    /// it.
    pub(crate) fn blob(
        &self,
        repository: &str,
        digest: &str,
        size: u64,
        limit: u64,
    ) -> Result<Vec<u8>, String> {
        if size > limit {
            return Err(format!(
                "registry `{}`: the blob {digest} is {size} bytes, over the {limit} a bundle may be",
                self.catalog
            ));
        }
        let reference = self.reference(repository, digest);
        let mut out = Vec::new();
        self.runtime
            .block_on(self.client.pull_blob(&reference, digest, &mut out))
            .map_err(|error| self.explain(&error))?;
        let got = sha256(&out);
        if got != digest {
            return Err(format!(
                "registry `{}`: the blob asked for as {digest} hashes to {got}",
                self.catalog
            ));
        }
        Ok(out)
    }

    /// Pushes `bytes` as a blob of `repository` (a blob already there is
    /// not sent again); its digest.
    pub(crate) fn push_blob(&self, repository: &str, bytes: &[u8]) -> Result<String, String> {
        let digest = sha256(bytes);
        let reference = self.reference(repository, &digest);
        self.authenticate(&reference, RegistryOperation::Push)?;
        let exists = self
            .runtime
            .block_on(self.client.blob_exists(&reference, &digest))
            .unwrap_or(false);
        if !exists {
            self.runtime
                .block_on(self.client.push_blob(&reference, bytes.to_vec(), &digest))
                .map_err(|error| self.explain(&error))?;
        }
        Ok(digest)
    }

    /// Pushes a manifest under `tag` (or by its digest, with `None`); its
    /// digest.
    pub(crate) fn push_manifest(
        &self,
        repository: &str,
        tag: Option<&str>,
        manifest: &serde_json::Value,
    ) -> Result<String, String> {
        self.push_manifest_as(repository, tag, manifest, oci::MANIFEST_TYPE)
    }

    /// Pushes a manifest of `media_type` (an image manifest or an image
    /// index) under `tag`, or by its digest with `None`; its digest.
    pub(crate) fn push_manifest_as(
        &self,
        repository: &str,
        tag: Option<&str>,
        manifest: &serde_json::Value,
        media_type: &'static str,
    ) -> Result<String, String> {
        let bytes = serde_json::to_vec(manifest)
            .map_err(|error| format!("cannot write a manifest: {error}"))?;
        let digest = sha256(&bytes);
        let reference = self.reference(repository, tag.unwrap_or(&digest));
        self.authenticate(&reference, RegistryOperation::Push)?;
        let content_type = http::HeaderValue::from_static(media_type);
        let mut attempt = 0;
        loop {
            let pushed = self.runtime.block_on(self.client.push_manifest_raw(
                &reference,
                bytes.clone(),
                content_type.clone(),
            ));
            match pushed {
                Ok(_) => return Ok(digest),
                Err(error) if attempt < BLOB_RACE_RETRIES && is_blob_in_flight(&error) => {
                    attempt += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50 << attempt));
                }
                Err(error) => return Err(self.explain(&error)),
            }
        }
    }

    /// The bytes of the index `tag` names in `repository`, or `None` when
    /// it names nothing.
    pub(crate) fn image_index(
        &self,
        repository: &str,
        tag: &str,
    ) -> Result<Option<Vec<u8>>, String> {
        let reference = self.reference(repository, tag);
        match self.runtime.block_on(self.client.pull_manifest_raw(
            &reference,
            &self.auth,
            &[oci::referrer::INDEX_TYPE],
        )) {
            Ok((bytes, _)) => Ok(Some(bytes.to_vec())),
            Err(error) if is_not_found(&error) => Ok(None),
            Err(error) => Err(self.explain(&error)),
        }
    }

    /// The digests of the contrib signatures the registry lists as
    /// referrers of `subject`: through the referrers API where the
    /// registry has it, else the referrers tag schema (`oci-client` picks).
    pub(crate) fn signature_referrers(
        &self,
        repository: &str,
        subject: &str,
    ) -> Result<Vec<String>, String> {
        let reference = self.reference(repository, subject);
        self.authenticate(&reference, RegistryOperation::Pull)?;
        let index = self
            .runtime
            .block_on(
                self.client
                    .pull_referrers(&reference, Some(oci::referrer::SIGNATURE_ARTIFACT_TYPE)),
            )
            .map_err(|error| self.explain(&error))?;
        Ok(index
            .manifests
            .into_iter()
            .map(|entry| entry.digest)
            .collect())
    }

    /// Every tag of `repository`, page by page; none when it does not
    /// exist.
    pub(crate) fn tags(&self, repository: &str) -> Result<Vec<String>, String> {
        let reference = self.reference(repository, "latest");
        let mut tags: Vec<String> = Vec::new();
        loop {
            let last = tags.last().cloned();
            let page = match self.runtime.block_on(self.client.list_tags(
                &reference,
                &self.auth,
                Some(PAGE),
                last.as_deref(),
            )) {
                Ok(page) => page.tags,
                Err(error) if is_not_found(&error) => Vec::new(),
                Err(error) => return Err(self.explain(&error)),
            };
            let full = page.len() >= PAGE;
            let before = tags.len();
            tags.extend(page.into_iter().filter(|tag| Some(tag) > last.as_ref()));
            if !full || tags.len() == before {
                return Ok(tags);
            }
        }
    }

    /// The catalog's index: every event read and folded. Events are
    /// immutable, so each is fetched once per machine and kept in the
    /// user's cache ([`EventCache`]); only new tags cost a request, and
    /// those are read [`CONCURRENT_READS`] at a time. The fold orders
    /// events by their sequence and tag, so the order they arrive in
    /// changes nothing.
    pub(crate) fn index(&self) -> Result<Index, String> {
        let repository = self.catalog.index_repository();
        let mut cache = EventCache::open(&self.catalog);
        let mut events = Vec::new();
        let mut unread = Vec::new();
        for tag in self.tags(&repository)? {
            if !oci::is_event_tag(&tag) {
                continue;
            }
            match cache.events.get(&tag) {
                Some(annotations) => events.push((tag, Ok(annotations.clone()))),
                None => unread.push(tag),
            }
        }
        for (tag, read) in unread.iter().zip(self.read_events(&repository, &unread)) {
            if let Ok(annotations) = &read {
                cache.events.insert(tag.clone(), annotations.clone());
                cache.changed = true;
            }
            events.push((tag.clone(), read));
        }
        cache.save();
        Ok(oci::fold(events))
    }

    /// The annotations of the events `tags` name in `repository`, in the
    /// order of `tags`, each or why it could not be read.
    fn read_events(
        &self,
        repository: &str,
        tags: &[String],
    ) -> Vec<Result<BTreeMap<String, String>, String>> {
        let reads = tags.iter().map(|tag| {
            let reference = self.reference(repository, tag);
            async move {
                self.client
                    .pull_manifest_raw(&reference, &self.auth, &[oci::MANIFEST_TYPE])
                    .await
                    .map_err(|error| self.explain(&error))
                    .and_then(|(bytes, _)| Ok(oci::manifest_annotations(&bytes)?))
            }
        });
        self.runtime
            .block_on(stream::iter(reads).buffered(CONCURRENT_READS).collect())
    }

    /// The digest each `(repository, tag)` names, in their order: `None`
    /// for a tag that names nothing. Read [`CONCURRENT_READS`] at a time,
    /// for `catalog check`'s one `HEAD` per version.
    pub(crate) fn tag_digests(
        &self,
        tags: &[(String, String)],
    ) -> Vec<Result<Option<String>, String>> {
        let reads = tags
            .iter()
            .map(|(repository, tag)| self.digest_of_tag(repository, tag));
        self.runtime
            .block_on(stream::iter(reads).buffered(CONCURRENT_READS).collect())
    }

    /// Adds `event` to the index under a tag of its own.
    pub(crate) fn append(&self, event: &oci::Event) -> Result<String, String> {
        let repository = self.catalog.index_repository();
        self.push_blob(&repository, oci::EMPTY_CONTENT)?;
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_millis() as u64);
        let mut random = [0u8; 8];
        getrandom::fill(&mut random)
            .map_err(|error| format!("cannot draw a random number: {error}"))?;
        let tag = oci::event_tag(event.sequence, millis, u64::from_le_bytes(random));
        self.push_manifest(&repository, Some(&tag), &oci::event_manifest(event)?)?;
        Ok(tag)
    }

    /// The bundle bytes of `plugin`'s manifest `digest`, each step checked
    /// against its digest.
    pub(crate) fn bundle(&self, plugin: &str, digest: &str) -> Result<Vec<u8>, String> {
        let repository = self.catalog.repository(plugin);
        let manifest = self.manifest(&repository, digest)?;
        let (layer, size) = oci::bundle_layer(&manifest)
            .map_err(|why| format!("registry `{}`: {plugin} {digest}: {why}", self.catalog))?;
        self.blob(
            &repository,
            &layer,
            size,
            crate::limits::files::BUNDLE.bytes,
        )
    }

    /// The annotations of the manifest `digest` names in `repository`.
    pub(crate) fn annotations_of(
        &self,
        repository: &str,
        digest: &str,
    ) -> Result<BTreeMap<String, String>, String> {
        let manifest = self.manifest(repository, digest)?;
        let value: serde_json::Value = serde_json::from_slice(&manifest)
            .map_err(|_| format!("registry `{}`: a manifest is not JSON", self.catalog))?;
        Ok(serde_json::from_value(value["annotations"].clone()).unwrap_or_default())
    }
}

/// `sha256:` and the hex of `bytes`' SHA-256.
pub(super) fn sha256(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// How often a manifest is pushed again while a blob it names is still
/// being committed by another publisher (50, 100, … 1,600 ms apart).
const BLOB_RACE_RETRIES: u32 = 5;

/// Whether the registry refused a manifest because a blob it names is not
/// there yet. Publishers on other machines push the same small blobs (the
/// empty config every event and signature shares) at the same moment, and
/// `distribution` answers `MANIFEST_BLOB_UNKNOWN` (with `DIGEST_INVALID`)
/// while another upload of that blob is being committed; a moment later
/// the blob is there. Every blob a manifest names was pushed (or found)
/// before it, so the refusal is the race, not a missing upload.
fn is_blob_in_flight(error: &OciDistributionError) -> bool {
    match error {
        OciDistributionError::ServerError { code, message, .. } => {
            *code == 400 && message.contains("MANIFEST_BLOB_UNKNOWN")
        }
        OciDistributionError::RegistryError { envelope, .. } => envelope
            .errors
            .iter()
            .any(|e| matches!(e.code, OciErrorCode::ManifestBlobUnknown)),
        _ => false,
    }
}

fn is_not_found(error: &OciDistributionError) -> bool {
    match error {
        OciDistributionError::ImageManifestNotFoundError(_) => true,
        OciDistributionError::ServerError { code, .. } => *code == 404,
        OciDistributionError::RegistryError { envelope, .. } => envelope.errors.iter().any(|e| {
            matches!(
                e.code,
                OciErrorCode::NameUnknown
                    | OciErrorCode::ManifestUnknown
                    | OciErrorCode::NotFound
                    | OciErrorCode::BlobUnknown
            )
        }),
        _ => false,
    }
}

/// The events of one catalog's index already read on this machine, by tag,
/// in `$XDG_CACHE_HOME/contrib/registries/HOST_PORT/NAMESPACE/events.json`
/// (else `~/.cache/…`). A cache that cannot be read or written is no
/// cache: everything is fetched again.
struct EventCache {
    file: Option<std::path::PathBuf>,
    events: BTreeMap<String, BTreeMap<String, String>>,
    changed: bool,
}

impl EventCache {
    fn open(catalog: &OciCatalog) -> EventCache {
        let file = cache_folder().map(|folder| {
            folder
                .join("registries")
                .join(catalog.registry.replace(':', "_"))
                .join(&catalog.namespace)
                .join("events.json")
        });
        let events = file
            .as_ref()
            .and_then(|file| crate::fs::read_limited(file, crate::limits::files::LOCK).ok())
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        EventCache {
            file,
            events,
            changed: false,
        }
    }

    fn save(&self) {
        let Some(file) = self.file.as_ref().filter(|_| self.changed) else {
            return;
        };
        let Ok(bytes) = serde_json::to_vec(&self.events) else {
            return;
        };
        if let Some(parent) = file.parent() {
            let _ = crate::fs::create_folder(parent);
        }
        let _ = crate::fs::write_atomically(file, &bytes);
    }
}

/// The user's cache folder for contrib.
pub(super) fn cache_folder() -> Option<std::path::PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| std::path::PathBuf::from(home).join(".cache"))
        })?;
    Some(base.join("contrib"))
}

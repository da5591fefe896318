//! The distribution API behind a blocking face: the command line runs one
//! registry operation at a time on a runtime of its own. Every answer is
//! bounded ([`super::http`]: bytes by what arrives, time per request and
//! per command, a server's words as a short escaped excerpt) and checked
//! against the digest it was asked by; credentials go only where
//! [`super::auth`] lets them. What the registry says is never trusted
//! further than that.

use std::future::Future;

use futures_util::stream::{self, StreamExt};
use reqwest::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, LOCATION};
use reqwest::{Method, Url};
use sha2::{Digest, Sha256};

use super::auth::{self, Auth, Scope};
use super::cache::EventCache;
use super::http::{self, limit, Answer, Deadlines};
use crate::bundle::oci::{self, Index, OciCatalog, Stored};

/// Tags asked for per page of a listing.
pub(crate) const PAGE: usize = 1000;

/// The most tags one listing may hold: fifty times the 10,000 versions
/// `benches/oci-check.sh` measures, so an endless listing ends.
pub(crate) const MAX_TAGS: usize = 500_000;

/// Reads of immutable things (events, a version's tag) in flight at once:
/// enough to hide a round trip's latency, few enough not to flood a
/// registry (`benches/oci-check.sh` measures it).
const CONCURRENT_READS: usize = 16;

/// The media types a manifest is asked for with.
const MANIFEST_TYPES: &str = "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.docker.distribution.manifest.list.v2+json";

/// A connection to the registry of one catalog.
pub(crate) struct Registry {
    pub catalog: OciCatalog,
    client: reqwest::Client,
    runtime: tokio::runtime::Runtime,
    /// `http(s)://HOST[:PORT]/v2/`.
    base: Url,
    auth: Auth,
    deadlines: Deadlines,
}

/// One request to the registry, before it is sent.
struct Call<'a> {
    method: Method,
    url: Url,
    scope: Scope,
    accept: Option<&'static str>,
    content_type: Option<&'static str>,
    body: Option<&'a [u8]>,
    limit: u64,
}

impl Registry {
    /// Connects to `catalog`'s registry: HTTPS, unless the registry is on
    /// this machine or `plain_http` was asked for; credentials as
    /// [`super::credentials`] finds them; the command's deadlines.
    pub(crate) fn connect(catalog: &OciCatalog, plain_http: bool) -> Result<Registry, String> {
        Self::connect_until(catalog, plain_http, Deadlines::of_command())
    }

    /// [`Registry::connect`], its requests bounded by `deadlines`.
    pub(crate) fn connect_until(
        catalog: &OciCatalog,
        plain_http: bool,
        deadlines: Deadlines,
    ) -> Result<Registry, String> {
        // reqwest is built without a default provider: ring, chosen here.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let plain = plain_http || catalog.is_loopback();
        let scheme = if plain { "http" } else { "https" };
        let base = Url::parse(&format!("{scheme}://{}/v2/", catalog.registry))
            .map_err(|_| format!("cannot reach `{catalog}`: not a registry address"))?;
        let client = reqwest::Client::builder()
            .connect_timeout(deadlines.request)
            .redirect(reqwest::redirect::Policy::limited(5))
            .user_agent(concat!("contrib/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| format!("cannot reach `{catalog}`: {error}"))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| format!("cannot start the registry client: {error}"))?;
        let credentials = super::credentials::find(catalog.host(), &catalog.registry)?;
        Ok(Registry {
            catalog: catalog.clone(),
            client,
            runtime,
            base,
            auth: Auth::new(credentials, catalog.host(), plain),
            deadlines,
        })
    }

    fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// The URL of `path` (`REPOSITORY/manifests/REFERENCE`, …) under `/v2/`.
    fn url(&self, path: &str) -> Result<Url, String> {
        self.base
            .join(path)
            .map_err(|_| format!("registry `{}`: `{path}` is not a path", self.catalog))
    }

    /// Whether `url` is the registry's own origin, the only one its
    /// credentials and tokens are sent to.
    fn is_own(&self, url: &Url) -> bool {
        url.origin() == self.base.origin()
    }

    fn call<'b>(
        &self,
        method: Method,
        path: &str,
        repository: &str,
        push: bool,
    ) -> Result<Call<'b>, String> {
        Ok(Call {
            method,
            url: self.url(path)?,
            scope: (repository.to_string(), push),
            accept: None,
            content_type: None,
            body: None,
            limit: limit::NONE,
        })
    }

    /// A `GET` of the image index at `path` (a referrers listing).
    fn index_call<'b>(&self, path: &str, repository: &str) -> Result<Call<'b>, String> {
        let mut get = self.call(Method::GET, path, repository, false)?;
        get.accept = Some(oci::referrer::INDEX_TYPE);
        get.limit = limit::MANIFEST;
        Ok(get)
    }

    /// Sends `call`, answering the registry's challenge once when it asks
    /// for credentials; the answer, whatever its status.
    async fn send(&self, call: &Call<'_>) -> Result<Answer, String> {
        let mut challenged = false;
        loop {
            let mut request = self.client.request(call.method.clone(), call.url.clone());
            if let Some(accept) = call.accept {
                request = request.header(ACCEPT, HeaderValue::from_static(accept));
            }
            if let Some(content_type) = call.content_type {
                request = request.header(CONTENT_TYPE, HeaderValue::from_static(content_type));
            }
            if let (true, Some(header)) = (self.is_own(&call.url), self.auth.header(&call.scope)) {
                let value = HeaderValue::from_str(&header)
                    .map_err(|_| self.said("a credential is not a header value"))?;
                request = request.header(AUTHORIZATION, value);
            }
            if let Some(body) = call.body {
                request = request.body(body.to_vec());
            }
            let answer = http::exchange(request, call.limit, self.deadlines)
                .await
                .map_err(|stopped| self.said(&stopped.to_string()))?;
            if answer.status == 401 && !challenged && self.is_own(&call.url) {
                challenged = true;
                self.auth
                    .answer(&self.client, &answer, &call.scope, self.deadlines)
                    .await
                    .map_err(|why| self.said(&why))?;
                continue;
            }
            return Ok(answer);
        }
    }

    /// `call` sent, its answer required to succeed.
    async fn send_ok(&self, call: &Call<'_>) -> Result<Answer, String> {
        let answer = self.send(call).await?;
        if answer.ok() {
            Ok(answer)
        } else {
            Err(self.refused(&answer))
        }
    }

    /// `message` about this registry.
    fn said(&self, message: &str) -> String {
        format!("registry `{}`: {message}", self.catalog)
    }

    /// A failed answer in words, about this registry; never a credential.
    fn refused(&self, answer: &Answer) -> String {
        self.said(&failure(answer))
    }

    /// The digest `tag` names in `repository`, or `None` when it names
    /// nothing.
    pub(crate) fn tag_digest(&self, repository: &str, tag: &str) -> Result<Option<String>, String> {
        self.block_on(self.digest_of_tag(repository, tag))
    }

    async fn digest_of_tag(&self, repository: &str, tag: &str) -> Result<Option<String>, String> {
        let path = format!("{repository}/manifests/{tag}");
        let mut head = self.call(Method::HEAD, &path, repository, false)?;
        head.accept = Some(MANIFEST_TYPES);
        let answer = self.send(&head).await?;
        if answer.status == 404 {
            return Ok(None);
        }
        if !answer.ok() {
            return Err(self.refused(&answer));
        }
        if let Some(digest) = answer
            .header(reqwest::header::HeaderName::from_static(
                "docker-content-digest",
            ))
            .filter(|digest| oci::is_digest(digest))
        {
            return Ok(Some(digest.to_string()));
        }
        // No digest in the answer's headers: the manifest's own.
        let mut get = self.call(Method::GET, &path, repository, false)?;
        get.accept = Some(MANIFEST_TYPES);
        get.limit = limit::MANIFEST;
        Ok(Some(sha256(&self.send_ok(&get).await?.body)))
    }

    /// The manifest `digest` names, checked to hash to it.
    pub(crate) fn manifest(&self, repository: &str, digest: &str) -> Result<Vec<u8>, String> {
        self.block_on(self.manifest_of(repository, digest, oci::MANIFEST_TYPE))
    }

    async fn manifest_of(
        &self,
        repository: &str,
        reference: &str,
        accept: &'static str,
    ) -> Result<Vec<u8>, String> {
        let mut get = self.call(
            Method::GET,
            &format!("{repository}/manifests/{reference}"),
            repository,
            false,
        )?;
        get.accept = Some(accept);
        get.limit = limit::MANIFEST;
        let answer = self.send(&get).await?;
        if answer.status == 404 {
            return Err(self.said(&format!("`{repository}` holds no manifest {reference}")));
        }
        if !answer.ok() {
            return Err(self.said(&format!(
                "the manifest {reference} of `{repository}`: {}",
                failure(&answer)
            )));
        }
        if reference.starts_with("sha256:") {
            let got = sha256(&answer.body);
            if got != reference {
                return Err(self.said(&format!(
                    "the manifest asked for as {reference} hashes to {got}"
                )));
            }
        }
        Ok(answer.body)
    }

    /// The blob `digest` names, checked to hash to it: at most `size`
    /// bytes (what its manifest declares), which may be at most `limit`.
    pub(crate) fn blob(
        &self,
        repository: &str,
        digest: &str,
        size: u64,
        limit: u64,
    ) -> Result<Vec<u8>, String> {
        if size > limit {
            return Err(self.said(&format!(
                "the blob {digest} is {size} bytes, over the {limit} it may be"
            )));
        }
        let mut get = self.call(
            Method::GET,
            &format!("{repository}/blobs/{digest}"),
            repository,
            false,
        )?;
        get.limit = size;
        let answer = self.block_on(self.send(&get))?;
        if !answer.ok() {
            return Err(self.said(&format!(
                "the blob {digest} of `{repository}`: {}",
                failure(&answer)
            )));
        }
        let got = sha256(&answer.body);
        if got != digest {
            return Err(self.said(&format!("the blob asked for as {digest} hashes to {got}")));
        }
        Ok(answer.body)
    }

    /// Pushes `bytes` as a blob of `repository` (a blob already there is
    /// not sent again); its digest.
    pub(crate) fn push_blob(&self, repository: &str, bytes: &[u8]) -> Result<String, String> {
        let digest = sha256(bytes);
        self.block_on(async {
            let head = self.call(
                Method::HEAD,
                &format!("{repository}/blobs/{digest}"),
                repository,
                true,
            )?;
            if self.send(&head).await?.ok() {
                return Ok(digest.clone());
            }
            let start = self.call(
                Method::POST,
                &format!("{repository}/blobs/uploads/"),
                repository,
                true,
            )?;
            let started = self.send_ok(&start).await?;
            let location = started
                .header(LOCATION)
                .and_then(|location| self.base.join(location).ok())
                .ok_or_else(|| {
                    self.said("an upload was started without a location to send it to")
                })?;
            let mut url = location;
            url.query_pairs_mut().append_pair("digest", &digest);
            let put = Call {
                method: Method::PUT,
                url,
                scope: (repository.to_string(), true),
                accept: None,
                content_type: Some("application/octet-stream"),
                body: Some(bytes),
                limit: limit::NONE,
            };
            self.send_ok(&put).await?;
            Ok(digest.clone())
        })
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
        let mut put = self.call(
            Method::PUT,
            &format!("{repository}/manifests/{}", tag.unwrap_or(&digest)),
            repository,
            true,
        )?;
        put.content_type = Some(media_type);
        put.body = Some(&bytes);
        let mut attempt = 0;
        loop {
            let answer = self.block_on(self.send(&put))?;
            if answer.ok() {
                return Ok(digest);
            }
            if attempt < BLOB_RACE_RETRIES && is_blob_in_flight(&answer) {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(50 << attempt));
                continue;
            }
            return Err(self.refused(&answer));
        }
    }

    /// The bytes of the index `tag` names in `repository`, or `None` when
    /// it names nothing.
    pub(crate) fn image_index(
        &self,
        repository: &str,
        tag: &str,
    ) -> Result<Option<Vec<u8>>, String> {
        self.block_on(self.image_index_at(repository, tag))
    }

    async fn image_index_at(&self, repository: &str, tag: &str) -> Result<Option<Vec<u8>>, String> {
        let get = self.index_call(&format!("{repository}/manifests/{tag}"), repository)?;
        let answer = self.send(&get).await?;
        match answer.status {
            404 => Ok(None),
            _ if answer.ok() => Ok(Some(answer.body)),
            _ => Err(self.refused(&answer)),
        }
    }

    /// The digests of the contrib signatures the registry lists as
    /// referrers of `subject`: through the referrers API where the
    /// registry has it (OCI distribution 1.1), else the referrers tag
    /// schema's index (a 404 from the API means it has none).
    pub(crate) fn signature_referrers(
        &self,
        repository: &str,
        subject: &str,
    ) -> Result<Vec<String>, String> {
        let artifact = oci::referrer::SIGNATURE_ARTIFACT_TYPE;
        self.block_on(async {
            let get = self.index_call(
                &format!("{repository}/referrers/{subject}?artifactType={artifact}"),
                repository,
            )?;
            let answer = self.send(&get).await?;
            let listing = match answer.status {
                404 => self
                    .image_index_at(repository, &oci::referrer::fallback_tag(subject))
                    .await?
                    .unwrap_or_default(),
                _ if answer.ok() => answer.body,
                _ => return Err(self.refused(&answer)),
            };
            Ok(oci::referrer::listed_of_type(&listing, artifact))
        })
    }

    /// Every tag of `repository`, page by page; none when it does not
    /// exist. A listing of more than [`MAX_TAGS`] is refused, and each page
    /// is bounded in bytes: a registry cannot make it endless.
    pub(crate) fn tags(&self, repository: &str) -> Result<Vec<String>, String> {
        let mut tags: Vec<String> = Vec::new();
        loop {
            let last = tags.last().cloned();
            let mut path = format!("{repository}/tags/list?n={PAGE}");
            if let Some(last) = &last {
                path.push_str("&last=");
                path.push_str(&url_encoded(last));
            }
            let mut get = self.call(Method::GET, &path, repository, false)?;
            get.limit = limit::TAG_PAGE;
            let answer = self.block_on(self.send(&get))?;
            if answer.status == 404 {
                return Ok(tags);
            }
            if !answer.ok() {
                return Err(self.refused(&answer));
            }
            let page = tag_page(&answer.body).ok_or_else(|| {
                self.said(&format!("the tags of `{repository}` are not a tag list"))
            })?;
            // A registry may answer with more than a page (distribution 2.8
            // answers with every tag), so a full page is one of at least
            // the size asked for.
            let full = page.len() >= PAGE;
            let before = tags.len();
            tags.extend(page.into_iter().filter(|tag| Some(tag) > last.as_ref()));
            if tags.len() > MAX_TAGS {
                return Err(self.said(&format!(
                    "listed more than {MAX_TAGS} tags of `{repository}`, more than a catalog holds, so the listing was not read further"
                )));
            }
            if !full || tags.len() == before {
                return Ok(tags);
            }
        }
    }

    /// The catalog's index: every event read and folded. Events are
    /// immutable, so each is fetched once per machine and kept in the
    /// user's cache, sealed ([`EventCache`]); only new tags cost a
    /// request, and those are read [`CONCURRENT_READS`] at a time. The
    /// fold orders events by their predecessors, so the order they arrive
    /// in changes nothing.
    pub(crate) fn index(&self) -> Result<Index, String> {
        let repository = self.catalog.index_repository();
        let mut cache = EventCache::open(&self.catalog);
        let mut events = Vec::new();
        let mut unread = Vec::new();
        for tag in self.tags(&repository)? {
            if !oci::is_event_tag(&tag) {
                continue;
            }
            match cache.get(&tag) {
                Some(stored) => events.push((tag, Ok(stored))),
                None => unread.push(tag),
            }
        }
        for (tag, read) in unread.iter().zip(self.read_events(&repository, &unread)?) {
            if let Ok(stored) = &read {
                cache.insert(tag, stored);
            }
            events.push((tag.clone(), read));
        }
        cache.save();
        Ok(oci::fold(events))
    }

    /// The events `tags` name in `repository`, in the order of `tags`,
    /// each or why it could not be read. A command that runs out of time
    /// reading them fails whole: an index read in part would hide events.
    fn read_events(
        &self,
        repository: &str,
        tags: &[String],
    ) -> Result<Vec<Result<Stored, String>>, String> {
        let reads = tags.iter().map(|tag| async move {
            let mut get = self.call(
                Method::GET,
                &format!("{repository}/manifests/{tag}"),
                repository,
                false,
            )?;
            get.accept = Some(oci::MANIFEST_TYPE);
            get.limit = limit::MANIFEST;
            let answer = self.send(&get).await?;
            if !answer.ok() {
                return Ok(Err(self.refused(&answer)));
            }
            let digest = sha256(&answer.body);
            Ok(oci::manifest_annotations(&answer.body)
                .map(|annotations| Stored {
                    digest,
                    annotations,
                })
                .map_err(|why| why.to_string()))
        });
        let read: Vec<Result<Result<Stored, String>, String>> =
            self.block_on(stream::iter(reads).buffered(CONCURRENT_READS).collect());
        read.into_iter().collect()
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
        self.block_on(stream::iter(reads).buffered(CONCURRENT_READS).collect())
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
            .map_err(|why| self.said(&format!("{plugin} {digest}: {why}")))?;
        self.blob(
            &repository,
            &layer,
            size,
            crate::limits::files::BUNDLE.bytes,
        )
    }
}

/// A failed answer in words; never a credential.
fn failure(answer: &Answer) -> String {
    if matches!(answer.status, 401 | 403) {
        return auth::refusal();
    }
    answer.failure()
}

/// The tags of a tag list's bytes (`{"name": …, "tags": [...]}`, `tags`
/// possibly `null`); `None` when the bytes are not one.
fn tag_page(bytes: &[u8]) -> Option<Vec<String>> {
    #[derive(serde::Deserialize)]
    struct Page {
        tags: Option<Vec<String>>,
    }
    serde_json::from_slice::<Page>(bytes)
        .ok()
        .map(|page| page.tags.unwrap_or_default())
}

/// `text` with every byte but unreserved ones percent-encoded, for a
/// query's value.
fn url_encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (byte as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
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
fn is_blob_in_flight(answer: &Answer) -> bool {
    answer.status == 400 && String::from_utf8_lossy(&answer.body).contains("MANIFEST_BLOB_UNKNOWN")
}

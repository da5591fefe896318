//! What a runtime may load from a catalog, and the signature check that
//! loading, `catalog check` and trusting a key share.

use std::path::Path;

use super::{bundles_in, load_in, shared_lock, Error, Lock, Unverified, KEYS_FOLDER, LOCK_FILE};
use crate::sign::{self, DetachedSignature};
use crate::Bundle;
use contrib_core::fs::Root;
use contrib_core::limits::files::KEY;

/// The bundles a runtime may load from `folder`: the newest version of each
/// plugin, each verified against its own digest. When the folder is a
/// catalog (it has a `catalog.lock`), a bundle must also match its lock
/// entry, yanked versions are not picked, and when the lock trusts keys
/// every bundle must carry a valid signature by one of them: verification
/// fails closed, as `catalog check` does.
pub fn installable(folder: &Path) -> Result<Vec<Bundle>, Error> {
    let root = Root::open(folder)?;
    let is_catalog = root.path().join(LOCK_FILE).exists();
    let _guard = is_catalog.then(|| shared_lock(folder));
    let lock = Lock::read_in(&root)?;
    let mut chosen: Vec<Bundle> = Vec::new();
    for path in bundles_in(&root).files {
        let bundle = load_in(&root, &path)?;
        let entry = lock.entry(&bundle.plugin, &bundle.version);
        if let Some(entry) = entry {
            if bundle.digest.as_deref() != Some(entry.digest.as_str()) {
                return Err(Error::NotLocked {
                    path,
                    bundle: bundle.id(),
                });
            }
            if entry.yanked {
                continue;
            }
        }
        if !lock.trusted_keys.is_empty() {
            if let Err(why) = verify_signature(&root, &path, &bundle, &lock.trusted_keys) {
                return Err(Error::Unsigned { path, why });
            }
        }
        match chosen.iter_mut().find(|kept| kept.plugin == bundle.plugin) {
            Some(kept) if kept.version.cmp_precedence(&bundle.version).is_lt() => *kept = bundle,
            Some(_) => {}
            None => chosen.push(bundle),
        }
    }
    Ok(chosen)
}

/// Verifies a bundle's detached signature against the keys the lock
/// trusts, failing closed, with the public key read from the catalog's
/// own `keys/` folder (never from a folder above it, which the catalog
/// does not control).
pub(crate) fn verify_signature(
    root: &Root,
    bundle_file: &Path,
    bundle: &Bundle,
    trusted: &[String],
) -> Result<(), Unverified> {
    let path = sign::signature_path(bundle_file);
    let text = root
        .read(&path, KEY)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or(Unverified::NoSignatureFile)?;
    let signature: DetachedSignature =
        serde_json::from_str(&text).map_err(|_| Unverified::MalformedSignature)?;
    if !trusted.contains(&signature.key_id) {
        return Err(Unverified::UntrustedKey(signature.key_id));
    }
    let key_path = root
        .path()
        .join(KEYS_FOLDER)
        .join(format!("{}.pub", signature.key_id.replace(':', "-")));
    let key_text = root
        .read(&key_path, KEY)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| Unverified::NoPublicKey(signature.key_id.clone()))?;
    let key = sign::read_public(&key_text).map_err(Unverified::Sign)?;
    sign::verify(
        &key,
        &signature,
        bundle.digest.as_deref().unwrap_or_default(),
    )
    .map_err(Unverified::Sign)
}

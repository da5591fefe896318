//! Loading a workspace: exactly what its lock pins, each re-checked under
//! the policy as it is now.
//!
//! For every entry of `contrib.lock`, the bundle is the workspace's own
//! copy of what was approved ([`super::approved`]), which must hash to the
//! digest the entry pins; the catalog the entry names is asked only
//! whether it still offers that version: listed in its lock with the same
//! digest, not withdrawn, signed when it requires signatures. What the
//! catalog's bundle file holds now is never read. The bundle itself is
//! then judged under the workspace's configuration as it is at load
//! ([`super::admit`]: so a policy tightened after install takes effect),
//! with only the relaxations the lock recorded, and what it asks for must
//! be within what the entry approved. Anything else is refused with its
//! reason; nothing else in a catalog is ever looked at, and nothing is
//! parsed: the bundle is never read back as a manifest.

use std::path::Path;

use crate::bundle::catalog::{self, LockEntry};
use crate::bundle::diff::{self, Class};
use crate::bundle::{bundle_path, Bundle, LoadError};
use crate::codes::{
    DIGEST_MISMATCH, INVALID_BUNDLE, MISSING_BUNDLE, NEEDS_APPROVAL, UNTRUSTED_SIGNATURE,
    WITHDRAWN_VERSION,
};
use crate::config::Config;
use crate::diagnostic::Rule;

use super::admit;
use super::lock::{catalog_path, Installed, WorkspaceLock};
use super::refused::Refused;
use super::Approved;

/// What loading a workspace gave.
#[derive(Debug, Default)]
pub struct Loaded {
    /// Approved and re-checked, in the lock's order.
    pub approved: Vec<Approved>,
    /// Pinned but refused, each with its reason.
    pub refused: Vec<Refused>,
}

/// Loads what the lock of the workspace at `folder` pins.
pub fn load(folder: &Path, config: &Config, lock: &WorkspaceLock) -> Loaded {
    let mut loaded = Loaded::default();
    for entry in &lock.installed {
        match load_one(folder, config, entry) {
            Ok(approved) => loaded.approved.push(approved),
            Err(refused) => loaded.refused.push(refused),
        }
    }
    loaded
}

fn load_one(folder: &Path, config: &Config, entry: &Installed) -> Result<Approved, Refused> {
    let refuse = |rule: &'static Rule, reason: String| Refused {
        plugin: entry.id(),
        rule,
        reason,
    };
    let bundle = super::approved::read(folder, entry)?;
    offered(&catalog_path(folder, entry), entry, &bundle)?;
    let granted = admit::as_granted(&bundle, entry.granted_owner, config);
    let findings = admit::judge(&bundle, &granted, config, &entry.relaxed);
    if let Some(error) = findings.iter().find(|finding| finding.is_error()) {
        return Err(refuse(error.rule, error.reason.clone()));
    }
    let more: Vec<String> = diff::permissions(&entry.permissions, &granted.permissions)
        .into_iter()
        .filter(|change| change.class == Class::NeedsApproval)
        .map(|change| change.message)
        .collect();
    if !more.is_empty() {
        return Err(refuse(
            &NEEDS_APPROVAL,
            format!(
                "under this workspace's policy it now asks for more than was approved ({}); approve it again with `contrib install`",
                more.join("; ")
            ),
        ));
    }
    Ok(Approved {
        bundle: granted,
        installed: entry.clone(),
    })
}

/// Whether the catalog at `folder` still offers what `entry` approved:
/// the version listed with the digest approved, not withdrawn, and signed
/// by a key it trusts when it requires signatures. `approved` is the
/// workspace's copy; only its digest meets the catalog's signature.
fn offered(folder: &Path, entry: &Installed, approved: &Bundle) -> Result<(), Refused> {
    let refuse = |rule: &'static Rule, reason: String| Refused {
        plugin: entry.id(),
        rule,
        reason,
    };
    let lock =
        catalog::Lock::read(folder).map_err(|why| refuse(&INVALID_BUNDLE, why.to_string()))?;
    let listed = lock.entry(&entry.plugin, &entry.version).ok_or_else(|| {
        refuse(
            &MISSING_BUNDLE,
            format!(
                "it is no longer published in the catalog `{}`",
                folder.display()
            ),
        )
    })?;
    if listed.yanked {
        return Err(refuse(
            &WITHDRAWN_VERSION,
            "its catalog has withdrawn this version; install another one".to_string(),
        ));
    }
    if listed.digest != entry.digest {
        return Err(refuse(
            &DIGEST_MISMATCH,
            format!(
                "the catalog now lists it as {}, not the {} this workspace approved; approve a version again with `contrib install`",
                listed.digest, entry.digest
            ),
        ));
    }
    if !lock.trusted_keys.is_empty() {
        let root = crate::fs::Root::open(folder)
            .map_err(|why| refuse(&UNTRUSTED_SIGNATURE, why.to_string()))?;
        let path = bundle_path(folder, &entry.plugin, &entry.version);
        catalog::verify_signature(&root, &path, approved, &lock.trusted_keys).map_err(|why| {
            refuse(
                &UNTRUSTED_SIGNATURE,
                format!("it is not signed by a key the catalog trusts: {why}"),
            )
        })?;
    }
    Ok(())
}

/// A bundle from a catalog, as the catalog published it.
pub struct Fetched {
    pub bundle: Bundle,
    /// Its bytes, exactly: what the workspace keeps when it approves it.
    pub bytes: Vec<u8>,
    pub entry: LockEntry,
}

/// Reads `plugin@version` from the catalog at `folder`: listed in its
/// lock, its bundle loading and matching the lock's digest, and signed by
/// a trusted key when the catalog requires signatures. Whether it is
/// withdrawn is the caller's to decide.
pub fn fetch(folder: &Path, plugin: &str, version: &semver::Version) -> Result<Fetched, Refused> {
    let id = format!("{plugin}@{version}");
    let refuse = |rule: &'static Rule, reason: String| Refused {
        plugin: id.clone(),
        rule,
        reason,
    };
    let lock =
        catalog::Lock::read(folder).map_err(|why| refuse(&INVALID_BUNDLE, why.to_string()))?;
    let entry = lock.entry(plugin, version).cloned().ok_or_else(|| {
        refuse(
            &MISSING_BUNDLE,
            format!("it is not published in the catalog `{}`", folder.display()),
        )
    })?;
    let path = bundle_path(folder, plugin, version);
    let bytes = crate::fs::read_limited(&path, crate::limits::files::BUNDLE)
        .map_err(|why| refuse(&MISSING_BUNDLE, why.to_string()))?;
    let bundle = Bundle::from_bytes(&bytes).map_err(|error| match error {
        LoadError::DigestMismatch { .. } => refuse(&DIGEST_MISMATCH, error.to_string()),
        LoadError::Io(_) => refuse(&MISSING_BUNDLE, error.to_string()),
        _ => refuse(&INVALID_BUNDLE, error.to_string()),
    })?;
    if bundle.plugin != plugin || &bundle.version != version {
        return Err(refuse(
            &INVALID_BUNDLE,
            format!("`{}` holds {}, not {id}", path.display(), bundle.id()),
        ));
    }
    if bundle.digest.as_deref() != Some(entry.digest.as_str()) {
        return Err(refuse(
            &DIGEST_MISMATCH,
            format!(
                "`{}` is not the bundle the catalog published as {}",
                path.display(),
                entry.digest
            ),
        ));
    }
    if !lock.trusted_keys.is_empty() {
        let root = crate::fs::Root::open(folder)
            .map_err(|why| refuse(&UNTRUSTED_SIGNATURE, why.to_string()))?;
        catalog::verify_signature(&root, &path, &bundle, &lock.trusted_keys).map_err(|why| {
            refuse(
                &UNTRUSTED_SIGNATURE,
                format!("it is not signed by a key the catalog trusts: {why}"),
            )
        })?;
    }
    Ok(Fetched {
        bundle,
        bytes,
        entry,
    })
}

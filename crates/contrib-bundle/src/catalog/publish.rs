//! Changing a catalog: publishing a version, yanking one, and the
//! read-modify-write of the lock both hold the catalog's exclusive lock
//! through.

use std::path::{Path, PathBuf};

use super::{consistency, load_in, Error, Lock, LockEntry};
use crate::diff::{self, Change};
use crate::{bundle_path, write_bundle, Bundle, Written};
use contrib_core::codes::*;
use contrib_core::diagnostic::Diagnostic;
use contrib_core::fs::{self, Access, Root};
use contrib_core::source::Span;

/// What a publish did.
#[derive(Debug)]
pub enum Published {
    /// A new version, with what it asks for beyond the previous one.
    New {
        path: PathBuf,
        previous: Option<semver::Version>,
        changes: Vec<Change>,
    },
    /// This exact content was already published under this version.
    AlreadyPublished(PathBuf),
}

/// Why a publish was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `version` (equal to the bundle's under SemVer precedence) is
    /// published with other content.
    Frozen {
        version: semver::Version,
        published: String,
        built: String,
    },
    NotIncreased {
        newest: semver::Version,
    },
    /// With this version the catalog would break a catalog-wide rule
    /// (`contrib catalog check`), judged by the catalog's own policy.
    Inconsistent(Vec<Diagnostic>),
    /// The version carries build metadata (`1.4.1+a`): a catalog names a
    /// version by its number alone, which `install @1.4.1` asks for.
    BuildMetadata,
}

/// Why a publish did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PublishError {
    /// The catalog refused the bundle: a diagnostic on the manifest.
    Refused(Refusal),
    /// The catalog could not be read or written: why, as the person reads
    /// it (a folder's [`Error`], or a registry's answer).
    Io(String),
}

/// A registry's answer, as the person reads it.
impl From<String> for PublishError {
    fn from(message: String) -> Self {
        PublishError::Io(message)
    }
}

impl From<Error> for PublishError {
    fn from(error: Error) -> Self {
        PublishError::Io(error.to_string())
    }
}

impl Refusal {
    /// The refusal as diagnostics on the manifest's version.
    pub fn diagnostics(&self, bundle: &Bundle, version_span: Span) -> Vec<Diagnostic> {
        match self {
            Refusal::Inconsistent(found) => found
                .iter()
                .map(|diagnostic| {
                    Diagnostic::new(diagnostic.rule, diagnostic.message.clone())
                        .primary(version_span, "publishing this version would break the catalog")
                        .help(format!(
                            "`contrib catalog check` would reject the catalog with this version ({}); {}",
                            diagnostic.rule.name,
                            diagnostic.help.clone().unwrap_or_default()
                        ))
                })
                .collect(),
            Refusal::Frozen {
                version,
                published,
                built,
            } if *version != bundle.version => vec![Diagnostic::new(
                &FROZEN_VERSION_CHANGED,
                format!(
                    "{} is {}@{version}, already published with other content",
                    bundle.id(),
                    bundle.plugin
                ),
            )
            .primary(
                version_span,
                format!("the same version as {version}: build metadata is ignored"),
            )
            .help(format!(
                "{version} is published as {published} and this build is {built}; versions that differ only after `+` are one version: bump it"
            ))],
            Refusal::Frozen {
                published, built, ..
            } => vec![Diagnostic::new(
                &FROZEN_VERSION_CHANGED,
                format!("{} is already published with other content", bundle.id()),
            )
            .primary(version_span, format!("published as {published}"))
            .help(format!(
                "this build is {built}; published versions never change: bump the version"
            ))],
            Refusal::NotIncreased { newest } => vec![Diagnostic::new(
                &VERSION_NOT_INCREASED,
                format!("{} is not newer than the published {newest}", bundle.id()),
            )
            .primary(version_span, format!("not greater than {newest}"))
            .help(format!("publish a version greater than {newest}"))],
            Refusal::BuildMetadata => {
                let number = semver::Version {
                    build: semver::BuildMetadata::EMPTY,
                    ..bundle.version.clone()
                };
                vec![Diagnostic::new(
                    &INVALID_VERSION,
                    format!(
                        "{} cannot be published: `{}` carries build metadata",
                        bundle.id(),
                        bundle.version
                    ),
                )
                .primary(version_span, "build metadata is not published")
                .help(format!(
                    "publish it as `{number}`: versions that differ only after `+` are one version, so a catalog names each by its number alone"
                ))]
            }
        }
    }
}

/// Publishes `bundle` into the catalog at `folder` (created if missing),
/// holding the catalog's exclusive lock from reading `catalog.lock` to
/// writing it back, and refusing it when the catalog with it would break a
/// catalog-wide rule ([`consistency`]) under the catalog's own
/// policy ([`consistency::policy`]): checked inside the lock, so publishes racing into
/// one catalog cannot each pass alone. `waiting` hears when another
/// process holds the lock.
pub fn publish(
    bundle: &Bundle,
    folder: &Path,
    waiting: &dyn Fn(&str),
) -> Result<Published, PublishError> {
    if !bundle.version.build.is_empty() {
        return Err(PublishError::Refused(Refusal::BuildMetadata));
    }
    let root = Root::create(folder).map_err(Error::from)?;
    let _guard = fs::lock(folder, Access::Exclusive, waiting).map_err(Error::from)?;
    let mut lock = Lock::read_in(&root)?;
    let built = bundle.digest.clone().unwrap_or_default();
    if let Some(entry) = lock.entry(&bundle.plugin, &bundle.version) {
        if entry.digest == built {
            return Ok(Published::AlreadyPublished(bundle_path(
                folder,
                &entry.plugin,
                &entry.version,
            )));
        }
        return Err(PublishError::Refused(Refusal::Frozen {
            version: entry.version.clone(),
            published: entry.digest.clone(),
            built,
        }));
    }
    if let Some(newest) = lock.newest(&bundle.plugin) {
        if bundle.version.cmp_precedence(&newest.version).is_le() {
            return Err(PublishError::Refused(Refusal::NotIncreased {
                newest: newest.version.clone(),
            }));
        }
    }
    let policy = consistency::policy(&root).map_err(Error::Policy)?;
    let broken = consistency::with_published(&root, &lock, bundle, &policy);
    if !broken.is_empty() {
        return Err(PublishError::Refused(Refusal::Inconsistent(broken)));
    }
    let previous = lock
        .newest_installable(&bundle.plugin)
        .and_then(|entry| load_in(&root, &bundle_path(folder, &entry.plugin, &entry.version)).ok());
    let path = match write_bundle(&root, bundle).map_err(Error::Write)? {
        Written::Created(path) | Written::Unchanged(path) => path,
        Written::Frozen {
            version,
            published,
            built,
            ..
        } => {
            return Err(PublishError::Refused(Refusal::Frozen {
                version,
                published,
                built,
            }))
        }
    };
    lock.published.push(LockEntry {
        plugin: bundle.plugin.clone(),
        version: bundle.version.clone(),
        digest: built,
        yanked: false,
        permissions: bundle.permissions.clone(),
    });
    lock.write(&root)?;
    let changes = previous
        .as_ref()
        .map(|old| diff::diff(old, bundle))
        .unwrap_or_default();
    Ok(Published::New {
        path,
        previous: previous.map(|old| old.version),
        changes,
    })
}

/// Marks `plugin@version` yanked (or, with `undo`, not yanked), holding
/// the catalog's exclusive lock from the read to the write.
pub fn yank(
    folder: &Path,
    plugin: &str,
    version: &semver::Version,
    undo: bool,
    waiting: &dyn Fn(&str),
) -> Result<semver::Version, Error> {
    change_lock(folder, waiting, |lock| {
        let entry = lock
            .published
            .iter_mut()
            .find(|entry| entry.plugin == plugin && entry.version.cmp_precedence(version).is_eq())
            .ok_or_else(|| Error::NotPublished {
                plugin: plugin.to_string(),
                version: version.clone(),
                folder: folder.to_path_buf(),
            })?;
        entry.yanked = !undo;
        Ok(entry.version.clone())
    })
}

/// Reads, changes and writes the lock of the catalog at `folder` holding
/// the catalog's exclusive lock from the read to the write, so that no
/// concurrent publish, yank or trust is lost; nothing is written when
/// `change` fails (with its own error, or the catalog's).
pub fn change_lock<T, E: From<Error>>(
    folder: &Path,
    waiting: &dyn Fn(&str),
    change: impl FnOnce(&mut Lock) -> Result<T, E>,
) -> Result<T, E> {
    let root = Root::open(folder).map_err(Error::from)?;
    let _guard = fs::lock(folder, Access::Exclusive, waiting).map_err(Error::from)?;
    let mut lock = Lock::read_in(&root)?;
    let value = change(&mut lock)?;
    lock.write(&root)?;
    Ok(value)
}

//! What the catalog-wide rules read of every version of a registry
//! catalog: recorded in its publish event, or, for a version published
//! before events recorded it, read from its bundle.

use std::path::Path;

use crate::bundle::catalog::consistency::Facts;
use crate::bundle::catalog::consistency::FactsByVersion;
use crate::bundle::catalog::LockEntry;
use crate::bundle::oci::Index;
use crate::bundle::Bundle;

/// The versions whose publish events do not record their facts: those
/// whose bundles must be pulled.
pub(super) fn unrecorded(index: &Index) -> Vec<&LockEntry> {
    index
        .lock
        .published
        .iter()
        .filter(|entry| !index.facts.contains_key(&id(entry)))
        .collect()
}

/// Every published version's facts: as its index records them, else read
/// from its bundle in `folder`, a mirror holding the [`unrecorded`] ones.
pub(super) fn of_every_version(index: &Index, folder: &Path) -> Result<FactsByVersion, String> {
    let mut facts = FactsByVersion::new();
    for entry in &index.lock.published {
        let known = match index.facts.get(&id(entry)) {
            Some(known) => known.clone(),
            None => read(folder, entry)?,
        };
        facts.insert((entry.plugin.clone(), entry.version.clone()), known);
    }
    Ok(facts)
}

fn id(entry: &LockEntry) -> String {
    format!("{}@{}", entry.plugin, entry.version)
}

/// The facts of a version read from its bundle, pulled into `folder`.
fn read(folder: &Path, entry: &LockEntry) -> Result<Facts, String> {
    let path = crate::bundle::bundle_path(folder, &entry.plugin, &entry.version);
    let bytes = crate::fs::read_limited(&path, crate::limits::files::BUNDLE)?;
    let bundle = Bundle::from_bytes(&bytes)
        .map_err(|error| format!("{}@{}: {error}", entry.plugin, entry.version))?;
    Ok(Facts::of(&bundle))
}

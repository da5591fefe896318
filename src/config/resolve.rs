//! Which configuration applies to which manifest, loading each
//! `contrib.toml` once however many manifests share it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{discover, Config};
use crate::diagnostic::Diagnostic;
use crate::fs::Excludes;

/// A configuration and what was wrong with its file.
pub struct Loaded {
    pub config: Arc<Config>,
    pub diagnostics: Vec<Diagnostic>,
    /// The file, or `None` for the platform's configuration.
    pub path: Option<PathBuf>,
    /// Its `[workspace] exclude` patterns, rooted at the file's folder;
    /// `None` without a file or without patterns.
    pub excludes: Option<Excludes>,
}

impl Loaded {
    /// The configuration in `file` (`None` for the platform's), its
    /// `exclude` patterns rooted at the file's folder.
    fn new(file: Option<&Path>) -> Result<Loaded, crate::fs::Error> {
        let Some(file) = file else {
            return Ok(Loaded {
                config: Arc::new(Config::platform()),
                diagnostics: Vec::new(),
                path: None,
                excludes: None,
            });
        };
        let (config, diagnostics) = Config::load(file)?;
        // The patterns were checked as they were read: one that is not a
        // glob is a diagnostic, and excludes nothing.
        let excludes = (!config.exclude.is_empty())
            .then(|| Excludes::new(file.parent().unwrap_or(Path::new(".")), &config.exclude).ok())
            .flatten();
        Ok(Loaded {
            config: Arc::new(config),
            diagnostics,
            path: Some(file.to_path_buf()),
            excludes,
        })
    }

    /// Whether its `exclude` patterns leave `path` out of a search.
    pub fn excludes(&self, path: &Path) -> bool {
        self.excludes
            .as_ref()
            .is_some_and(|excludes| excludes.excludes(path))
    }
}

/// Finds and loads configurations for manifests.
pub struct Resolver {
    explicit: Option<PathBuf>,
    by_folder: HashMap<PathBuf, Option<PathBuf>>,
    loaded: HashMap<Option<PathBuf>, Arc<Loaded>>,
    /// The configurations already handed out as a first use.
    used: HashSet<Option<PathBuf>>,
}

impl Resolver {
    /// `explicit` is `--config`: when given, it applies to every manifest.
    pub fn new(explicit: Option<PathBuf>) -> Self {
        Resolver {
            explicit,
            by_folder: HashMap::new(),
            loaded: HashMap::new(),
            used: HashSet::new(),
        }
    }

    /// The configuration for the manifest at `path`, and whether this is the
    /// first time it was loaded (so its own diagnostics are shown once).
    pub fn for_manifest(&mut self, path: &Path) -> Result<(Arc<Loaded>, bool), crate::fs::Error> {
        let (loaded, key) = self.load_for(path)?;
        let first_use = self.used.insert(key);
        Ok((loaded, first_use))
    }

    /// The configuration for the manifest at `path`, without counting as
    /// its first use: for a look before the check (its `exclude`), which
    /// must not keep the check from showing the file's diagnostics.
    pub fn peek(&mut self, path: &Path) -> Result<Arc<Loaded>, crate::fs::Error> {
        self.load_for(path).map(|(loaded, _)| loaded)
    }

    fn load_for(
        &mut self,
        path: &Path,
    ) -> Result<(Arc<Loaded>, Option<PathBuf>), crate::fs::Error> {
        let config_path = match &self.explicit {
            Some(explicit) => Some(explicit.clone()),
            None => {
                let folder = absolute(path)
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default();
                self.by_folder
                    .entry(folder)
                    .or_insert_with_key(|folder| discover(folder))
                    .clone()
            }
        };
        if let Some(loaded) = self.loaded.get(&config_path) {
            return Ok((loaded.clone(), config_path));
        }
        let loaded = Arc::new(Loaded::new(config_path.as_deref())?);
        self.loaded.insert(config_path.clone(), loaded.clone());
        Ok((loaded, config_path))
    }

    /// A `contrib.toml` named on the command line, read as configuration
    /// (not as a manifest), and whether this is the first time it was
    /// loaded; manifests found under it later share the same load, so its
    /// diagnostics are shown once.
    pub fn config_file(&mut self, path: &Path) -> Result<(Arc<Loaded>, bool), crate::fs::Error> {
        let key = Some(absolute(path));
        if let Some(loaded) = self.loaded.get(&key) {
            return Ok((loaded.clone(), self.used.insert(key)));
        }
        let loaded = Arc::new(Loaded::new(Some(path))?);
        self.loaded.insert(key.clone(), loaded.clone());
        self.used.insert(key);
        Ok((loaded, true))
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

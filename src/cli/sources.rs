//! Other tools' sources checked in place by `contrib check`: a folder named
//! on the command line that holds no manifest (`*.contrib`) but skills,
//! plugins, rules or MCP configurations in a format `contrib import` reads
//! is checked as those sources, each diagnostic located in its own file
//! (`SKILL.md`, `plugin.json`, …).
//!
//! The files are found as `contrib import` finds them (hidden folders such
//! as `.claude-plugin/` and `.github/` included, since that is where the
//! formats live; `.git`, `node_modules`, `target` skipped; links leading
//! out of the folder not followed), not by the manifest search, which
//! skips hidden folders.

use std::path::PathBuf;

use crate::diagnostic::Diagnostic;
use crate::source::SourceFile;

/// A source file and what is wrong with it.
pub(super) type Checked = (SourceFile, Vec<Diagnostic>);

/// The paths left for the manifest search, and the sources checked in
/// place, in path order.
pub(super) fn in_place(paths: Vec<PathBuf>) -> Result<(Vec<PathBuf>, Vec<Checked>), String> {
    let mut left = Vec::new();
    let mut checked = Vec::new();
    for path in paths {
        if !path.is_dir()
            || !crate::fs::manifests(std::slice::from_ref(&path))?
                .files
                .is_empty()
        {
            left.push(path);
            continue;
        }
        match crate::import::check_in_place(&path)? {
            Some(files) => checked.extend(files.into_iter().map(|file| {
                let name = crate::fs::display_name(&path.join(&file.path));
                (SourceFile::new(name, file.text), file.diagnostics)
            })),
            None => left.push(path),
        }
    }
    Ok((left, checked))
}

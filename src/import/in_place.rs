//! Sources checked in place: what `contrib check DIR` reports on a folder
//! of skills and plugins with no manifest in it.

use super::detect::Layout;
use super::{import, read_tree, InputFile, Options};
use crate::config::Config;
use crate::diagnostic::Diagnostic;

/// One source file checked in place: its text and what is wrong with it.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Relative to the folder checked.
    pub path: String,
    pub text: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// The sources of a folder in the formats `contrib import` reads, checked
/// in place: every such file, with the diagnostics of its problems (the
/// same the import reports), located in the file. `None` when the folder
/// holds no source of those formats.
pub fn check_in_place(folder: &std::path::Path) -> Result<Option<Vec<Checked>>, String> {
    let tree = read_tree(folder)?;
    let layout = Layout::new(tree.files.iter().map(|file| file.path.as_str()));
    let sources: Vec<&InputFile> = tree
        .files
        .iter()
        .filter(|file| layout.classify(&file.path, &file.text).is_ok())
        .collect();
    if sources.is_empty() {
        return Ok(None);
    }
    let imported = import(&tree, &Options::default(), &Config::platform());
    let mut checked: Vec<Checked> = sources
        .iter()
        .map(|file| Checked {
            path: file.path.clone(),
            text: file.text.clone(),
            diagnostics: Vec::new(),
        })
        .collect();
    for problem in &imported.problems {
        let index = match checked.iter().position(|file| file.path == problem.file) {
            Some(index) => index,
            None => {
                let text = tree
                    .files
                    .iter()
                    .find(|file| file.path == problem.file)
                    .map_or(String::new(), |file| file.text.clone());
                checked.push(Checked {
                    path: problem.file.clone(),
                    text,
                    diagnostics: Vec::new(),
                });
                checked.len() - 1
            }
        };
        checked[index].diagnostics.push(problem.diagnostic());
    }
    checked.sort_by(|a, b| a.path.cmp(&b.path));
    for file in &mut checked {
        crate::diagnostic::sort(&mut file.diagnostics);
    }
    Ok(Some(checked))
}

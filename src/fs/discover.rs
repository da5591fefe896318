//! Finding manifests: files named on the command line, and `*.contrib`
//! files found by searching folders, as ruff and ripgrep search.
//!
//! A search (on the `ignore` crate, ripgrep's walker) skips:
//!
//! - what a `.gitignore` lists (in the folder searched, a folder above it or
//!   one the search enters; inside a git repository or not), and
//!   `.git/info/exclude` and the user's global git ignore file;
//! - what a `.contribignore` lists, in the same syntax (globs such as
//!   `*.draft.contrib`, `fixtures/`, `!keep.contrib`), for what `contrib`
//!   alone should skip;
//! - hidden files and folders (`.git/` among them) and `node_modules/`;
//! - symbolic links to folders (a link may lead anywhere, and round in a
//!   loop); a link to a manifest is checked, and a dangling one is skipped
//!   with a warning rather than stopping the run;
//! - anything that is not a regular file (a FIFO would block the run).
//!
//! A path named on the command line is always checked, whatever the ignore
//! files say.

use std::path::{Path, PathBuf};

use super::{cannot, Error};

/// The name of the file that lists what a search skips, beside
/// `.gitignore`.
pub const IGNORE_FILE: &str = ".contribignore";

/// Folders never searched, hidden or not.
const NEVER_SEARCHED: &[&str] = &["node_modules"];

/// What a search found.
#[derive(Debug, Default)]
pub struct Discovered {
    /// The manifests, in the order given, each folder's in path order.
    pub files: Vec<PathBuf>,
    /// Files skipped that the person may not expect to be: dangling links,
    /// FIFOs, unreadable folders.
    pub warnings: Vec<String>,
    /// Folders named on the command line in which nothing was found: a
    /// typo in a CI configuration must not pass as a clean check.
    pub empty: Vec<PathBuf>,
}

/// The manifests named by `paths`: files as given, folders searched.
pub fn manifests(paths: &[PathBuf]) -> Result<Discovered, Error> {
    let mut found = Discovered::default();
    for path in paths {
        let metadata = std::fs::metadata(path).map_err(|error| cannot("read", path, error))?;
        if metadata.is_dir() {
            let before = found.files.len();
            search(path, &is_manifest, &mut found);
            if found.files.len() == before {
                found.empty.push(path.clone());
            }
        } else {
            found.files.push(path.clone());
        }
    }
    Ok(found)
}

/// Whether a path names a manifest.
fn is_manifest(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension == "contrib")
}

/// The files under `folder` that `wanted` accepts, found as manifests are
/// (ignore files honoured, hidden folders skipped, links to folders not
/// followed).
pub fn files_under(folder: &Path, wanted: &dyn Fn(&Path) -> bool) -> Discovered {
    let mut found = Discovered::default();
    search(folder, wanted, &mut found);
    found
}

fn search(folder: &Path, wanted: &dyn Fn(&Path) -> bool, found: &mut Discovered) {
    let walk = ignore::WalkBuilder::new(folder)
        .hidden(true)
        .parents(true)
        .ignore(false)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .add_custom_ignore_filename(IGNORE_FILE)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| {
            !(entry.depth() > 0
                && entry.file_type().is_some_and(|kind| kind.is_dir())
                && NEVER_SEARCHED.iter().any(|name| entry.file_name() == *name))
        })
        .build();
    for entry in walk {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                found
                    .warnings
                    .push(super::without_os_error(&error.to_string()));
                continue;
            }
        };
        let path = entry.path();
        let Some(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() || !wanted(path) {
            continue;
        }
        if file_type.is_file() {
            found.files.push(entry.into_path());
            continue;
        }
        match std::fs::metadata(path) {
            Ok(target) if target.is_file() => found.files.push(entry.into_path()),
            Ok(target) => found.warnings.push(format!(
                "skipped `{}`: it is {}, not a regular file",
                path.display(),
                super::kind_of(&target.file_type())
            )),
            Err(_) if file_type.is_symlink() => found.warnings.push(format!(
                "skipped `{}`: a symbolic link to nothing",
                path.display()
            )),
            Err(error) => found.warnings.push(format!(
                "skipped `{}`: {}",
                path.display(),
                super::describe(&error)
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, name: &str) {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "").unwrap();
    }

    fn names(root: &Path, found: &Discovered) -> Vec<String> {
        found
            .files
            .iter()
            .map(|path| {
                path.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect()
    }

    #[test]
    fn a_search_honours_ignore_files_and_skips_hidden_and_vendored_folders() {
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path();
        for name in [
            "a.contrib",
            "b.draft.contrib",
            "notes.txt",
            "generated/x.contrib",
            "sub/c.contrib",
            "sub/keep.draft.contrib",
            ".hidden/d.contrib",
            ".git/e.contrib",
            "node_modules/pkg/f.contrib",
        ] {
            write(root, name);
        }
        std::fs::write(root.join(".gitignore"), "generated/\n").unwrap();
        std::fs::write(root.join(IGNORE_FILE), "*.draft.contrib\n").unwrap();
        std::fs::write(root.join("sub").join(IGNORE_FILE), "!keep.draft.contrib\n").unwrap();
        let found = manifests(&[root.to_path_buf()]).unwrap();
        assert_eq!(
            names(root, &found),
            ["a.contrib", "sub/c.contrib", "sub/keep.draft.contrib"]
        );
        // Named, an ignored file or folder is checked.
        let found = manifests(&[root.join("b.draft.contrib"), root.join("generated")]).unwrap();
        assert_eq!(
            names(root, &found),
            ["b.draft.contrib", "generated/x.contrib"]
        );
    }

    #[test]
    fn a_folder_without_manifests_is_reported() {
        let folder = tempfile::tempdir().unwrap();
        write(folder.path(), "readme.md");
        let found = manifests(&[folder.path().to_path_buf()]).unwrap();
        assert!(found.files.is_empty());
        assert_eq!(found.empty, [folder.path().to_path_buf()]);
    }

    #[cfg(unix)]
    #[test]
    fn links_to_nothing_and_fifos_are_skipped_with_a_warning() {
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path();
        write(root, "a.contrib");
        std::os::unix::fs::symlink(root.join("gone"), root.join("b.contrib")).unwrap();
        std::os::unix::fs::symlink(root.join("a.contrib"), root.join("c.contrib")).unwrap();
        std::os::unix::fs::symlink(".", root.join("loop")).unwrap();
        let fifo = std::ffi::CString::new(root.join("d.contrib").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let found = manifests(&[root.to_path_buf()]).unwrap();
        assert_eq!(names(root, &found), ["a.contrib", "c.contrib"]);
        let warnings = found.warnings.join("\n");
        assert!(
            warnings.contains("b.contrib`: a symbolic link to nothing"),
            "{warnings}"
        );
        assert!(
            warnings.contains("d.contrib`: it is a named pipe (FIFO)"),
            "{warnings}"
        );
    }
}

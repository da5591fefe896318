//! What a search leaves out besides the ignore files it reads as it walks:
//! a workspace's `exclude` patterns (`[workspace] exclude` in
//! `contrib.toml`), and, for a path that no search found (the name given to
//! standard input with `--stdin-filename`), the `.contribignore` and
//! `.gitignore` files in its folder and above.
//!
//! Both are in gitignore's syntax, read by the `ignore` crate that the
//! search itself uses, so a pattern means the same wherever it is written.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use super::{Error, IGNORE_FILE};

/// A workspace's `exclude` patterns, relative to its folder.
#[derive(Debug, Clone)]
pub struct Excludes {
    root: PathBuf,
    matcher: Gitignore,
}

impl Excludes {
    /// The patterns, as written in the file in `root`. A pattern that is
    /// not a glob is an error, naming it.
    pub fn new(root: &Path, patterns: &[String]) -> Result<Excludes, Error> {
        let root = absolute(root);
        let mut builder = GitignoreBuilder::new(&root);
        for pattern in patterns {
            builder
                .add_line(None, pattern)
                .map_err(|error| pattern_error(pattern, &error))?;
        }
        let matcher = builder
            .build()
            .map_err(|error| Error::Ignore(super::without_os_error(&error.to_string())))?;
        Ok(Excludes { root, matcher })
    }

    /// Whether `path`, or a folder it is in, is excluded. A path outside
    /// the workspace's folder is not.
    pub fn excludes(&self, path: &Path) -> bool {
        let path = absolute(path);
        match path.strip_prefix(&self.root) {
            Ok(relative) if relative.as_os_str().is_empty() => false,
            Ok(relative) => self
                .matcher
                .matched_path_or_any_parents(relative, false)
                .is_ignore(),
            Err(_) => false,
        }
    }
}

fn pattern_error(pattern: &str, error: &ignore::Error) -> Error {
    let why = error.to_string();
    // The glob parser's message repeats the pattern: keep its reason.
    let why = why.rsplit(": ").next().unwrap_or(&why).to_string();
    Error::NotAGlob {
        pattern: pattern.to_string(),
        why,
    }
}

/// Whether the `.contribignore` or `.gitignore` file of `path`'s folder, or
/// of a folder above it, lists it: what a search would have skipped, for a
/// path that was not found by one. The nearest file that says anything
/// about the path decides, `.contribignore` before `.gitignore`.
pub fn listed_in_ignore_files(path: &Path) -> bool {
    let path = absolute(path);
    for folder in path.ancestors().skip(1) {
        let Ok(relative) = path.strip_prefix(folder) else {
            continue;
        };
        for name in [IGNORE_FILE, ".gitignore"] {
            let file = folder.join(name);
            if !file.is_file() {
                continue;
            }
            let (matcher, _) = Gitignore::new(&file);
            match matcher.matched_path_or_any_parents(relative, false) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
    }
    false
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excludes_match_like_gitignore_under_the_workspace_folder() {
        let root = Path::new("/work/catalog");
        let excludes = Excludes::new(
            root,
            &[
                "drafts/".into(),
                "*.draft.contrib".into(),
                "!keep.draft.contrib".into(),
            ],
        )
        .unwrap();
        assert!(excludes.excludes(&root.join("drafts/a.contrib")));
        assert!(excludes.excludes(&root.join("sub/b.draft.contrib")));
        assert!(!excludes.excludes(&root.join("sub/keep.draft.contrib")));
        assert!(!excludes.excludes(&root.join("a.contrib")));
        assert!(!excludes.excludes(Path::new("/elsewhere/drafts/a.contrib")));
        assert!(!excludes.excludes(root));
    }

    /// What gitignore's reader refuses, as `contrib.toml`'s check says it.
    fn refused_by_gitignore(pattern: &str) -> Option<String> {
        GitignoreBuilder::new("")
            .add_line(None, pattern)
            .err()
            .map(|error| pattern_error(pattern, &error).to_string())
    }

    #[test]
    fn the_configurations_check_of_patterns_is_gitignores() {
        for pattern in [
            "drafts/",
            "*.draft.contrib",
            "!keep.draft.contrib",
            "/anchored/**",
            "drafts/{a,b",
            "[z-a]",
            "\\!literal",
            "# a comment [",
            "a/**",
            "src/[a",
            "a\\",
            "**/x/**/y",
            "{a,{b,c}}",
            "trailing  ",
        ] {
            assert_eq!(
                contrib_core::config::glob_error(pattern),
                refused_by_gitignore(pattern),
                "{pattern}"
            );
        }
        assert_eq!(
            contrib_core::config::glob_error("drafts/{a,b").as_deref(),
            Some("`drafts/{a,b` is not a glob: unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)")
        );
    }

    #[test]
    fn ignore_files_above_a_path_decide_the_nearest_first() {
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join(IGNORE_FILE), "*.draft.contrib\n").unwrap();
        std::fs::write(root.join(".gitignore"), "generated/\n").unwrap();
        std::fs::write(root.join("sub").join(IGNORE_FILE), "!keep.draft.contrib\n").unwrap();
        assert!(listed_in_ignore_files(&root.join("a.draft.contrib")));
        assert!(listed_in_ignore_files(&root.join("sub/b.draft.contrib")));
        assert!(!listed_in_ignore_files(
            &root.join("sub/keep.draft.contrib")
        ));
        assert!(listed_in_ignore_files(&root.join("generated/x.contrib")));
        assert!(!listed_in_ignore_files(&root.join("a.contrib")));
    }
}

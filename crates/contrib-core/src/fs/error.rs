//! What can go wrong at the file system, as data. The wording is here,
//! once: each variant's message is what `contrib` has always said, so a
//! caller that shows the error (most do) shows the same sentence, and a
//! caller that needs to tell cases apart matches on the variant.

use std::fmt;
use std::path::PathBuf;

/// A file-system operation that failed, and why.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The system refused `verb` (read, write, create, replace, lock) on
    /// `path`.
    Io {
        verb: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// A folder was needed and `path` is something else.
    NotAFolder(PathBuf),
    /// A folder is to be written at `path`, where a file is.
    FileInTheWay(PathBuf),
    /// A folder is to be written at `path`, where a symbolic link is.
    LinkInTheWay(PathBuf),
    /// A folder that is not to be replaced holds something.
    NotEmpty(PathBuf),
    /// Every name tried for a temporary folder beside `path` was taken.
    NoTemporaryName(PathBuf),
    /// A file to be written in a folder is named by a path that leaves it.
    NotInside(String),
    /// `path` leads out of `root`, through a link or `..`.
    Outside { path: PathBuf, root: PathBuf },
    /// A file is larger than the limit for what it is.
    TooLarge {
        path: PathBuf,
        limit: String,
        what: &'static str,
    },
    /// A file that must be text is not UTF-8.
    NotText { path: PathBuf, at: usize },
    /// A file to read is not a regular file; `kind` says what it is.
    NotRegular { path: PathBuf, kind: &'static str },
    /// An exclude pattern is not a glob.
    NotAGlob { pattern: String, why: String },
    /// The ignore files could not be read or matched.
    Ignore(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { verb, path, source } => write!(
                f,
                "cannot {verb} `{}`: {}",
                path.display(),
                super::describe(source)
            ),
            Error::NotAFolder(path) => write!(f, "`{}` is not a folder", path.display()),
            Error::FileInTheWay(path) => write!(f, "`{}` is a file, not a folder", path.display()),
            Error::LinkInTheWay(path) => write!(
                f,
                "`{}` is a symbolic link; write to the folder it names",
                path.display()
            ),
            Error::NotEmpty(path) => write!(f, "`{}` is not empty", path.display()),
            Error::NoTemporaryName(path) => write!(
                f,
                "cannot create a temporary folder beside `{}`",
                path.display()
            ),
            Error::NotInside(relative) => {
                write!(f, "`{relative}` is not a path inside the folder")
            }
            Error::Outside { path, root } => write!(
                f,
                "`{}` leads out of `{}` (through a symbolic link or `..`); nothing outside it is read or written",
                path.display(),
                root.display()
            ),
            Error::TooLarge { path, limit, what } => write!(
                f,
                "cannot read `{}`: it is larger than {limit}, the limit for {what}",
                path.display()
            ),
            Error::NotText { path, at } => write!(
                f,
                "cannot read `{}`: it is not UTF-8 text (at byte {at})",
                path.display()
            ),
            Error::NotRegular { path, kind } => write!(
                f,
                "cannot read `{}`: it is {kind}, not a regular file",
                path.display()
            ),
            Error::NotAGlob { pattern, why } => write!(f, "`{pattern}` is not a glob: {why}"),
            Error::Ignore(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The command line reports errors as text, and takes this one with `?`.
impl From<Error> for String {
    fn from(error: Error) -> String {
        error.to_string()
    }
}
